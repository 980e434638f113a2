import type { BrowserContext, Page } from '@playwright/test';
import { elementsOf, hashOf } from './boardHook.ts';
import { E2E_PORT } from './origins.ts';
import { expect, expectLive, joinLesson, startLesson, test } from './support.ts';

/**
 * Offline work that survives a reload (docs/guide.md, "When the network drops"): a student's
 * unsynced strokes are kept in IndexedDB as they are made and sent once the network is back, each
 * exactly once, across a reload made while the lesson server could not be reached.
 *
 * Two origins, because what a reload without network can do depends on the origin:
 * - the classroom's (plain HTTP at a school address, e2e/origins.ts): no service worker may run,
 *   so the page itself needs the network to reload. The test reloads with the network back for the
 *   page but the lesson's socket still blocked, and the edits must come back from the device;
 * - http://localhost, a secure context, where the service worker is allowed: the one legitimate
 *   use of localhost in this suite, standing for a school that serves the app over HTTPS. There
 *   the reload is made fully offline and the page opens from the cache.
 */

async function drag(page: Page, from: [number, number], to: [number, number], steps = 12) {
  const box = (await page.getByTestId('board').boundingBox())!;
  await page.mouse.move(box.x + from[0], box.y + from[1]);
  await page.mouse.down();
  await page.mouse.move(box.x + to[0], box.y + to[1], { steps });
  await page.mouse.up();
}

async function pickTool(page: Page, name: RegExp) {
  await page.getByRole('toolbar', { name: 'Drawing tools' }).getByRole('button', { name }).click();
}

const pensOf = async (page: Page) => (await elementsOf(page)).filter((e) => e.kind === 'pen').length;

/**
 * The lesson's socket cannot be opened while the page itself loads: the lesson server is
 * unreachable, the school's web server is not. Polling requests fail as on a dropped network; a
 * WebSocket is left unanswered, as a server behind a dead route leaves it, until Socket.IO's
 * connect timeout (20 s) gives up on it. Returns the way to let the socket through again.
 */
async function blockLessonSocket(context: BrowserContext): Promise<() => Promise<void>> {
  let blocked = true;
  await context.route('**/socket.io/**', (route) => (blocked ? route.abort('internetdisconnected') : route.fallback()));
  await context.routeWebSocket(/\/socket\.io\//, (ws) => {
    if (!blocked) ws.connectToServer();
  });
  return async () => {
    blocked = false;
    await context.unroute('**/socket.io/**');
  };
}

/** N unsynced strokes, each kept on this device (written to IndexedDB). */
async function expectKept(page: Page, count: number) {
  const badge = page.getByTestId('unsynced');
  await expect(badge).toContainText(`${count} unsynced`);
  await expect(badge).toHaveAttribute('data-kept', 'device');
}

/** After the network is back: every stroke reached the teacher, once, and the two boards agree. */
async function expectEachStrokeOnce(teacher: Page, student: Page, strokes: number) {
  await expectLive(student);
  await expect(student.getByTestId('unsynced')).toHaveCount(0);
  await expect.poll(() => pensOf(teacher)).toBe(strokes);
  // A barrier: the teacher's next edit reaches the student after anything the student sent
  // before it (one ordered event stream per room), so a late duplicate would show by now.
  await pickTool(teacher, /^Rectangle/);
  await drag(teacher, [600, 200], [700, 280], 6);
  await expect.poll(async () => (await elementsOf(student)).filter((e) => e.kind === 'rect').length).toBe(1);
  await expect.poll(async () => (await hashOf(teacher)) === (await hashOf(student)) && (await hashOf(teacher)) !== null).toBe(true);
  expect(await pensOf(teacher)).toBe(strokes);
  expect(await pensOf(student)).toBe(strokes);
}

