/**
 * The release drill (DESIGN.md "Release drill"): three real browser sessions against a real server
 * process, on real Postgres and on the embedded default. A teacher, student A who keeps renewing,
 * and student B whose laptop lid closes (page JS stopped, socket left open).
 *
 * Every step asserts what a person sees and what the server recorded; waits are on conditions.
 * On failure, each step's screenshots and every page's trace are kept in e2e/artifacts/drill-*.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, CDPSession, Page } from '@playwright/test';
import { DRILL_TIMINGS, postgresSkipReason, startDrillServer, type DrillDatabase, type DrillServer } from './drill/drillServer.ts';
import { cursorOf, expect, expectLive, joinLesson, rosterEntry, startLesson, test } from './support.ts';

interface Screen {
  name: string;
  page: Page;
  context: BrowserContext;
  sessionId: string;
  userId: string;
  token: string;
}

interface DebugElement {
  id: string;
  x: number;
  y: number;
  version: number;
  lockedBy: string | null;
}

interface DebugHook {
  boardHash(): string | null;
  roster(): { userId: string; state: string }[];
  stats(): { resyncs: number; ignoredDuplicate: number; ignoredPassed: number };
  elements(): DebugElement[];
  state(): { revision: number | null };
}

type WithHook = { __wb?: DebugHook };

const hash = (s: Screen) => s.page.evaluate(() => (window as unknown as WithHook).__wb?.boardHash() ?? null);
const stats = (s: Screen) =>
  s.page.evaluate(() => (window as unknown as WithHook).__wb?.stats() ?? { resyncs: 0, ignoredDuplicate: 0, ignoredPassed: 0 });
const roster = (s: Screen) =>
  s.page.evaluate(() =>
    ((window as unknown as WithHook).__wb?.roster() ?? [])
      .map((r) => `${r.userId}:${r.state}`)
      .sort()
      .join(','),
  );
const elements = (s: Screen) => s.page.evaluate(() => (window as unknown as WithHook).__wb?.elements() ?? []);

async function screenOf(name: string, page: Page, code: string): Promise<Screen> {
  const grant = await page.evaluate((key) => JSON.parse(sessionStorage.getItem(key) ?? 'null'), `wb.session.${code}`);
  if (!grant) throw new Error(`${name} holds no session`);
  return { name, page, context: page.context(), sessionId: grant.sessionId, userId: grant.userId, token: grant.token };
}

async function boardBox(s: Screen) {
  const box = await s.page.getByTestId('board').boundingBox();
  if (!box) throw new Error('no board');
  return box;
}

/** Board-relative mouse helpers (page pixels from the board's top-left corner). */
async function moveTo(s: Screen, x: number, y: number, steps = 1) {
  const box = await boardBox(s);
  await s.page.mouse.move(box.x + x, box.y + y, { steps });
}

async function drawRect(s: Screen, x: number, y: number, w: number, h: number) {
  await s.page.getByRole('button', { name: 'Rectangle (R)' }).click();
  await moveTo(s, x, y);
  await s.page.mouse.down();
  await moveTo(s, x + w, y + h, 5);
  await s.page.mouse.up();
  await s.page.getByRole('button', { name: 'Select and move (V)' }).click();
}

const lockOutline = (s: Screen, elementId: string) =>
  s.page.locator(`[data-testid="lock-outline"][data-element-id="${elementId}"]`);

