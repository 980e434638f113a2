import type { Page } from '@playwright/test';
import { startDrillServer, type DrillServer } from './drill/drillServer.ts';
import { expect, joinLesson, startLesson, test } from './support.ts';

/**
 * Issue 19 item 3, graceful overload, in the browser: a stroke whose answer is slow (held at the
 * server's door, as when the server is behind) shows "Syncing" instead of failing, and is saved
 * and seen by the teacher once the server answers. A server of its own: the hold is a test hook.
 */
let server: DrillServer;
test.beforeAll(async () => {
  server = await startDrillServer('pglite');
});
test.afterAll(async () => {
  await server?.stop();
});

async function holdInbound(sessionId: string, hold: boolean) {
  const response = await fetch(`${server.url}/__test/hold-inbound`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sessionId, hold }),
  });
  expect(response.ok).toBe(true);
}

async function sessionIdOf(page: Page, code: string): Promise<string> {
  const grant = await page.evaluate((key) => JSON.parse(sessionStorage.getItem(key) ?? 'null') as { sessionId: string } | null, `wb.session.${code}`);
  if (!grant) throw new Error('no session in the page');
  return grant.sessionId;
}

test('issue 19: a stroke the server is slow to answer shows Syncing, then is saved and seen once, without an error', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Rivera', server.url);
  const student = await joinLesson(browser, teacher.code, 'Ana', server.url);
  const sessionId = await sessionIdOf(student.page, teacher.code);

  await holdInbound(sessionId, true);
  await student.page.getByRole('toolbar', { name: 'Drawing tools' }).getByRole('button', { name: /^Pen/ }).click();
  const box = (await student.page.getByTestId('board').boundingBox())!;
  await student.page.mouse.move(box.x + 300, box.y + 200);
  await student.page.mouse.down();
  await student.page.mouse.move(box.x + 420, box.y + 280, { steps: 10 });
  await student.page.mouse.up();

  // Past a second without an answer the badge says the board is syncing, not that anything failed.
  await expect(student.page.getByTestId('syncing')).toContainText('Syncing 1');
  await expect(student.page.locator('[data-testid="element"][data-kind="pen"]')).toHaveCount(1);

  await holdInbound(sessionId, false);
  await expect(student.page.getByTestId('syncing')).toHaveCount(0);
  await expect(student.page.getByTestId('unsynced')).toHaveCount(0);
  await expect(teacher.page.locator('[data-testid="element"][data-kind="pen"]')).toHaveCount(1);
  await expect(student.page.locator('[data-testid="element"][data-kind="pen"]')).toHaveCount(1);
});
