import type { Page } from '@playwright/test';
import { elementsOf, hashOf } from './boardHook.ts';
import { expect, joinLesson, startLesson, test } from './support.ts';

async function at(page: Page, x: number, y: number) {
  const box = (await page.getByTestId('board').boundingBox())!;
  return { x: box.x + x, y: box.y + y };
}

async function drag(page: Page, from: [number, number], to: [number, number]) {
  const a = await at(page, ...from);
  const b = await at(page, ...to);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move(b.x, b.y, { steps: 8 });
  await page.mouse.up();
}

const shapesOf = async (page: Page) => (await elementsOf(page)).map((e) => e.shape);

test('issue 23: the teacher resizes and turns a rectangle from its handles and a student sees it', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const ana = await joinLesson(browser, teacher.code, 'Ana');
  await teacher.page.getByRole('button', { name: /^Fill shapes/ }).click();
  await teacher.page.getByRole('button', { name: /^Rectangle/ }).click();
  await drag(teacher.page, [200, 200], [320, 260]);
  await expect.poll(() => shapesOf(ana.page)).toEqual([expect.objectContaining({ kind: 'rect', x: 200, y: 200, w: 120, h: 60 })]);
  await teacher.page.getByRole('button', { name: /^Select and move/ }).click();

  // The new rectangle is selected: its south-east handle resizes it, the north-west corner stays.
  await expect(teacher.page.locator('[data-testid="handle"][data-handle="se"]')).toHaveCount(1);
  await drag(teacher.page, [320, 260], [400, 300]);
  await expect.poll(() => shapesOf(ana.page)).toEqual([expect.objectContaining({ x: 200, y: 200, w: 200, h: 100 })]);

  // The rotate handle sits above the top middle (300, 172); dragged round to the right of the
  // centre (300, 250) it turns the rectangle a quarter turn clockwise.
  await drag(teacher.page, [300, 172], [380, 250]);
  await expect.poll(() => shapesOf(ana.page)).toEqual([expect.objectContaining({ x: 200, y: 200, w: 200, h: 100, rotation: 90 })]);
  await expect(ana.page.locator('[data-testid="element"][data-kind="rect"] g')).toHaveAttribute('transform', 'rotate(90 300 250)');
  await expect.poll(async () => (await hashOf(ana.page)) === (await hashOf(teacher.page))).toBe(true);
});
