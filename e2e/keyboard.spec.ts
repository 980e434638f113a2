import { axeScan } from './axe.ts';
import { elementsOf } from './boardHook.ts';
import { expect, startLesson, test } from './support.ts';

test('issue 23 keyboard: a shape is created, Tabbed to, moved with the arrows and deleted without a pointer', async ({ browser }) => {
  const { page } = await startLesson(browser, 'Ms Rivera');
  const board = page.getByTestId('board');
  const announcement = page.getByTestId('selection-announcement');
  await board.focus();

  // R picks the rectangle tool; Enter makes one in the middle of the view, selected.
  await page.keyboard.press('r');
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await elementsOf(page)).length).toBe(1);
  await expect(page.getByTestId('selection-outline')).toHaveCount(1);
  const [made] = await elementsOf(page);

  // Escape clears; Tab selects it again (the selection frame is the focus ring) and says so.
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('selection-outline')).toHaveCount(0);
  await expect(announcement).toHaveText('');
  await page.keyboard.press('Tab');
  await expect(board).toBeFocused();
  await expect(page.getByTestId('selection-outline')).toHaveCount(1);
  await expect(announcement).toHaveText('Selected: Rectangle by Ms Rivera, 1 of 1');

  // Arrows move it (shift: 10 px), as ordinary edits.
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Shift+ArrowDown');
  await expect.poll(async () => (await elementsOf(page)).map((e) => [e.x, e.y])).toEqual([[made!.x + 3, made!.y + 10]]);

  // Delete removes it.
  await page.keyboard.press('Delete');
  await expect.poll(async () => (await elementsOf(page)).length).toBe(0);
  await expect(page.getByTestId('element-list')).toContainText('The board is empty.');
});

test('issue 23 keyboard: the element list names the elements in Tab order, selects the chosen one and passes axe', async ({ browser }) => {
  const { page } = await startLesson(browser, 'Ms Rivera');
  const board = page.getByTestId('board');
  const list = page.getByTestId('element-list');
  const announcement = page.getByTestId('selection-announcement');
  await board.focus();
  await page.keyboard.press('r');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Escape');
  // With nothing selected the arrows pan: the next element lands lower on the board.
  for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('s');
  await page.keyboard.press('Enter');
  await page.keyboard.type('Question 1');
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await elementsOf(page)).length).toBe(2);
  await expect(list.getByRole('button')).toHaveText(['Rectangle by Ms Rivera', "Sticky note: 'Question 1' by Ms Rivera"]);
  // Finishing the note hands focus back to the board.
  await expect(board).toBeFocused();

  // Tab walks top to bottom, then leaves the board (no keyboard trap) for the list, which shows.
  await page.keyboard.press('Escape');
  await page.keyboard.press('Tab');
  await expect(announcement).toHaveText('Selected: Rectangle by Ms Rivera, 1 of 2');
  // The rectangle was pushed off the top by the pan: Tab brought it back into view.
  // (Polled: the outline is drawn on the frame after the pan, not with the announcement.)
  const outline = page.getByTestId('selection-outline');
  await expect(outline).toBeVisible();
  await expect
    .poll(async () => {
      const seen = await outline.boundingBox();
      const view = await board.boundingBox();
      return seen !== null && view !== null && seen.y >= view.y && seen.y + seen.height <= view.y + view.height;
    })
    .toBe(true);
  await page.keyboard.press('Tab');
  await expect(announcement).toHaveText("Selected: Sticky note: 'Question 1' by Ms Rivera, 2 of 2");
  await page.keyboard.press('Tab');
  await expect(list.getByRole('button').first()).toBeFocused();
  await expect(list).toBeVisible();
  await expect(page.getByTestId('selection-outline')).toHaveCount(0);

  // Choosing an item selects that element and hands focus back to the board.
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await expect(board).toBeFocused();
  await expect(announcement).toHaveText("Selected: Sticky note: 'Question 1' by Ms Rivera, 2 of 2");
  await expect(list.getByRole('button', { name: /Sticky note/ })).toHaveAttribute('aria-pressed', 'true');

  // The list, shown with focus in it, has no serious accessibility violations.
  await list.getByRole('button').first().focus();
  const results = await axeScan(page, { include: '[data-testid="element-list"]', tags: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] });
  expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
});
