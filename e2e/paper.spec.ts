import { readFile } from 'node:fs/promises';
import { expect, joinLesson, startLesson, test } from './support.ts';

/**
 * Issue 23: the board's paper is the teacher's lesson setting. A student sees the teacher's choice
 * at once and after a reload (the snapshot carries it), has no control to change it, and an
 * export draws the paper only when asked.
 */
test('the teacher switches to graph paper; the student sees it, also after a reload; an export includes it when asked', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const student = await joinLesson(browser, teacher.code, 'Ana');
  const paperOf = (page: typeof teacher.page) => page.getByTestId('board').locator('.layer-grid');
  await expect(paperOf(student.page)).toHaveAttribute('data-paper', 'dots');
  await expect(student.page.getByTestId('paper-button')).toHaveCount(0);

  await teacher.page.getByTestId('paper-button').click();
  await teacher.page.getByTestId('paper-choices').getByText('Graph + axes').click();
  await expect(teacher.page.getByTestId('paper-button')).toHaveAccessibleName('Paper: Graph + axes');

  for (const page of [teacher.page, student.page]) {
    await expect(paperOf(page)).toHaveAttribute('data-paper', 'graph');
    // One repeating SVG tile of five squares, not a node per line; the axes are two lines.
    await expect.poll(() => paperOf(page).evaluate((el) => getComputedStyle(el).backgroundImage)).toContain('data:image/svg+xml');
    await expect.poll(() => paperOf(page).evaluate((el) => getComputedStyle(el).backgroundSize)).toBe('120px 120px');
    await expect(page.getByTestId('paper-axes')).toBeVisible();
  }
  await student.page.reload();
  await expect(paperOf(student.page)).toHaveAttribute('data-paper', 'graph');

  const plain = teacher.page.waitForEvent('download');
  await teacher.page.getByRole('button', { name: 'Export board as SVG' }).click();
  expect(await readFile((await (await plain).path())!, 'utf8')).not.toContain('wb-paper');
  await teacher.page.getByTestId('export-paper').check();
  const withPaper = teacher.page.waitForEvent('download');
  await teacher.page.getByRole('button', { name: 'Export board as SVG' }).click();
  const svg = await readFile((await (await withPaper).path())!, 'utf8');
  expect(svg).toContain('<pattern id="wb-paper"');
  expect(svg).toContain('fill="url(#wb-paper)"');

  // Blank paper: no background at all.
  await teacher.page.getByTestId('paper-button').click();
  await teacher.page.getByTestId('paper-choices').getByText('Blank').click();
  await expect(paperOf(student.page)).toBeHidden();
  await expect(student.page.getByTestId('paper-axes')).toHaveCount(0);
});