test('offline on the classroom origin: strokes kept across a reload are sent once the socket is back; the page says a reload needs the network', async ({ browser }) => {
  // Two of Socket.IO's 20 s connect timeouts (a blocked attempt ends only there) on a loaded machine.
  test.setTimeout(180_000);
  const teacher = await startLesson(browser, 'Ms Rivera');
  const student = await joinLesson(browser, teacher.code, 'Ana');
  const page = student.page;
  const context = page.context();

  // The network drops: the socket closes, and cannot come back while the lesson server is unreachable.
  const unblockLessonSocket = await blockLessonSocket(context);
  await context.setOffline(true);
  await expect(page.getByTestId('connection-status')).not.toHaveAttribute('data-state', 'live');
  await expect(page.getByTestId('offline-note')).toHaveAttribute('data-shell', 'network');
  await expect(page.getByTestId('offline-note')).toContainText('Reloading this page needs the network');
  await pickTool(page, /^Pen/);
  await drag(page, [300, 200], [460, 300]);
  await expectKept(page, 1);

  // No service worker may run here, so the page needs the network to reload: it is back for the
  // page, not for the lesson's socket. The stroke comes back from this device, unsent.
  await context.setOffline(false);
  await page.reload();
  await expect(page.getByTestId('board-notice')).toContainText('1 change made before the page reloaded was kept on this device');
  await expectKept(page, 1);
  await expect(page.locator('[data-testid="element"][data-kind="pen"]')).toHaveCount(1);
  await expect(page.getByTestId('offline-note')).toHaveAttribute('data-shell', 'network');
  await pickTool(page, /^Pen/);
  await drag(page, [320, 360], [480, 420]);
  await expectKept(page, 2);
  expect(await pensOf(teacher.page)).toBe(0);

  await unblockLessonSocket();
  // The attempt left hanging ends at Socket.IO's connect timeout (20 s); the next one connects.
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'live', { timeout: 40_000 });
  await expectEachStrokeOnce(teacher.page, page, 2);

  // Nothing is kept any more: another reload sends nothing again.
  await page.reload();
  await expectLive(page);
  await expect(page.getByTestId('unsynced')).toHaveCount(0);
  await expect.poll(() => pensOf(page)).toBe(2);
  expect(await pensOf(teacher.page)).toBe(2);
});

test('offline where a service worker may run (localhost, a secure context): the reload opens from the cache, with the board and the kept strokes', async ({ browser }) => {
  test.setTimeout(120_000);
  const teacher = await startLesson(browser, 'Ms Rivera');
  // http://localhost is a secure context: it stands for a school serving the app over HTTPS.
  const secure = `http://localhost:${E2E_PORT}`;
  const student = await joinLesson(browser, teacher.code, 'Ana', secure);
  const page = student.page;
  const context = page.context();
  expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
  // The teacher's rectangle is on the board before the drop: the reload must still show it.
  await pickTool(teacher.page, /^Rectangle/);
  await drag(teacher.page, [560, 460], [660, 540], 6);
  await expect.poll(async () => (await elementsOf(page)).filter((e) => e.kind === 'rect').length).toBe(1);
  // The app shell is cached once the service worker controls the page (its install precached it).
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null), { timeout: 30_000 }).toBe(true);

  await context.setOffline(true);
  await expect(page.getByTestId('offline-note')).toHaveAttribute('data-shell', 'cached');
  await pickTool(page, /^Pen/);
  await drag(page, [300, 200], [460, 300]);
  await expectKept(page, 1);

  await page.reload(); // fully offline: the service worker answers
  await expect(page.getByTestId('board-notice')).toContainText('1 change made before the page reloaded was kept on this device');
  await expectKept(page, 1);
  await expect(page.locator('[data-testid="element"][data-kind="pen"]')).toHaveCount(1);
  await expect(page.locator('[data-testid="element"][data-kind="rect"]')).toHaveCount(1);
  await expect(page.getByTestId('offline-note')).toHaveAttribute('data-shell', 'cached');
  await pickTool(page, /^Pen/);
  await drag(page, [320, 360], [480, 420]);
  await expectKept(page, 2);
  expect(await pensOf(teacher.page)).toBe(0);

  await context.setOffline(false);
  await expectLive(page);
  await expect(page.getByTestId('unsynced')).toHaveCount(0);
  await expect.poll(() => pensOf(teacher.page)).toBe(2);
  await expect.poll(async () => (await hashOf(teacher.page)) === (await hashOf(page)) && (await hashOf(page)) !== null).toBe(true);
  expect(await pensOf(page)).toBe(2);
});
