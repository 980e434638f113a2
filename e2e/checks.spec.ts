/**
 * Checking for understanding in real browsers at classroom.test (a non-secure origin): a teacher
 * and three students. The teacher runs a timer (every screen counts down the same deadline, a pause
 * reaches everyone, zero shows the gentle sign), asks a quick poll (students answer and change
 * their answer; the teacher sees live counts and who has not answered; the results reach the class
 * as a chart whose DOM holds no student's name), and during an activity a student asks for help
 * (the flag on the tile, the filter, the queue, cleared by the teacher).
 */
import type { Page } from '@playwright/test';
import { expect, joinLesson, startLesson, test } from './support.ts';

/** Seconds shown by a page's timer ("0:57" is 57). */
async function shownSeconds(page: Page): Promise<number> {
  const text = (await page.getByTestId('timer-time').textContent()) ?? '';
  const match = /^(\d+):(\d{2})$/.exec(text.trim());
  if (!match) throw new Error(`not a time: ${text}`);
  return Number(match[1]) * 60 + Number(match[2]);
}

test('teacher + 3 students: a timer, a quick poll with a chart without names, and a help request', async ({ browser }) => {
  const teacher = await startLesson(browser);
  const names = ['Ana', 'Ben', 'Cleo'];
  const students: { name: string; page: Page }[] = [];
  for (const name of names) students.push({ name, ...(await joinLesson(browser, teacher.code, name)) });
  const everyone = [teacher.page, ...students.map((s) => s.page)];
  const t = teacher.page;

  // The timer: a minute for everyone, from the server's deadline.
  await t.getByRole('button', { name: 'Timer', exact: true }).click();
  await t.getByTestId('timer-dialog').getByRole('button', { name: '1 min' }).click();
  for (const page of everyone) await expect(page.getByTestId('timer')).toHaveAttribute('data-state', 'running');
  // The screens agree: read within the same second, none is more than a second apart (the display
  // rounds to whole seconds; the offsets themselves are bounded by half a round trip, checksClient.ts).
  const shown = await Promise.all(everyone.map(shownSeconds));
  expect(Math.max(...shown) - Math.min(...shown)).toBeLessThanOrEqual(1);
  expect(Math.min(...shown)).toBeGreaterThan(40);
  // A student's screen has no timer controls; the teacher pauses for everyone.
  await expect(students[0]!.page.getByTestId('timer').getByRole('button')).toHaveCount(0);
  await t.getByTestId('timer').getByRole('button', { name: 'Pause' }).click();
  for (const page of everyone) await expect(page.getByTestId('timer')).toHaveAttribute('data-state', 'paused');
  await t.getByTestId('timer').getByRole('button', { name: 'Stop' }).click();
  for (const page of everyone) await expect(page.getByTestId('timer')).toHaveCount(0);
  // A short one, to see the end: the gentle sign on every screen.
  await t.getByRole('button', { name: 'Timer', exact: true }).click();
  const dialog = t.getByTestId('timer-dialog');
  await dialog.getByLabel('Minutes').fill('0');
  await dialog.getByLabel('Seconds').fill('2');
  await dialog.getByRole('button', { name: 'Start' }).click();
  for (const page of everyone) await expect(page.getByTestId('timer-time')).toHaveText('Time’s up');
  await t.getByTestId('timer').getByRole('button', { name: 'Stop' }).click();

  // The quick poll.
  await t.getByRole('button', { name: 'Quick poll' }).click();
  await t.getByTestId('poll-dialog').getByLabel('Question').fill('Is 7 a prime number?');
  await t.getByTestId('poll-dialog').getByRole('button', { name: 'Ask' }).click();
  const [ana, ben, cleo] = students as [{ name: string; page: Page }, { name: string; page: Page }, { name: string; page: Page }];
  for (const s of students) await expect(s.page.getByTestId('student-poll')).toContainText('Is 7 a prime number?');
  await ana.page.getByTestId('student-poll').getByRole('button', { name: 'Yes' }).click();
  await ben.page.getByTestId('student-poll').getByRole('button', { name: 'No' }).click();
  await expect(ben.page.getByTestId('poll-mine')).toContainText('Your answer: No');
  // Ben changes his mind: still one answer.
  await ben.page.getByTestId('student-poll').getByRole('button', { name: 'Yes' }).click();
  await expect(ben.page.getByTestId('poll-mine')).toContainText('Your answer: Yes');
  const teacherPoll = t.getByTestId('teacher-poll');
  await expect(t.getByTestId('poll-answered')).toContainText('2 of 3 answered');
  await expect(teacherPoll.locator('.poll-bar').first()).toHaveAttribute('data-count', '2');
  await teacherPoll.getByText('Not answered yet (1)').click();
  await expect(t.getByTestId('poll-waiting')).toContainText('Cleo');
  await teacherPoll.getByRole('button', { name: 'Show results to class' }).click();
  await teacherPoll.getByRole('button', { name: 'Close poll' }).click();
  for (const s of students) {
    const chart = s.page.getByTestId('student-poll').getByTestId('poll-chart');
    await expect(chart.locator('.poll-bar')).toHaveCount(2);
    await expect(chart.locator('.poll-bar').first()).toHaveAttribute('data-count', '2');
    await expect(chart.locator('.poll-bar').nth(1)).toHaveAttribute('data-count', '0');
    // No student's name in the poll's DOM on a student's screen (the roster is the roster's business).
    const markup = await s.page.getByTestId('student-poll').evaluate((el) => el.outerHTML);
    for (const name of names) expect(markup).not.toContain(name);
  }
  await expect(cleo.page.getByTestId('poll-mine')).toContainText('You did not answer');

  // A help request during an activity.
  await t.getByRole('button', { name: 'Start activity' }).click();
  await t.getByRole('dialog').getByRole('button', { name: 'Start' }).click();
  await expect(ben.page.getByTestId('flag-buttons')).toBeVisible();
  await ben.page.getByTestId('flag-buttons').getByRole('button', { name: 'I need help' }).click();
  await ana.page.getByTestId('flag-buttons').getByRole('button', { name: 'I’m done' }).click();
  const grid = t.getByTestId('class-grid');
  await expect(grid.locator('[data-testid="board-tile"][data-owner="Ben"]').getByTestId('tile-flag')).toHaveText(/Needs help/);
  await expect(grid.locator('[data-testid="board-tile"][data-owner="Ana"]').getByTestId('tile-flag')).toHaveText(/Done/);
  await expect(t.getByTestId('help-request')).toHaveCount(1);
  await expect(t.getByTestId('help-request').first()).toContainText('Ben');
  await t.getByTestId('flag-filter').selectOption('help');
  await expect(grid.getByTestId('board-tile')).toHaveCount(1);
  await t.getByTestId('flag-filter').selectOption('all');
  await expect(grid.getByTestId('board-tile')).toHaveCount(3);
  await t.getByRole('button', { name: "Clear Ben's help request" }).click();
  await expect(t.getByTestId('help-queue')).toHaveCount(0);
  await expect(ben.page.getByTestId('flag-buttons').getByRole('button', { name: 'I need help' })).toHaveAttribute('aria-pressed', 'false');
});
