import type { Browser } from '@playwright/test';
import { expect, expectLive, rosterEntry, startLesson, test } from './support.ts';

/** A student opens the join link and asks to join; in a room with approval they land in the lobby. */
async function knock(browser: Browser, code: string, name: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`/r/${code}`);
  await expect(page.getByTestId('approval-note')).toBeVisible();
  await page.getByLabel('Your name').fill(name);
  await page.getByRole('button', { name: 'Join lesson' }).click();
  const waiting = page.getByTestId('waiting-page');
  await expect(waiting).toHaveAttribute('data-lobby', 'waiting');
  await expect(waiting.getByRole('heading')).toHaveText('Waiting for the teacher to let you in');
  await expect(waiting).toContainText(`You are joining as ${name}`);
  return { page };
}

test('lobby: with approval on, students wait; the teacher admits one (who lands on the board), denies another (who is told), and a leaver drops off the list', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera');
  const lobby = teacher.page.getByTestId('lobby-panel');
  const approval = lobby.getByLabel('Students wait until I let them in');
  await expect(approval).not.toBeChecked();
  await approval.click();
  await expect(approval).toBeChecked();
  await expect(lobby).toContainText('Nobody is waiting.');

  // L1: Ana waits; the teacher sees her live in the waiting list, not in the roster of the lesson.
  const ana = await knock(browser, teacher.code, 'Ana');
  const anaEntry = lobby.getByTestId('lobby-entry').filter({ hasText: 'Ana' });
  await expect(anaEntry).toBeVisible();
  await expect(teacher.page.getByTestId('lobby-badge')).toHaveText('1 waiting');
  await expect(rosterEntry(teacher.page, 'Ana')).toHaveCount(0);
  await expect(ana.page.getByTestId('board')).toHaveCount(0);

  // L2: admitted, she enters on her own, on the board, live; both screens list her as here.
  await anaEntry.getByRole('button', { name: 'Admit Ana' }).click();
  await expectLive(ana.page);
  await expect(ana.page.getByTestId('board')).toBeVisible();
  await expect(rosterEntry(teacher.page, 'Ana')).toHaveAttribute('data-state', 'live');
  await expect(rosterEntry(ana.page, 'Ana')).toHaveAttribute('data-state', 'live');
  await expect(lobby.getByTestId('lobby-entry')).toHaveCount(0);
  // A reload keeps her in: admitted is for good.
  await ana.page.reload();
  await expectLive(ana.page);

  // L3: Bo is declined and told so; the lobby keeps him as declined, the roster never had him.
  const bo = await knock(browser, teacher.code, 'Bo');
  await lobby.getByTestId('lobby-entry').filter({ hasText: 'Bo' }).getByRole('button', { name: 'Deny Bo' }).click();
  const boPage = bo.page.getByTestId('waiting-page');
  await expect(boPage).toHaveAttribute('data-lobby', 'denied');
  await expect(boPage.getByRole('heading')).toHaveText('The teacher declined');
  await expect(boPage).toContainText('did not let Bo into this lesson');
  await expect(lobby.getByTestId('lobby-declined').filter({ hasText: 'Bo' })).toHaveCount(1);
  await expect(rosterEntry(teacher.page, 'Bo')).toHaveCount(0);
  await expect(rosterEntry(ana.page, 'Bo')).toHaveCount(0);

  // L7: Cy gives up waiting: the teacher's list drops him.
  const cy = await knock(browser, teacher.code, 'Cy');
  await expect(lobby.getByTestId('lobby-entry').filter({ hasText: 'Cy' })).toBeVisible();
  await cy.page.getByRole('button', { name: 'Leave' }).click();
  await cy.page.waitForURL(/\/$/);
  await expect(lobby.getByTestId('lobby-entry')).toHaveCount(0);

  // L4: approval off admits nobody implicitly, but new students come straight in.
  const dee = await knock(browser, teacher.code, 'Dee');
  await approval.click();
  await expect(approval).not.toBeChecked();
  await expect(lobby.getByTestId('lobby-entry').filter({ hasText: 'Dee' })).toBeVisible();
  await expect(dee.page.getByTestId('waiting-page')).toHaveAttribute('data-lobby', 'waiting');
  const context = await browser.newContext();
  const eve = await context.newPage();
  await eve.goto(`/r/${teacher.code}`);
  await eve.getByLabel('Your name').fill('Eve');
  await eve.getByRole('button', { name: 'Join lesson' }).click();
  await expectLive(eve);
  await lobby.getByTestId('lobby-entry').filter({ hasText: 'Dee' }).getByRole('button', { name: 'Admit Dee' }).click();
  await expectLive(dee.page);
});
