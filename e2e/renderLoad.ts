/**
 * Render load: a student's board with 2,000 elements while 30 other people move their cursors,
 * measured as frame intervals in headless Chromium, idle and while panning. Not a test (nothing
 * asserts): a measurement for BENCHMARKS.md ("Web rendering").
 *
 *   pnpm build
 *   PORT=3313 PGLITE_DIR=$(mktemp -d)/pglite node --import tsx apps/server/src/main.ts &
 *   node --import tsx e2e/renderLoad.ts          # BASE_URL=http://127.0.0.1:3313 ELEMENTS=2000 CURSORS=30
 *
 * TRACE_DIR=/some/dir also writes a Chromium performance trace of each phase there (open it in
 * DevTools' Performance panel) to see what a long frame spent its time on.
 *
 * Everything runs on one machine (server, 30 cursor sockets, the browser), so the numbers are an
 * upper bound on a classroom laptop's frame times, not a typical one.
 */
import { createRequire } from 'node:module';
import { randomBytes, randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import type { ElementShape, SessionGrant } from '@wb/protocol';

// socket.io-client is the web app's dependency; borrow it rather than add a second copy here.
const requireFromWeb = createRequire(new URL('../apps/web/package.json', import.meta.url));
// A minimal local view of the client: the module resolves from apps/web, not from e2e's types.
interface LoadSocket {
  on(event: string, listener: (arg: { revision: number }) => void): void;
  once(event: string, listener: (arg: unknown) => void): void;
  emit(event: string, payload: unknown, ack: () => void): void;
  emitWithAck(event: string, payload: unknown): Promise<unknown>;
  volatile: { emit(event: string, payload: unknown): void };
  disconnect(): void;
}
const { io } = requireFromWeb('socket.io-client') as { io: (url: string, options: Record<string, unknown>) => LoadSocket };

const BASE = process.env.BASE_URL ?? 'http://127.0.0.1:3313';
const ELEMENTS = Number(process.env.ELEMENTS ?? 2_000);
const CURSORS = Number(process.env.CURSORS ?? 30);
/** Under the server's per-socket budget (90 events/s): creates are acknowledged requests. */
const CREATES_PER_SECOND = 80;
const SAMPLE_MS = 5_000;
const TRACE_DIR = process.env.TRACE_DIR;
/** The 1-minute load average: the machine is shared, so every figure carries it. */
const load1 = () => loadavg()[0]!.toFixed(2);

const memberKey = () => randomBytes(24).toString('base64url');

async function post<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(`${BASE}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

function connect(grant: SessionGrant) {
  const socket = io(BASE, { path: '/socket.io', transports: ['websocket'], auth: { token: grant.token, protocol: 1 }, forceNew: true });
  // Renew from the prompt, as the app does, or the lease lapses mid-measurement.
  socket.on('lease.due', (due: { revision: number }) => socket.emit('lease.renew', { revision: due.revision + 1, requestId: randomBytes(12).toString('base64url') }, () => undefined));
  return new Promise<LoadSocket>((resolve, reject) => {
    socket.once('sync', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

function shapeFor(i: number): ElementShape {
  const x = (i % 50) * 60 - 1_200;
  const y = Math.floor(i / 50) * 50 - 800;
  const stroke = '#1971c2';
  switch (i % 6) {
    case 0:
      return { kind: 'rect', x, y, w: 40, h: 30, stroke, fill: 'transparent', strokeWidth: 2 };
    case 1:
      return { kind: 'ellipse', x, y, w: 40, h: 30, stroke, fill: '#d0ebff', strokeWidth: 2 };
    case 2:
      return { kind: 'arrow', x, y, dx: 40, dy: 25, stroke, strokeWidth: 2 };
    case 3:
      return { kind: 'pen', x, y, points: Array.from({ length: 60 }, (_, k) => [k * 0.7, Math.sin(k / 5) * 10, 0.5] as [number, number, number]), stroke, strokeWidth: 3 };
    case 4:
      return { kind: 'text', x, y, w: 50, h: 30, text: `n${i}`, stroke, fontSize: 14 };
    default:
      return { kind: 'sticky', x, y, w: 45, h: 40, text: `note ${i}`, fill: '#fff3a8' };
  }
}

async function main() {
  const teacher = await post<SessionGrant>('/api/rooms', { teacherName: 'Load teacher', memberKey: memberKey() });
  const code = teacher.room.code;
  const teacherSocket = await connect(teacher);
  const started = Date.now();
  for (let i = 0; i < ELEMENTS; i++) {
    const request = { requestId: randomBytes(12).toString('base64url'), id: randomUUID(), shape: shapeFor(i) };
    let reply = (await teacherSocket.emitWithAck('element.create', request)) as { ok: boolean; error?: { code: string } };
    // On a loaded machine the pacing catches up in bursts; the server is idempotent by request id.
    while (!reply.ok && reply.error?.code === 'rate_limited') {
      await new Promise((r) => setTimeout(r, 1_000));
      reply = (await teacherSocket.emitWithAck('element.create', request)) as { ok: boolean; error?: { code: string } };
    }
    if (!reply.ok) throw new Error(`create ${i}: ${reply.error?.code}`);
    const due = started + ((i + 1) * 1_000) / CREATES_PER_SECOND - Date.now();
    if (due > 0) await new Promise((r) => setTimeout(r, due));
  }
  console.log(`created ${ELEMENTS} elements in ${((Date.now() - started) / 1_000).toFixed(1)} s (load ${load1()})`);

  const movers: LoadSocket[] = [];
  for (let i = 0; i < CURSORS; i++) {
    const grant = await post<SessionGrant>(`/api/rooms/${code}/join`, { displayName: `Mover ${i}`, memberKey: memberKey() });
    movers.push(await connect(grant));
  }
  let t = 0;
  const cursorTimer = setInterval(() => {
    t += 0.033;
    movers.forEach((s, i) => s.volatile.emit('cursor', { x: Math.round(Math.cos(t + i) * 400 + i * 10), y: Math.round(Math.sin(t * 1.3 + i) * 300) }));
  }, 33);

  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${BASE}/r/${code}`);
  await page.getByLabel('Your name').fill('Viewer');
  await page.getByRole('button', { name: 'Join lesson' }).click();
  // The board applies all elements; only those near the viewport need to be in the DOM.
  await page.waitForFunction((n) => ((window as { __wb?: { elements(): unknown[] } }).__wb?.elements().length ?? 0) >= n, ELEMENTS, { timeout: 60_000, polling: 250 });
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="element"]').length > 0, undefined, { timeout: 30_000 });
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="cursor"]').length >= n, CURSORS, { timeout: 30_000 });
  const inDom = () => page.evaluate(() => document.querySelectorAll('[data-testid="element"]').length);
  const drawnAtStart = await inDom();

  // The sampler goes to the page as source text: tsx would wrap a function literal in helpers
  // (`__name`) that do not exist in the page.
  const samplerSource = `(duration) => new Promise((resolve) => {
    const intervals = [];
    let longTasks = 0;
    const observer = new PerformanceObserver((list) => (longTasks += list.getEntries().length));
    observer.observe({ type: 'longtask', buffered: false });
    let last = performance.now();
    const end = last + duration;
    const frame = (now) => {
      intervals.push(now - last);
      last = now;
      if (now < end) { requestAnimationFrame(frame); return; }
      observer.disconnect();
      const sorted = [...intervals].sort((a, b) => a - b);
      const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      resolve({ frames: intervals.length, p50: at(0.5), p95: at(0.95), max: sorted.at(-1) ?? 0, over: intervals.filter((v) => v > 25).length, longTasks });
    };
    requestAnimationFrame(frame);
  })`;
  type Sample = { frames: number; p50: number; p95: number; max: number; over: number; longTasks: number };
  type Measured = Sample & { load: string };
  /** Samples frames while `drive` runs (or idles), with the load average at the end. */
  const measure = async (phase: string, drive?: (until: number) => Promise<void>): Promise<Measured> => {
    if (TRACE_DIR) await browser.startTracing(page, { path: join(TRACE_DIR, `${phase}.json`), screenshots: false });
    const sampling = page.evaluate(`(${samplerSource})(${SAMPLE_MS})`) as Promise<Sample>;
    if (drive) await drive(Date.now() + SAMPLE_MS);
    const result = await sampling;
    if (TRACE_DIR) await browser.stopTracing();
    return { ...result, load: load1() };
  };

  const idle = await measure('idle');
  const board = (await page.getByTestId('board').boundingBox())!;
  await page.mouse.move(board.x + 600, board.y + 400);
  const pan = await measure('pan', async (until) => {
    for (let k = 0; Date.now() < until; k++) await page.mouse.wheel(k % 40 < 20 ? 15 : -15, 10 * Math.sin(k / 7));
  });
  const drawnAfterPan = await inDom();
  // Ctrl+wheel is the zoom gesture (and what a trackpad pinch sends): out and back in.
  const zoom = await measure('zoom', async (until) => {
    await page.keyboard.down('Control');
    for (let k = 0; Date.now() < until; k++) await page.mouse.wheel(0, k % 60 < 30 ? 8 : -8);
    await page.keyboard.up('Control');
  });
  const fmt = (s: Measured) =>
    `${s.frames} frames, p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms, max ${s.max.toFixed(1)} ms, ${s.over} frames > 25 ms, ${s.longTasks} long tasks (load ${s.load})`;
  console.log(`elements: ${ELEMENTS} on the board, ${drawnAtStart} in the DOM at start, ${drawnAfterPan} after panning; cursors: ${CURSORS}`);
  console.log(`idle (cursors moving): ${fmt(idle)}`);
  console.log(`panning (wheel every frame, cursors moving): ${fmt(pan)}`);
  console.log(`zooming (ctrl+wheel every frame, cursors moving): ${fmt(zoom)}`);

  clearInterval(cursorTimer);
  await browser.close();
  for (const s of [teacherSocket, ...movers]) s.disconnect();
}

// Open sockets and the browser would keep the process alive after a failure: exit explicitly.
main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
