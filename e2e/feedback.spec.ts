/**
 * Feedback on a student's board and anonymous showing (docs/boards.md), in real browsers: a
 * teacher and three students. An activity starts blank even with a selection on the class board;
 * the teacher stamps a tick on Anastasia's board, which she sees at once and cannot move; shown
 * anonymously, her board reaches her classmates with nothing of her name in their shown boards'
 * markup, and her banner no longer says only she and the teacher can see it; ending the activity
 * asks first, and "Reopen activity" undoes it.
 */
import type { Page } from '@playwright/test';
import { expect, joinLesson, startLesson, test } from './support.ts';

const ownBoard = (page: Page) => page.getByRole('application', { name: 'Your board' });
const drawn = (board: ReturnType<Page['locator']>) => board.locator('[data-testid="element"]');

async function dragOn(page: Page, board: ReturnType<Page['locator']>, from: [number, number], to: [number, number]) {
  const box = await board.boundingBox();
  if (!box) throw new Error('no board on screen');
  await page.mouse.move(box.x + box.width * from[0], box.y + box.height * from[1]);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * to[0], box.y + box.height * to[1], { steps: 8 });
  await page.mouse.up();
}

test('feedback: a blank start, a stamp the student sees and cannot move, an anonymous show, a confirmed end', async ({ browser }) => {
  const teacher = await startLesson(browser);
  const names = ['Anastasia Quill', 'Benedikt Ortiz', 'Cleopatra Nwosu'];
  const students = [];
  for (const name of names) students.push({ name, ...(await joinLesson(browser, teacher.code, name)) });
  const [ana, ben] = students as [(typeof students)[number], (typeof students)[number]];

  // A rectangle on the class board, selected: the start dialog still offers a blank board first.
  const classBoard = teacher.page.getByRole('application', { name: 'Whiteboard' });
  await teacher.page.getByRole('button', { name: 'Rectangle (R)' }).click();
  await dragOn(teacher.page, classBoard, [0.3, 0.3], [0.4, 0.4]);
  await teacher.page.getByRole('button', { name: /^Select and move/ }).click();
  await dragOn(teacher.page, classBoard, [0.25, 0.25], [0.45, 0.45]);
  await teacher.page.getByRole('button', { name: 'Start activity' }).click();
  const dialog = teacher.page.getByRole('dialog');
  await expect(dialog.getByRole('radio', { name: /copy of my selection \(1\)/ })).toBeEnabled();
  await expect(dialog.getByRole('radio', { name: 'Blank' })).toBeChecked();
  await dialog.getByLabel('Title').fill('Fractions');
  await dialog.getByRole('button', { name: 'Start' }).click();

  for (const [i, s] of students.entries()) {
    await dragOn(s.page, ownBoard(s.page), [0.2 + i * 0.1, 0.3], [0.3 + i * 0.1, 0.5]);
    // Blank: the stroke is the only element (no copy of the teacher's rectangle).
    await expect(drawn(ownBoard(s.page))).toHaveCount(1);
  }

  // The teacher opens Anastasia's board and stamps a tick: she sees it at once.
  const grid = teacher.page.getByTestId('class-grid');
  await grid.locator(`[data-testid="board-tile"][data-owner="${names[0]}"]`).click();
  await teacher.page.getByRole('button', { name: 'Stamp tick' }).click();
  const anaBoard = ownBoard(ana.page);
  await expect(drawn(anaBoard)).toHaveCount(2);
  const stamp = anaBoard.locator('[data-testid="element"][data-kind="text"]');
  await expect(stamp).toContainText('✓');

  // She cannot move it: her select tool is refused on the teacher's stamp, and it stays put.
  const before = (await stamp.boundingBox())!;
  await ana.page.keyboard.press('Escape');
  await ana.page.getByRole('button', { name: /^Select and move/ }).click();
  await ana.page.mouse.move(before.x + before.width / 2, before.y + before.height / 2);
  await ana.page.mouse.down();
  await ana.page.mouse.move(before.x + before.width / 2 + 80, before.y + before.height / 2 + 60, { steps: 6 });
  await ana.page.mouse.up();
  const after = (await stamp.boundingBox())!;
  expect(Math.round(after.x - before.x)).toBe(0);
  expect(Math.round(after.y - before.y)).toBe(0);

  // Her next stroke, drawn across the tick, goes under it: the teacher's layer is above her work.
  await ana.page.keyboard.press('Escape');
  await ana.page.getByRole('toolbar', { name: 'Drawing tools' }).getByRole('button', { name: /^Pen/ }).click();
  await ana.page.mouse.move(after.x - 30, after.y + after.height / 2);
  await ana.page.mouse.down();
  await ana.page.mouse.move(after.x + after.width + 30, after.y + after.height / 2, { steps: 8 });
  await ana.page.mouse.up();
  await expect(drawn(anaBoard)).toHaveCount(3);
  await expect(drawn(anaBoard).last()).toHaveAttribute('data-kind', 'text');

  // Two stamps more, clicked one right after the other: each where it can be seen, none over another.
  await teacher.page.getByRole('button', { name: 'Stamp star' }).click();
  await teacher.page.getByRole('button', { name: 'Stamp question' }).click();
  const stamps = anaBoard.locator('[data-testid="element"][data-kind="text"]');
  await expect(stamps).toHaveCount(3);
  await expect(drawn(anaBoard).last()).toHaveAttribute('data-kind', 'text');
  const boxes = await Promise.all([0, 1, 2].map(async (i) => (await stamps.nth(i).boundingBox())!));
  for (const [i, a] of boxes.entries()) {
    for (const b of boxes.slice(i + 1)) {
      const apart = a.x + a.width <= b.x + 1 || b.x + b.width <= a.x + 1 || a.y + a.height <= b.y + 1 || b.y + b.height <= a.y + 1;
      expect(apart, `stamps at ${JSON.stringify(a)} and ${JSON.stringify(b)} overlap`).toBe(true);
    }
  }

  // Shown anonymously: Anastasia's banner says so; her classmates' shown board names nobody.
  await teacher.page.getByRole('button', { name: 'Show anonymously' }).click();
  await expect(ana.page.getByTestId('private-board-banner')).toContainText('the teacher is showing it to the class as “Student A”');
  await expect(ana.page.getByTestId('private-board-banner')).not.toContainText('only you and the teacher');
  const shown = ben.page.getByTestId('shown-boards');
  await expect(shown.getByRole('img', { name: /^Student A's board, 2 strokes/ })).toBeVisible();
  const markup = await shown.evaluate((el) => el.outerHTML);
  for (const part of names[0]!.split(' ')) expect(markup).not.toContain(part);

  // Ending the activity asks first; "Keep going" keeps it running.
  await teacher.page.getByRole('button', { name: 'Back to grid' }).click();
  await teacher.page.getByRole('button', { name: 'End activity' }).click();
  await teacher.page.getByRole('button', { name: 'Keep going' }).click();
  await expect(teacher.page.getByTestId('activity-status')).toHaveText('Running');
  await teacher.page.getByRole('button', { name: 'End activity' }).click();
  await teacher.page.getByRole('group', { name: /End the activity for everyone/ }).getByRole('button', { name: 'End activity' }).click();
  await expect(teacher.page.getByTestId('class-grid-overlay')).toHaveCount(0);
  await expect(ana.page.getByTestId('private-board-banner')).toHaveCount(0);

  // Ending is undone: "Reopen activity" runs it again (the server's decision); Anastasia draws on.
  await expect(teacher.page.getByTestId('activity-ended')).toContainText('"Fractions" has ended');
  await teacher.page.getByRole('button', { name: 'Reopen activity' }).click();
  await expect(teacher.page.getByTestId('activity-status')).toHaveText('Running');
  await expect(teacher.page.getByTestId('activity-ended')).toHaveCount(0);
  await expect(ana.page.getByTestId('private-board-banner')).toBeVisible();
  await ana.page.keyboard.press('Escape');
  await ana.page.getByRole('toolbar', { name: 'Drawing tools' }).getByRole('button', { name: /^Pen/ }).click();
  await dragOn(ana.page, ownBoard(ana.page), [0.6, 0.6], [0.7, 0.7]);
  await expect(drawn(ownBoard(ana.page))).toHaveCount(6);
});
