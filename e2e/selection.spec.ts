import type { Page } from '@playwright/test';
import { elementsOf, hashOf } from './boardHook.ts';
import { expect, joinLesson, startLesson, test } from './support.ts';

async function at(page: Page, x: number, y: number) {
  const box = (await page.getByTestId('board').boundingBox())!;
  return { x: box.x + x, y: box.y + y };
}

async function drag(page: Page, from: [number, number], to: [number, number], hold = false) {
  const a = await at(page, ...from);
  const b = await at(page, ...to);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move(b.x, b.y, { steps: 6 });
  if (!hold) await page.mouse.up();
}

test('issue 23: a student marquee-selects three shapes and drags them together while the teacher sees all three locked', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const ana = await joinLesson(browser, teacher.code, 'Ana');
  // Ana moves the teacher's shapes: a lesson where everyone edits everything.
  await teacher.page.getByTestId('edit-policy').selectOption('everyone');
  await teacher.page.getByRole('button', { name: /^Fill shapes/ }).click();
  await teacher.page.getByRole('button', { name: /^Rectangle/ }).click();
  for (const x of [200, 320, 440]) await drag(teacher.page, [x, 200], [x + 80, 260]);
  await expect.poll(async () => (await elementsOf(ana.page)).length).toBe(3);
  await teacher.page.getByRole('button', { name: /^Select and move/ }).click();

  // A box dragged on empty board selects the three it contains.
  await ana.page.getByRole('button', { name: /^Select and move/ }).click();
  await drag(ana.page, [170, 170], [550, 290]);
  await expect(ana.page.getByTestId('selection-outline')).toHaveCount(3);
  await expect(ana.page.getByTestId('selection-box')).toHaveCount(1);

  // Ana presses on the middle one and drags: all three move, under one group lock.
  await drag(ana.page, [360, 230], [410, 270], true);
  const outlines = teacher.page.getByTestId('lock-outline');
  await expect(outlines).toHaveCount(3);
  for (const outline of await outlines.all()) await expect(outline).toContainText('Ana');
  // And sees all three move with her drag, not only the one under her pointer.
  const rects = teacher.page.locator('[data-testid="element"][data-kind="rect"]');
  for (const rect of await rects.all()) await expect.poll(async () => (await rect.getAttribute('transform')) ?? '').toMatch(/translate\(50 40\)/);
  // While she holds them, the teacher's press on one is refused at once.
  const tGrab = await at(teacher.page, 245, 245);
  await teacher.page.mouse.move(tGrab.x, tGrab.y);
  await teacher.page.mouse.down();
  await expect(teacher.page.getByTestId('board')).toHaveAttribute('data-refused', 'locked');
  await teacher.page.mouse.up();

  await ana.page.mouse.up();
  await expect
    .poll(async () => (await elementsOf(teacher.page)).map((e) => [e.x, e.y, e.lockedBy]).sort())
    .toEqual([[250, 240, null], [370, 240, null], [490, 240, null]]);
  await expect(outlines).toHaveCount(0);
  await expect.poll(async () => (await hashOf(ana.page)) === (await hashOf(teacher.page))).toBe(true);

  // Shift-click takes one out; Escape clears; Ctrl+A takes all; arrows nudge (shift: 10).
  const first = await at(ana.page, 290, 270);
  await ana.page.keyboard.down('Shift');
  await ana.page.mouse.click(first.x, first.y);
  await ana.page.keyboard.up('Shift');
  await expect(ana.page.getByTestId('selection-outline')).toHaveCount(2);
  await ana.page.keyboard.press('Escape');
  await expect(ana.page.getByTestId('selection-outline')).toHaveCount(0);
  await ana.page.keyboard.press('ControlOrMeta+a');
  await expect(ana.page.getByTestId('selection-outline')).toHaveCount(3);
  await ana.page.keyboard.press('Shift+ArrowRight');
  await ana.page.keyboard.press('ArrowDown');
  await expect
    .poll(async () => (await elementsOf(teacher.page)).map((e) => [e.x, e.y]).sort())
    .toEqual([[260, 241], [380, 241], [500, 241]]);

  // Ana drags the group's south-east handle and holds it: the teacher watches the three grow
  // (drawn from her lock.move frames) before anything is committed; the drop then lands as drawn.
  // The frame (260, 241)–(580, 301) becomes (260, 241)–(740, 361): each 80 × 60 becomes 120 × 120.
  await drag(ana.page, [580, 301], [740, 361], true);
  const drawnSizes = () => rects.evaluateAll((gs) => gs.map((g) => [g.querySelector('rect')?.getAttribute('width'), g.querySelector('rect')?.getAttribute('height')]));
  await expect.poll(drawnSizes).toEqual([['120', '120'], ['120', '120'], ['120', '120']]);
  expect((await elementsOf(teacher.page)).map((e) => e.shape.w)).toEqual([80, 80, 80]);
  await ana.page.mouse.up();
  await expect.poll(async () => (await elementsOf(teacher.page)).map((e) => [e.shape.w, e.shape.h, e.lockedBy])).toEqual([[120, 120, null], [120, 120, null], [120, 120, null]]);
  expect(await drawnSizes()).toEqual([['120', '120'], ['120', '120'], ['120', '120']]);
});
