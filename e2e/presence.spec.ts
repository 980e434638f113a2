import type { Page } from '@playwright/test';
import { E2E_SERVER_TIMINGS } from './serverTimings.ts';
import { cursorOf, expect, expectLive, joinLesson, rosterEntry, startLesson, test } from './support.ts';

const { LEASE_TTL_MS, SWEEP_INTERVAL_MS } = E2E_SERVER_TIMINGS;
/**
 * How long after its JS stops a frozen laptop may still show on another screen. Its last renewal
 * was at or before the freeze, so its lease ends within a term of it and the next sweep finds it:
 * term + sweep (4.25 s on the e2e server). DEPARTURE_SLACK_MS is for the expiry's way to the other
 * screen and its render, and the pause's own round trip: measured in the commit that set it.
 */
const DEPARTURE_SLACK_MS = 1_000;
const DEPARTURE_BOUND_MS = LEASE_TTL_MS + SWEEP_INTERVAL_MS + DEPARTURE_SLACK_MS;

/**
 * Counts the lease renewals the server accepted for this page alone: the acknowledgements of
 * `lease.renew` arriving on the page's own sockets (Socket.IO ack frames `43<id>[{...}]`). A
 * server-wide counter would also count every other page renewing on the shared server.
 */
function countAcceptedRenewals(page: Page): { readonly count: number } {
  const counter = { count: 0 };
  page.on('websocket', (ws) => {
    ws.on('framereceived', ({ payload }) => {
      const text = typeof payload === 'string' ? payload : payload.toString('utf8');
      if (/^43\d+\[\{.*"decision":"accepted"/.test(text)) counter.count++;
    });
  });
  return counter;
}

async function moveOverBoard(page: Page, x: number, y: number) {
  const box = (await page.getByTestId('board').boundingBox())!;
  await page.mouse.move(box.x + x, box.y + y);
}

test('a laptop lid (JS stopped, socket left open) vanishes from the other screen within term + sweep, then comes back', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Ms Okafor');
  const student = await joinLesson(browser, teacher.code, 'Ben');
  await moveOverBoard(student.page, 150, 150);
  await expect(cursorOf(teacher.page, 'Ben')).toBeVisible();
  await expect(rosterEntry(teacher.page, 'Ben')).toHaveAttribute('data-state', 'live');

  // Close the lid: the page's JS stops mid-flight, its socket stays open (not a clean close).
  const cdp = await student.page.context().newCDPSession(student.page);
  await cdp.send('Debugger.enable');
  const frozenAt = Date.now();
  await cdp.send('Debugger.pause');

  // Gone within term + sweep (+ delivery) of the freeze: each wait has only what is left of the bound.
  const left = () => Math.max(1, frozenAt + DEPARTURE_BOUND_MS - Date.now());
  await expect(cursorOf(teacher.page, 'Ben')).toHaveCount(0, { timeout: left() });
  await expect(rosterEntry(teacher.page, 'Ben')).toHaveAttribute('data-state', 'gone', { timeout: left() });
  console.log(`[presence] the frozen laptop was gone from the teacher's screen ${Date.now() - frozenAt} ms after the freeze (bound ${DEPARTURE_BOUND_MS} ms)`);

  // Open the lid: the student reconnects with its last revision and is live again, one roster entry.
  await cdp.send('Debugger.resume');
  await expectLive(student.page);
  await expect(rosterEntry(teacher.page, 'Ben')).toHaveAttribute('data-state', 'live', { timeout: 20_000 });
  await expect(rosterEntry(teacher.page, 'Ben')).toHaveCount(1);
  await moveOverBoard(student.page, 300, 200);
  await expect(cursorOf(teacher.page, 'Ben')).toBeVisible();
});

test('a tab whose timers never fire (harsher than a hidden tab\'s throttling) keeps its presence', async ({ browser }) => {
  const teacher = await startLesson(browser, 'Mr Lind');
  const context = await browser.newContext();
  const page = await context.newPage();
  const renewals = countAcceptedRenewals(page);
  // Fake the page's clock before the app loads, then stop it: no setTimeout or setInterval of the
  // page runs again, as in a background tab throttled to one wake-up a minute, or worse.
  await page.clock.install();
  await page.goto(`/r/${teacher.code}`);
  await page.getByLabel('Your name').fill('Hidden');
  await page.getByRole('button', { name: 'Join lesson' }).click();
  await expectLive(page);
  // Pause a little ahead of the page's own (fake) time: pausing in its past is refused. The fake
  // clock runs with real time until paused, so on a loaded machine the round trip can overtake a
  // small lead: read the page's time again and retry then.
  await expect(async () => {
    const pageNow = await page.evaluate(() => Date.now());
    await page.clock.pauseAt(new Date(pageNow + 3_000));
  }).toPass({ timeout: 20_000 });

  // Wait (on a condition, not a sleep) until this page alone has had three whole lease terms of
  // renewals accepted: about one a second, so 3 x 4 s is about 12.
  const start = renewals.count;
  await expect.poll(() => renewals.count, { timeout: 40_000, intervals: [500] }).toBeGreaterThan(start + 12);

  await expect(rosterEntry(teacher.page, 'Hidden')).toHaveAttribute('data-state', 'live');
  const departures = await teacher.page.evaluate(
    () => (window as unknown as { __wb?: { state(): { departures: unknown[] } } }).__wb?.state().departures ?? [],
  );
  expect(departures).toEqual([]);
});
