/**
 * Cached reload: a student's page reloaded with the app shell in the service worker's cache and
 * the board kept in IndexedDB, timed from the navigation's start to the board "live" (the
 * connection state the page shows; the server's sync applied) and to the first frame with the
 * board's state in the page (from this device, before the sync, when the board was kept). Beside it,
 * the same reload with service workers blocked (the shell from the network: what a plain-HTTP
 * school address gets). Not a test (nothing asserts): the figure for BENCHMARKS.md ("Cached
 * reload"). Median of RUNS reloads after one warm-up reload each.
 *
 *   pnpm build
 *   node --import tsx bench/cachedReload.ts     # PORT=3315 RUNS=9 ELEMENTS=500 (or BASE_URL=… for a server already running)
 *
 * It starts the server compiled as the browser suite's (scripts/test-server.mjs) on a fresh PGlite
 * at http://localhost:PORT: a secure context, so the service worker may run (a school serving the
 * app over HTTPS). Everything runs on this machine (server, seeding socket, full Chromium).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import type { ElementShape } from '@wb/protocol';
import { connectMember, createElements, startRoom } from '../e2e/roomSeed.ts';

const PORT = Number(process.env.PORT ?? 3315);
const BASE = process.env.BASE_URL ?? `http://localhost:${PORT}`;
const RUNS = Number(process.env.RUNS ?? 9);
const ELEMENTS = Number(process.env.ELEMENTS ?? 500);
/** Full Chromium (what a person's browser does), as the render benchmark uses. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const repoRoot = resolve(import.meta.dirname, '..');
const load1 = () => loadavg()[0]!.toFixed(2);

function shapeFor(i: number): ElementShape {
  const x = (i % 25) * 40 - 500;
  const y = Math.floor(i / 25) * 30 - 300;
  return i % 2 === 0
    ? { kind: 'rect', x, y, w: 30, h: 20, stroke: '#1971c2', fill: 'transparent', strokeWidth: 2 }
    : { kind: 'pen', x, y, points: Array.from({ length: 40 }, (_, k) => [k * 0.7, Math.sin(k / 5) * 8, 0.5] as [number, number, number]), stroke: '#2f9e44', strokeWidth: 3 };
}

async function startServer(): Promise<{ stop(): Promise<void> } | null> {
  if (process.env.BASE_URL) return null;
  const dir = mkdtempSync(join(tmpdir(), 'wb-cached-reload-'));
  const child: ChildProcess = spawn(process.execPath, ['scripts/test-server.mjs'], {
    cwd: repoRoot,
    env: { ...process.env, PORT: String(PORT), HOST: '127.0.0.1', PGLITE_DIR: join(dir, 'pglite'), WB_PGLITE_TEMPLATE_DISK: 'on', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 240; i++) {
    const ready = await fetch(`http://127.0.0.1:${PORT}/readyz`).then((r) => r.ok, () => false);
    if (ready) break;
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Records, in the page, when the board first shows elements and when the connection is live,
 * as milliseconds from the navigation's start (performance.now()), checked every frame.
 */
// A string, not a function: tsx's transform would name the inner functions with a helper the page lacks.
const MARKS = `(() => {
  const marks = {};
  window.__reloadMarks = marks;
  const check = () => {
    // The board's state is in the page (kept on this device, or synced): drawn in this frame.
    if (marks.board === undefined && window.__wb && window.__wb.state().revision !== null) marks.board = performance.now();
    if (marks.live === undefined && document.querySelector('[data-testid="connection-status"][data-state="live"]')) marks.live = performance.now();
    if (marks.board === undefined || marks.live === undefined) requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
})();`;

async function studentPage(browser: Browser, code: string, serviceWorkers: 'allow' | 'block'): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers });
  const page = await context.newPage();
  await page.addInitScript({ content: MARKS });
  await page.goto(`${BASE}/r/${code}`);
  await page.getByLabel('Your name').fill(`Reader ${serviceWorkers}`);
  await page.getByRole('button', { name: 'Join lesson' }).click();
  await page.locator('[data-testid="connection-status"][data-state="live"]').waitFor();
  if (serviceWorkers === 'allow') await page.waitForFunction(() => (globalThis as unknown as { navigator: { serviceWorker: { controller: unknown } } }).navigator.serviceWorker.controller !== null, undefined, { timeout: 60_000 });
  // The board kept on this device is written a moment after the sync (offline/boardPicture.ts).
  await page.waitForTimeout(2_500);
  return page;
}

async function reloadTimes(page: Page): Promise<{ board: number; live: number }> {
  await page.reload();
  // Functions (the page's CSP refuses strings to eval), reading the page's global through
  // `globalThis`: this program has Node's types, not the page's.
  const marks = () => (globalThis as unknown as { __reloadMarks?: { board?: number; live?: number } }).__reloadMarks;
  await page.waitForFunction(() => {
    const m = (globalThis as unknown as { __reloadMarks?: { board?: number; live?: number } }).__reloadMarks;
    return m?.board !== undefined && m.live !== undefined;
  }, undefined, { timeout: 30_000 });
  return (await page.evaluate(marks)) as { board: number; live: number };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

const server = await startServer();
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
try {
  const grant = await startRoom(`http://127.0.0.1:${PORT}`, 'Bench teacher');
  const teacher = await connectMember(`http://127.0.0.1:${PORT}`, grant);
  await createElements([teacher], Array.from({ length: ELEMENTS }, (_, i) => shapeFor(i)));
  const result: Record<string, { board: number[]; live: number[] }> = {};
  for (const mode of ['allow', 'block'] as const) {
    const page = await studentPage(browser, grant.room.code, mode);
    await reloadTimes(page); // warm-up: a warm laptop has reloaded before
    const runs = { board: [] as number[], live: [] as number[] };
    for (let i = 0; i < RUNS; i++) {
      const t = await reloadTimes(page);
      runs.board.push(Math.round(t.board));
      runs.live.push(Math.round(t.live));
    }
    result[mode === 'allow' ? 'cached' : 'network'] = runs;
    await page.context().close();
  }
  teacher.disconnect();
  for (const [mode, runs] of Object.entries(result)) {
    console.log(
      `${mode.padEnd(8)} board shown: median ${median(runs.board)} ms (${runs.board.join(', ')}); live: median ${median(runs.live)} ms (${runs.live.join(', ')})`,
    );
  }
  console.log(`elements ${ELEMENTS}, runs ${RUNS}, load ${load1()}, ${new Date().toISOString()}`);
} finally {
  await browser.close();
  await server?.stop();
}
