/**
 * Pages and a prepared lesson (issue 39, docs/guide.md "Pages"), in real browsers: the teacher
 * prepares a 3-page lesson before class while a student with the link waits on "not started yet";
 * she starts it and the student is let in on her page; the student follows her through the pages
 * and cannot browse away while paced; on page 2 she has the attention bar and her laser reaches
 * the student there; a late joiner lands on her page; when she lets the class browse the student
 * goes to another page, and "Bring everyone to me" or "Bring everyone to this page" brings them back.
 */
import type { Locator, Page } from '@playwright/test';
import { expect, expectLive, fromPageActions, test } from './support.ts';

/** The page's one Board, named for what is on the stage ("Whiteboard", "Page 2"). */
const stage = (page: Page, name: string) => page.getByRole('application', { name, exact: true });
const drawn = (board: Locator) => board.locator('[data-testid="element"]');
const strip = (page: Page) => page.getByRole('navigation', { name: 'Pages' });
const thumb = (page: Page, name: string | RegExp) => strip(page).getByRole('button', { name, exact: typeof name === 'string' });

/** A stroke with the pen (a page opens with the select tool, as the lesson's own page does). */
async function strokeOn(page: Page, board: Locator, from: [number, number], to: [number, number]) {
  await page.getByRole('button', { name: 'Pen (P)' }).click();
  const box = await board.boundingBox();
  if (!box) throw new Error('no board on screen');
  await page.mouse.move(box.x + box.width * from[0], box.y + box.height * from[1]);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * to[0], box.y + box.height * to[1], { steps: 8 });
  await page.mouse.up();
}

