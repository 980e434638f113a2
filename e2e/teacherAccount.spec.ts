import { randomBytes } from 'node:crypto';
import { expect, expectLive, joinLesson, rosterEntry, test } from './support.ts';

test('a teacher signs up, starts a lesson that lands in their list, renames and archives it, reads its attendance and shares it afterwards', async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto('/teacher');
  const signUp = page.getByRole('region', { name: 'Create a teacher account' });
  await signUp.getByLabel('Your name').fill('Ms Rivera');
  await signUp.getByLabel('Email').fill(`rivera-${randomBytes(4).toString('hex')}@school.example`);
  await signUp.getByLabel('Password').fill('correct horse battery');
  await signUp.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByText('Signed in as')).toContainText('Ms Rivera');
  // The cookie is httpOnly: page scripts cannot read it.
  expect(await page.evaluate(() => document.cookie)).not.toContain('wb_teacher');

  await page.getByLabel('Lesson title (optional)').fill('Fractions');
  await page.getByRole('button', { name: 'Start lesson' }).click();
  await page.waitForURL(/\/r\/[A-Z2-9]{6}$/);
  await expectLive(page);
  const code = /\/r\/([A-Z2-9]{6})$/.exec(page.url())![1]!;
  const student = await joinLesson(browser, code, 'Ana');
  await expect(rosterEntry(page, 'Ana')).toHaveAttribute('data-state', 'live');

  await page.goto('/teacher');
  const row = page.getByTestId('teacher-room').filter({ hasText: code });
  await expect(row).toContainText('Fractions');
  await row.getByRole('button', { name: 'Rename' }).click();
  await row.getByLabel('New title for Fractions').fill('Fractions, week 3');
  await row.getByRole('button', { name: 'Save' }).click();
  await expect(row).toContainText('Fractions, week 3');
  // Everyone in the lesson sees the new title.
  await expect(student.page.getByRole('heading', { level: 1 })).toHaveText('Fractions, week 3');

  await row.getByRole('button', { name: 'Archive' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Archive' }).click();
  await expect(row).toContainText('Archived');
  await expect(student.page.getByRole('dialog', { name: 'You are no longer connected to this lesson' })).toContainText('This lesson has ended');

  await row.getByRole('button', { name: 'Attendance' }).click();
  const report = page.getByTestId('attendance-report');
  await expect(report.getByTestId('attendance-row').filter({ hasText: 'Ana' })).toContainText('closed by server');
  await page.keyboard.press('Escape');

  // An ended lesson's row shares it as her account: the link opens for a browser with no session.
  await row.getByTestId('share-open').click();
  const dialog = page.getByTestId('share-dialog');
  await dialog.getByTestId('share-make').click();
  const url = await dialog.getByTestId('share-url').inputValue();
  expect(url).toMatch(/\/shared\/[A-Za-z0-9_-]{43}$/);
  const viewerContext = await browser.newContext();
  const viewer = await viewerContext.newPage();
  await viewer.goto(url);
  await expect(viewer.getByRole('heading', { name: 'Fractions, week 3' })).toBeVisible();
  await expect(viewer.getByText('Ana', { exact: true })).toHaveCount(0);
  await viewerContext.close();
  await student.page.context().close();
  await context.close();
});
