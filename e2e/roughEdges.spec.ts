/**
 * The classroom's rough edges, each as a teacher of a class meets it: the people count says who it
 * counts, a raised hand shows in the student's roster row, and students' cursors leave the class
 * board while an activity keeps them on their own boards.
 */
import { expect, joinLesson, rosterEntry, startLesson, test } from './support.ts';

test('the people count says who is counted; a raised hand is in the roster row; no student cursor stays on the class board during an activity', async ({ browser }) => {
  const teacher = await startLesson(browser);
  const ana = await joinLesson(browser, teacher.code, 'Ana');
  const ben = await joinLesson(browser, teacher.code, 'Ben');

  // Two students and the teacher: the badge counts the class, its name says the teacher is apart.
  const badge = teacher.page.getByTestId('people-here');
  await expect(badge).toHaveText('2');
  await expect(badge).toHaveAttribute('aria-label', '2 students + teacher here');

  // Ana raises her hand: her roster row on the teacher's screen says so.
  const anaRow = rosterEntry(teacher.page, 'Ana');
  await expect(anaRow.getByTestId('roster-hand')).toHaveCount(0);
  await ana.page.getByTestId('raise-hand').click();
  await expect(anaRow.getByTestId('roster-hand')).toContainText('hand up');
  await expect(rosterEntry(teacher.page, 'Ben').getByTestId('roster-hand')).toHaveCount(0);

  // Ana's cursor on the class board reaches the teacher.
  const anaId = await anaRow.getAttribute('data-user-id');
  const board = ana.page.getByRole('application', { name: 'Whiteboard' });
  const box = (await board.boundingBox())!;
  await ana.page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5, { steps: 4 });
  const anaCursor = teacher.page.locator(`[data-testid="cursor"][data-user-id="${anaId}"]`);
  await expect(anaCursor).toHaveCount(1);

  // An activity puts every student on their own board: Ana's last class-board cursor goes.
  await teacher.page.getByRole('button', { name: 'Start activity' }).click();
  await teacher.page.getByRole('dialog').getByRole('button', { name: 'Start' }).click();
  await expect(ana.page.getByRole('application', { name: 'Your board' })).toBeVisible();
  await teacher.page.getByRole('button', { name: 'Class board' }).click();
  await expect(anaCursor).toHaveCount(0);
  // Ben sees no classmate's cursor on the class board either (his own board is his stage).
  await expect(ben.page.locator(`[data-testid="cursor"][data-user-id="${anaId}"]`)).toHaveCount(0);
});
