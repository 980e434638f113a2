import type { Page } from '@playwright/test';
import { axeScan } from './axe.ts';
import { expect, joinLesson, startLesson, test } from './support.ts';

/** Serious and critical violations, with the nodes they hit, readable in a failure message. */
async function seriousViolations(page: Page) {
  const results = await axeScan(page, { tags: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] });
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
}

test('axe: the start page has no serious violations', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('button', { name: 'Start lesson' })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
});

test('axe: the join page and the board (teacher and student) have no serious violations', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  // The board with an element, a selection and the teacher's controls showing.
  await teacher.page.getByRole('button', { name: /^Rectangle/ }).click();
  const box = (await teacher.page.getByTestId('board').boundingBox())!;
  await teacher.page.mouse.move(box.x + 300, box.y + 200);
  await teacher.page.mouse.down();
  await teacher.page.mouse.move(box.x + 400, box.y + 280, { steps: 4 });
  await teacher.page.mouse.up();
  await expect(teacher.page.getByRole('button', { name: 'Pin', exact: true })).toBeVisible();
  expect(await seriousViolations(teacher.page)).toEqual([]);

  const context = await browser.newContext();
  const join = await context.newPage();
  await join.goto(`/r/${teacher.code}`);
  await expect(join.getByRole('button', { name: 'Join lesson' })).toBeVisible();
  expect(await seriousViolations(join)).toEqual([]);

  const student = await joinLesson(browser, teacher.code, 'Ana');
  await teacher.page.getByTestId('edit-policy').selectOption('look');
  await expect(student.page.getByTestId('board-locked-notice')).toBeVisible();
  expect(await seriousViolations(student.page)).toEqual([]);
});
