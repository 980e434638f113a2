import { cursorOf, expect, joinLesson, rosterEntry, startLesson, test } from './support.ts';

test('slice: a teacher starts a lesson, a student joins by link, each sees the other live and the cursor moves', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  await expect(teacher.page.getByTestId('join-code')).toHaveText(teacher.code);
  await expect(teacher.page.getByTestId('join-link')).toHaveValue(new RegExp(`/r/${teacher.code}$`));

  const student = await joinLesson(browser, teacher.code, 'Ana');

  // Both rosters list both people, live.
  for (const page of [teacher.page, student.page]) {
    await expect(rosterEntry(page, 'Ana')).toHaveAttribute('data-state', 'live');
    await expect(rosterEntry(page, 'Ms Rivera')).toHaveAttribute('data-state', 'live');
  }

  // The student's cursor appears at the teacher's, labelled with the name, and follows the mouse.
  const board = student.page.getByTestId('board');
  const box = (await board.boundingBox())!;
  await student.page.mouse.move(box.x + 200, box.y + 150);
  const cursor = cursorOf(teacher.page, 'Ana');
  await expect(cursor).toBeVisible();
  const first = await cursor.boundingBox();
  await student.page.mouse.move(box.x + 420, box.y + 330, { steps: 5 });
  await expect
    .poll(async () => {
      const now = await cursor.boundingBox();
      return now && first ? Math.round(now.x - first.x) : 0;
    })
    .toBeGreaterThan(150);
  // And the teacher's at the student's: both directions work.
  const teacherBoard = (await teacher.page.getByTestId('board').boundingBox())!;
  await teacher.page.mouse.move(teacherBoard.x + 300, teacherBoard.y + 200);
  await expect(cursorOf(student.page, 'Ms Rivera')).toBeVisible();
  // Nobody sees their own cursor drawn as a remote one.
  await expect(cursorOf(teacher.page, 'Ms Rivera')).toHaveCount(0);
});