test('prepare a 3-page lesson, start it; a student follows the teacher and cannot browse while paced; a late joiner lands on her page', async ({ browser }) => {
  // The teacher prepares the lesson: not started, students wait.
  const teacherContext = await browser.newContext();
  const teacher = await teacherContext.newPage();
  await teacher.goto('/');
  await teacher.getByLabel('Your name').fill('Ms Rivera');
  await teacher.getByLabel('Prepare now, start later').check();
  await teacher.getByRole('button', { name: 'Prepare lesson' }).click();
  await teacher.waitForURL(/\/r\/[A-Z2-9]{6}$/);
  const code = /\/r\/([A-Z2-9]{6})$/.exec(teacher.url())![1]!;
  await expectLive(teacher);
  await expect(teacher.getByTestId('lesson-prepared')).toBeVisible();

  // Two more pages, each with a stroke on it.
  for (const [i, name] of ['Page 2', 'Page 3'].entries()) {
    await fromPageActions(teacher, 'Add page');
    await expect(stage(teacher, name)).toBeVisible();
    await strokeOn(teacher, stage(teacher, name), [0.3 + i * 0.1, 0.3], [0.5 + i * 0.1, 0.6]);
    await expect(drawn(stage(teacher, name))).toHaveCount(1);
  }
  await expect(strip(teacher).getByRole('listitem')).toHaveCount(3);

  // A student with the link waits: the lesson has not started.
  const anaContext = await browser.newContext();
  const ana = await anaContext.newPage();
  await ana.goto(`/r/${code}`);
  await expect(ana.getByTestId('not-started-note')).toBeVisible();
  await ana.getByLabel('Your name').fill('Ana');
  await ana.getByRole('button', { name: 'Join lesson' }).click();
  await expect(ana.getByTestId('not-started')).toBeVisible();

  // She starts it: the student is let in, on the teacher's page (Page 3, where she is).
  await teacher.getByTestId('lesson-prepared').getByRole('button', { name: 'Start lesson' }).click();
  await expect(teacher.getByTestId('lesson-prepared')).toHaveCount(0);
  await expectLive(ana);

  await expect(stage(ana, 'Page 3')).toBeVisible();
  await expect(drawn(stage(ana, 'Page 3'))).toHaveCount(1);
  await expect(ana.getByTestId('pages-note')).toHaveText("Your teacher's page: 3 of 3");

  // Paced: the student cannot go to another page; the teacher moves and the student moves with her.
  await expect(thumb(ana, 'Page 1')).toBeDisabled();
  await expect(thumb(ana, 'Page 2')).toBeDisabled();
  // The teacher's tool goes with her from page to page: the pen she picks on page 3 is in her
  // hand on page 1.
  const pen = teacher.getByRole('button', { name: 'Pen (P)' });
  await pen.click();
  await expect(pen).toHaveAttribute('aria-pressed', 'true');
  await thumb(teacher, 'Page 1').click();
  await expect(stage(ana, 'Whiteboard')).toBeVisible();
  await expect(stage(teacher, 'Whiteboard')).toBeVisible();
  await expect(pen).toHaveAttribute('aria-pressed', 'true');
  // On the lesson's own page the teacher's attention bar (two rows at this width) holds the bottom
  // centre: the strip stands above it, so "Bring everyone to me" is not under the strip.
  const bar = teacher.getByRole('toolbar', { name: 'Attention' });
  await expect(bar.getByRole('button', { name: 'Bring everyone to me' })).toBeVisible();
  await expect
    .poll(async () => {
      const [b, s] = [await bar.boundingBox(), await strip(teacher).boundingBox()];
      return b && s ? Math.round(b.y - (s.y + s.height)) : -1;
    })
    .toBeGreaterThanOrEqual(0);
  await thumb(teacher, 'Page 2').click();
  await expect(stage(ana, 'Page 2')).toBeVisible();
  await expect(drawn(stage(ana, 'Page 2'))).toHaveCount(1);
  // The student draws on the page the class is on.
  await strokeOn(ana, stage(ana, 'Page 2'), [0.6, 0.2], [0.8, 0.4]);
  await expect(drawn(stage(teacher, 'Page 2'))).toHaveCount(2);

  // Page 2 has the attention kit too: the teacher's bar, and her laser reaches the student on the
  // page (drawn on page 2's board, in its coordinates), where it fades.
  await expect(bar.getByRole('button', { name: 'Bring everyone to me' })).toBeVisible();
  await expect(ana.getByRole('toolbar', { name: 'Attention' }).getByRole('button', { name: 'Hide cursors' })).toBeVisible();
  await bar.getByTestId('laser-toggle').click();
  const teacherBoard = (await stage(teacher, 'Page 2').boundingBox())!;
  const trail = stage(ana, 'Page 2').getByTestId('laser-trail');
  // Each poll draws a fresh stroke of the laser first: the trail lives 1.2 s, a slow machine must
  // not let it all fade between two polls.
  let x = 0.3;
  await expect
    .poll(async () => {
      x = x >= 0.7 ? 0.3 : x + 0.1;
      await teacher.mouse.move(teacherBoard.x + teacherBoard.width * x, teacherBoard.y + teacherBoard.height * 0.5, { steps: 5 });
      return Number(await trail.getAttribute('data-points'));
    })
    .toBeGreaterThan(0);
  await expect.poll(async () => Number(await trail.getAttribute('data-points')), { timeout: 5_000 }).toBe(0);
  await bar.getByTestId('laser-toggle').click();

  // A late joiner lands on the teacher's page.
  const benContext = await browser.newContext();
  const ben = await benContext.newPage();
  await ben.goto(`/r/${code}`);
  await ben.getByLabel('Your name').fill('Ben');
  await ben.getByRole('button', { name: 'Join lesson' }).click();
  await expectLive(ben);
  await expect(stage(ben, 'Page 2')).toBeVisible();
  await expect(drawn(stage(ben, 'Page 2'))).toHaveCount(2);

  // Free browsing: the student goes to page 3 alone; "Bring everyone to this page" brings them back.
  await fromPageActions(teacher, 'Let students browse');
  await expect(ana.getByTestId('pages-note')).toHaveText('You may look at any page');
  await thumb(ana, 'Page 3').click();
  await expect(stage(ana, 'Page 3')).toBeVisible();
  await expect(stage(ben, 'Page 2')).toBeVisible();
  // "Bring everyone to me" brings her view, and it is on page 2: the student comes to page 2 (not
  // page 3 moved to a view of page 2's), and may browse on from there.
  await bar.getByRole('button', { name: 'Bring everyone to me' }).click();
  await expect(stage(ana, 'Page 2')).toBeVisible();
  await expect(thumb(ana, 'Page 3')).toBeEnabled();
  await thumb(ana, 'Page 3').click();
  await expect(stage(ana, 'Page 3')).toBeVisible();
  await fromPageActions(teacher, 'Bring everyone to this page');
  await expect(stage(ana, 'Page 2')).toBeVisible();
  await expect(thumb(ana, 'Page 3')).toBeDisabled();

  for (const context of [teacherContext, anaContext, benContext]) await context.close();
});
