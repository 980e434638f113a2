/**
 * Deleting for good, from the pages (docs/guide.md): a teacher deletes a lesson from her list
 * after confirming (a student still in it is disconnected); an admin hands a teacher a one-time
 * reset link, then deletes the account after typing its email again. The server checks who may
 * (apps/server/test/lessonDeletion.test.ts, adminAccounts.test.ts); here the pages.
 */
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from '@playwright/test';
import { E2E_ADMIN_EMAIL } from './origins.ts';
import { expect, expectLive, joinLesson, test } from './support.ts';

const PASSWORD = 'correct horse battery';

async function signUp(browser: Browser, name: string, email = `${randomBytes(4).toString('hex')}@school.example`): Promise<{ page: Page; email: string }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto('/teacher');
  const card = page.getByRole('region', { name: 'Create a teacher account' });
  await card.getByLabel('Your name').fill(name);
  await card.getByLabel('Email').fill(email);
  await card.getByLabel('Password').fill(PASSWORD);
  await card.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByText('Signed in as')).toContainText(name);
  return { page, email };
}

test('a teacher deletes a lesson from her list after confirming; a student in it is disconnected', async ({ browser }) => {
  const { page } = await signUp(browser, 'Ms Rivera');
  await page.getByLabel('Lesson title (optional)').fill('Old lesson');
  await page.getByRole('button', { name: 'Start lesson' }).click();
  await page.waitForURL(/\/r\/[A-Z2-9]{6}$/);
  await expectLive(page);
  const code = /\/r\/([A-Z2-9]{6})$/.exec(page.url())![1]!;
  const student = await joinLesson(browser, code, 'Ana');
  await page.goto('/teacher');
  const row = page.getByTestId('teacher-room').filter({ hasText: code });

  await row.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete Old lesson?' });
  await expect(dialog).toContainText('deleted for good');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(row).toBeVisible();

  await row.getByRole('button', { name: 'Delete' }).click();
  await dialog.getByRole('button', { name: 'Delete for good' }).click();
  await expect(page.getByTestId('teacher-room').filter({ hasText: code })).toHaveCount(0);
  await expect(student.page.getByRole('dialog', { name: 'You are no longer connected to this lesson' })).toBeVisible();
});

test('an admin hands out a one-time reset link, then deletes the account after typing its email', async ({ browser }) => {
  const teacher = await signUp(browser, 'Mr Okoye');
  await teacher.page.getByLabel('Lesson title (optional)').fill('Kept a while');
  await teacher.page.getByRole('button', { name: 'Start lesson' }).click();
  await teacher.page.waitForURL(/\/r\/[A-Z2-9]{6}$/);

  // The shared server's admin (ADMIN_EMAILS): only this journey makes it, on a fresh server.
  const { page: admin } = await signUp(browser, 'District Admin', E2E_ADMIN_EMAIL);
  const row = admin.getByTestId('admin-teacher').filter({ hasText: teacher.email });
  await expect(row).toContainText('Active');
  await expect(row).toContainText('1');

  await row.getByRole('button', { name: 'Reset link' }).click();
  const link = await admin.getByLabel('Password reset link').inputValue();
  expect(link).toMatch(/\/teacher#reset=[A-Za-z0-9_-]{40,}$/);
  const elsewhere = await (await browser.newContext()).newPage();
  await elsewhere.goto(new URL(link).pathname + new URL(link).hash);
  await elsewhere.getByRole('textbox', { name: 'New password' }).fill('a brand new passphrase');
  await elsewhere.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(elsewhere.getByText('Signed in as')).toContainText('Mr Okoye');

  await row.getByRole('button', { name: 'Delete' }).click();
  const dialog = admin.getByRole('dialog', { name: 'Delete Mr Okoye’s account?' });
  await dialog.getByLabel(`Type ${teacher.email} to confirm`).fill('not.the.email@school.example');
  await dialog.getByRole('button', { name: 'Delete account' }).click();
  await expect(dialog.getByText('Type the account’s email exactly to confirm.')).toBeVisible();
  await dialog.getByLabel(`Type ${teacher.email} to confirm`).fill(teacher.email);
  await dialog.getByRole('button', { name: 'Delete account' }).click();
  await expect(admin.getByRole('status')).toContainText('account and 1 lesson are deleted');
  await expect(admin.getByTestId('admin-teacher').filter({ hasText: teacher.email })).toHaveCount(0);
  // The teacher's own page finds itself signed out.
  await elsewhere.reload();
  await expect(elsewhere.getByRole('region', { name: 'Sign in', exact: true })).toBeVisible();
});
