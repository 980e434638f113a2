import type { Page } from '@playwright/test';
import { reducePngPixels } from './pngPixels.ts';
import { cursorOf, expect, expectLive, joinLesson, startLesson, test } from './support.ts';

/** Moves the mouse over the board, at (x, y) from its top-left corner. */
async function pointAt(page: Page, x: number, y: number, steps = 1) {
  const box = (await page.getByTestId('board').boundingBox())!;
  await page.mouse.move(box.x + x, box.y + y, { steps });
}

/** Pans this person's own view with the arrow keys (the board has the focus, nothing selected:
 *  with a selection the arrows nudge it instead). */
async function panAway(page: Page, presses: number) {
  await page.getByTestId('board').focus();
  await page.keyboard.press('Escape');
  for (let i = 0; i < presses; i++) await page.keyboard.press('ArrowRight');
}

/**
 * The share of pixels that differ between two same-sized screenshots (PNG), decoded and compared
 * on a blank page of the browser (no image library needed, no stored golden file).
 */
async function pixelDifference(page: Page, a: Buffer, b: Buffer): Promise<number> {
  return reducePngPixels(page.context(), [a, b], ([pa, pb]) => {
    if (pa!.length !== pb!.length) return 1;
    let differ = 0;
    // A pixel differs when its colour moved by more than antialiasing does.
    for (let i = 0; i < pa!.length; i += 4) if (Math.abs(pa![i]! - pb![i]!) + Math.abs(pa![i + 1]! - pb![i + 1]!) + Math.abs(pa![i + 2]! - pb![i + 2]!) > 48) differ++;
    return differ / (pa!.length / 4);
  });
}