async function post(server: DrillServer, path: string, body: unknown, token?: string) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function attendance(server: DrillServer, code: string, teacher: Screen) {
  const response = await fetch(`${server.url}/api/rooms/${code}/attendance`, {
    headers: { authorization: `Bearer ${teacher.token}` },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { facts: { eventId: string; userId: string; sessionId: string; kind: string }[] }).facts;
}

// The drill keeps its own traces, outside Playwright's output folder (cleared on every run).
test.use({ trace: 'off' });

const databases: DrillDatabase[] = ['postgres', 'pglite'];

for (const database of databases) {
  const skip = database === 'postgres' ? postgresSkipReason() : null;

  test.describe(`release drill on ${database}`, () => {
    test.skip(skip !== null, skip ?? '');
    test.describe.configure({ timeout: 240_000 });

    let server: DrillServer;
    test.beforeAll(async () => {
      // A first start of an embedded database takes seconds on a quiet machine, far more on a busy one.
      test.setTimeout(180_000);
      server = await startDrillServer(database);
    });
    test.afterAll(async () => {
      await server?.stop();
    });

    test('teacher, a renewing student and a closed lid converge on one board', async ({ browser }, testInfo) => {
      const artifacts = join('e2e', 'artifacts', `drill-${database}-${Date.now()}`);
      mkdirSync(artifacts, { recursive: true });
      const screens: Screen[] = [];
      let stepNo = 0;
      const step = async (title: string, body: () => Promise<void>) =>
        test.step(title, async () => {
          stepNo++;
          try {
            await body();
          } finally {
            for (const s of screens) {
              await s.page
                .screenshot({ path: join(artifacts, `${String(stepNo).padStart(2, "0")}-${s.name}.png`), timeout: 3_000 })
                .catch(() => {});
            }
          }
        });

      const contexts: BrowserContext[] = [];
      const trace = async (context: BrowserContext) => {
        contexts.push(context);
        await context.tracing.start({ screenshots: true, snapshots: true });
      };

      try {
        await runDrill(browser, server, screens, step, trace);
        // Passed: nothing to keep.
        for (const context of contexts) await context.tracing.stop().catch(() => {});
        rmSync(artifacts, { recursive: true, force: true });
      } catch (error) {
        for (const [i, context] of contexts.entries()) {
          await context.tracing.stop({ path: join(artifacts, `trace-${screens[i]?.name ?? i}.zip`) }).catch(() => {});
        }
        testInfo.annotations.push({ type: 'artifacts', description: artifacts });
        throw error;
      }
    });
  });
}

async function runDrill(
  browser: Browser,
  server: DrillServer,
  screens: Screen[],
  step: (title: string, body: () => Promise<void>) => Promise<void>,
  trace: (context: BrowserContext) => Promise<void>,
) {
  let code = '';
  let teacher!: Screen;
  let a!: Screen;
  let b!: Screen;
  let e1 = '';
  let e2 = '';
  let cdp!: CDPSession;

  await step('three sessions join; the teacher draws two elements everyone sees', async () => {
    const t = await startLesson(browser, 'Ms Teacher', server.url);
    code = t.code;
    await trace(t.page.context());
    teacher = await screenOf('teacher', t.page, code);
    screens.push(teacher);
    const ana = await joinLesson(browser, code, 'Ana', server.url);
    await trace(ana.page.context());
    a = await screenOf('a', ana.page, code);
    screens.push(a);
    const ben = await joinLesson(browser, code, 'Ben', server.url);
    await trace(ben.page.context());
    b = await screenOf('b', ben.page, code);
    screens.push(b);

    await drawRect(teacher, 120, 120, 120, 80);
    await drawRect(teacher, 420, 120, 120, 80);
    for (const s of screens) await expect(s.page.getByTestId('element')).toHaveCount(2);
    const els = (await elements(teacher)).sort((x, y) => x.x - y.x);
    e1 = els[0]!.id;
    e2 = els[1]!.id;
    await expect.poll(() => hash(a)).toBe(await hash(teacher));
    await expect.poll(() => hash(b)).toBe(await hash(teacher));
  });

  await step('1. all three see each other\'s cursors; A and B drag elements under locks', async () => {
    await moveTo(teacher, 600, 400);
    await moveTo(a, 650, 420);
    await moveTo(b, 700, 440);
    for (const [viewer, others] of [
      [teacher, ['Ana', 'Ben']],
      [a, ['Ms Teacher', 'Ben']],
      [b, ['Ms Teacher', 'Ana']],
    ] as const) {
      for (const name of others) await expect(cursorOf(viewer.page, name)).toBeVisible();
    }
    // A drags E1 (pressing its border: an unfilled shape is hit on its stroke) and lets go: the
    // teacher sees it held by A, then at its new place.
    await moveTo(a, 180, 120);
    await a.page.mouse.down();
    await moveTo(a, 200, 200, 4);
    await expect(lockOutline(teacher, e1)).toHaveAttribute('data-user-id', a.userId);
    await moveTo(a, 220, 240, 4);
    await a.page.mouse.up();
    await expect(lockOutline(teacher, e1)).toHaveCount(0);
    await expect.poll(async () => (await elements(teacher)).find((e) => e.id === e1)?.version).toBeGreaterThan(1);
    // B starts dragging E2 and keeps the button down.
    await moveTo(b, 480, 120);
    await b.page.mouse.down();
    await moveTo(b, 500, 200, 4);
    await expect(lockOutline(teacher, e2)).toHaveAttribute('data-user-id', b.userId);
    await expect(lockOutline(a, e2)).toHaveAttribute('data-user-id', b.userId);
  });

  await step('2. B\'s lid closes mid-drag: cursor gone everywhere, lock released, roster says gone, one lease_expired', async () => {
    cdp = await b.context.newCDPSession(b.page);
    await cdp.send('Debugger.enable');
    await cdp.send('Debugger.pause');
    const within = { timeout: DRILL_TIMINGS.LEASE_TTL_MS + DRILL_TIMINGS.SWEEP_INTERVAL_MS + 10_000 };
    for (const viewer of [teacher, a]) {
      await expect(cursorOf(viewer.page, 'Ben')).toHaveCount(0, within);
      await expect(lockOutline(viewer, e2)).toHaveCount(0, within);
      await expect(rosterEntry(viewer.page, 'Ben')).toHaveAttribute('data-state', 'gone', within);
    }
    const facts = await attendance(server, code, teacher);
    expect(facts.filter((f) => f.sessionId === b.sessionId && f.kind === 'lease_expired')).toHaveLength(1);
    // A can now take E2: the lock went with B's presence (B's uncommitted drag left it in place).
    await moveTo(a, 480, 120);
    await a.page.mouse.down();
    await moveTo(a, 470, 150, 3);
    await expect(lockOutline(teacher, e2)).toHaveAttribute('data-user-id', a.userId);
    await a.page.mouse.up();
    await expect(lockOutline(teacher, e2)).toHaveCount(0);
  });

  await step('3. the expiry delivered a second time changes nothing on any screen; the membership remains', async () => {
    const facts = await attendance(server, code, teacher);
    const expiry = facts.find((f) => f.sessionId === b.sessionId && f.kind === 'lease_expired')!;
    const before = await Promise.all([teacher, a].map(async (s) => ({ hash: await hash(s), roster: await roster(s), stats: await stats(s) })));
    const redelivered = await post(server, '/__test/redeliver', { eventId: expiry.eventId });
    expect(redelivered.status).toBe(200);
    for (const [i, s] of [teacher, a].entries()) {
      await expect.poll(async () => {
        const now = await stats(s);
        return now.ignoredDuplicate + now.ignoredPassed;
      }).toBeGreaterThan(before[i]!.stats.ignoredDuplicate + before[i]!.stats.ignoredPassed);
      expect(await hash(s)).toBe(before[i]!.hash);
      expect(await roster(s)).toBe(before[i]!.roster);
      await expect(rosterEntry(s.page, 'Ben')).toHaveAttribute('data-state', 'gone');
    }
  });

  await step('4. a revision gap forced on A: A detects it, resyncs once, and its board equals the teacher\'s', async () => {
    const before = await stats(a);
    await post(server, '/__test/withhold', { sessionId: a.sessionId, count: 1 });
    await drawRect(teacher, 120, 320, 100, 60);
    await expect(teacher.page.getByTestId('element')).toHaveCount(3);
    await expect.poll(async () => (await stats(a)).resyncs, { timeout: 20_000 }).toBe(before.resyncs + 1);
    await expect.poll(() => hash(a), { timeout: 20_000 }).toBe(await hash(teacher));
    await expect(a.page.getByTestId('element')).toHaveCount(3);
  });

  await step('5. the teacher revokes A while A\'s cursor packet and drag move are in flight: rejected, A is removed', async () => {
    const e1Before = (await elements(teacher)).find((e) => e.id === e1)!;
    await post(server, '/__test/hold-inbound', { sessionId: a.sessionId, hold: true });
    await moveTo(a, 300, 300, 3);
    await moveTo(a, 220, 240);
    await a.page.mouse.down();
    await moveTo(a, 150, 400, 3);
    await expect
      .poll(async () => Number((await post(server, '/__test/hold-inbound', { sessionId: a.sessionId, hold: true })).body.held))
      .toBeGreaterThanOrEqual(2);
    const revoked = await post(server, `/api/rooms/${code}/members/${a.userId}/revoke`, { reason: 'drill' }, teacher.token);
    expect(revoked.status).toBe(200);
    await post(server, '/__test/hold-inbound', { sessionId: a.sessionId, hold: false });
    await a.page.mouse.up();

    await expect(cursorOf(teacher.page, 'Ana')).toHaveCount(0);
    await expect(rosterEntry(teacher.page, 'Ana')).toHaveAttribute('data-state', 'removed');
    await expect(a.page.getByTestId('connection-status')).toHaveAttribute('data-state', 'refused');
    await expect(a.page.getByRole('dialog')).toContainText(/removed/i);
    // Nothing A sent after the revocation moved anything.
    const e1After = (await elements(teacher)).find((e) => e.id === e1)!;
    expect({ x: e1After.x, y: e1After.y, version: e1After.version }).toEqual({ x: e1Before.x, y: e1Before.y, version: e1Before.version });
    const facts = await attendance(server, code, teacher);
    expect(facts.filter((f) => f.userId === a.userId && f.kind === 'membership_revoked')).toHaveLength(1);
  });

  await step('6. B\'s lid opens: B reconnects from its last revision and converges on the teacher\'s board', async () => {
    await cdp.send('Debugger.resume');
    await b.page.mouse.up();
    await expectLive(b.page);
    await expect.poll(() => hash(b), { timeout: 30_000 }).toBe(await hash(teacher));
    await expect(rosterEntry(teacher.page, 'Ben')).toHaveAttribute('data-state', 'live', { timeout: 20_000 });
  });

  await step('7. end state: identical board hashes, agreeing rosters, exactly the expected attendance', async () => {
    const teacherHash = await hash(teacher);
    expect(teacherHash).not.toBeNull();
    await expect.poll(() => hash(b)).toBe(teacherHash);
    await expect.poll(() => roster(b)).toBe(await roster(teacher));
    const facts = await attendance(server, code, teacher);
    const kindsOf = (s: Screen) => facts.filter((f) => f.userId === s.userId).map((f) => f.kind);
    expect(kindsOf(teacher)).toEqual(['joined']);
    expect(kindsOf(a)).toEqual(['joined', 'membership_revoked']);
    expect(kindsOf(b)).toEqual(['joined', 'lease_expired', 'reconnected']);
  });
}