test("attention kit: only the teacher's cursor by default, bring everyone, present and pan away, a reload follows, laser trail, raised hand", async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const ana = await joinLesson(browser, teacher.code, 'Ana');
  const ben = await joinLesson(browser, teacher.code, 'Ben');

  // A new lesson shows students only the teacher's cursor; the teacher sees everyone's.
  await expect(teacher.page.getByTestId('cursor-visibility')).toHaveValue('teacher');
  await pointAt(ben.page, 300, 300);
  await pointAt(ana.page, 350, 320);
  await pointAt(teacher.page, 400, 340);
  await expect(cursorOf(teacher.page, 'Ben')).toBeVisible();
  await expect(cursorOf(teacher.page, 'Ana')).toBeVisible();
  await expect(cursorOf(ana.page, 'Ms Rivera')).toBeVisible();
  // Ben keeps moving: the teacher sees it, Ana never does.
  await pointAt(ben.page, 360, 360, 5);
  await expect(cursorOf(teacher.page, 'Ben')).toBeVisible();
  await expect(cursorOf(ana.page, 'Ben')).toHaveCount(0);

  // The teacher draws a mark, moves away from where the students look, and brings everyone.
  await teacher.page.getByRole('button', { name: 'Rectangle (R)' }).click();
  await pointAt(teacher.page, 500, 420);
  await teacher.page.mouse.down();
  await pointAt(teacher.page, 620, 500, 4);
  await teacher.page.mouse.up();
  await expect(ana.page.getByTestId('element')).toHaveCount(1);
  await panAway(teacher.page, 6);
  const markAtTeacher = (await teacher.page.getByTestId('element').boundingBox())!;
  const markBefore = (await ana.page.getByTestId('element').boundingBox())!;
  expect(Math.abs(markBefore.x - markAtTeacher.x)).toBeGreaterThan(100);
  // The teacher's area around the mark, as both screens show it (cursors hidden on both: each
  // sees different ones). The mark's thin outline is ~2.5 % of it: elsewhere, that much differs.
  const area = { x: markAtTeacher.x - 40, y: markAtTeacher.y - 40, width: markAtTeacher.width + 80, height: markAtTeacher.height + 80 };
  for (const page of [teacher.page, ana.page]) await page.getByRole('button', { name: 'Hide cursors' }).click();
  const teachersArea = await teacher.page.screenshot({ clip: area });
  expect(await pixelDifference(ana.page, await ana.page.screenshot({ clip: area }), teachersArea)).toBeGreaterThan(0.005);
  await teacher.page.getByRole('button', { name: 'Bring everyone to me' }).click();
  // Same window size: the student's view is now the teacher's (the mark sits where it sits there).
  await expect.poll(async () => Math.round(((await ana.page.getByTestId('element').boundingBox())?.x ?? 0) - markAtTeacher.x)).toBe(0);
  await expect.poll(async () => Math.round(((await ana.page.getByTestId('element').boundingBox())?.y ?? 0) - markAtTeacher.y)).toBe(0);
  // Screenshot compared: the student's screen shows the teacher's area as the teacher sees it.
  // 0.2 %: a tenth of the mark's outline (about 2.5 % of the area, above), room for its anti-aliased
  // edge to fall on other sub-pixels; a view still off by any pan differs by the whole outline.
  expect(await pixelDifference(ana.page, await ana.page.screenshot({ clip: area }), teachersArea)).toBeLessThan(0.002);
  for (const page of [teacher.page, ana.page]) await page.getByRole('button', { name: 'Show cursors' }).click();

  // Presenting: both students follow; one pans away and is offered the way back.
  await teacher.page.getByRole('button', { name: 'Present' }).click();
  await expect(teacher.page.getByTestId('followers')).toHaveText('2 following');
  await expect(ana.page.getByTestId('following')).toBeVisible();
  await panAway(ana.page, 3);
  await expect(ana.page.getByTestId('return-to-teacher')).toBeVisible();
  await expect(teacher.page.getByTestId('followers')).toHaveText('1 following');
  await ana.page.getByTestId('return-to-teacher').click();
  await expect(teacher.page.getByTestId('followers')).toHaveText('2 following');
  // The teacher moves on; Ben reloads meanwhile: his new page follows at once, to where she is now.
  await panAway(teacher.page, 2);
  await ben.page.reload();
  await expectLive(ben.page);
  await expect(ben.page.getByTestId('following')).toBeVisible();
  await expect(teacher.page.getByTestId('followers')).toHaveText('2 following');
  const markNow = (await teacher.page.getByTestId('element').boundingBox())!;
  await expect.poll(async () => Math.round(((await ben.page.getByTestId('element').boundingBox())?.x ?? 0) - markNow.x)).toBe(0);
  await expect.poll(async () => Math.round(((await ben.page.getByTestId('element').boundingBox())?.y ?? 0) - markNow.y)).toBe(0);
  await teacher.page.getByRole('button', { name: 'Stop presenting' }).click();

  // The teacher's laser leaves a trail on the students' screens, and it fades.
  await teacher.page.getByTestId('laser-toggle').click();
  await pointAt(teacher.page, 200, 250);
  const trail = ben.page.getByTestId('laser-trail');
  // The trail lives 1.2 s: each poll draws a fresh stroke first, so a slow machine cannot let the
  // whole trail fade between two polls.
  let x = 200;
  await expect
    .poll(async () => {
      x = x >= 560 ? 200 : x + 60;
      await pointAt(teacher.page, x, 300, 5);
      return Number(await trail.getAttribute('data-points'));
    })
    .toBeGreaterThan(0);
  await expect.poll(async () => Number(await trail.getAttribute('data-points')), { timeout: 5_000 }).toBe(0);

  // Ben raises his hand: it appears in the teacher's queue, and the teacher lowers it.
  await ben.page.getByTestId('raise-hand').click();
  const queue = teacher.page.getByTestId('hand-queue');
  await expect(queue.getByTestId('raised-hand')).toHaveCount(1);
  await expect(queue.getByTestId('raised-hand')).toContainText('Ben');
  await queue.getByRole('button', { name: "Lower Ben's hand" }).click();
  await expect(queue).toHaveCount(0);
  await expect(ben.page.getByTestId('raise-hand')).toHaveText('Raise hand');
});
