/**
 * Grid load (issue 22): the teacher's class grid with 30 live tiles, in headless Chromium, while
 * every student draws pen strokes with live ink on their own board at the drawing class's pace
 * (bench/privateClass.ts), measured as frame intervals: idle first (nobody drawing), then drawing.
 * Not a test (nothing asserts): a measurement for BENCHMARKS.md, beside bench/run.ts --only=boards.
 *
 *   pnpm build
 *   PORT=3313 PGLITE_DIR=$(mktemp -d)/pglite node --import tsx apps/server/src/main.ts &
 *   node --import tsx e2e/gridLoad.ts          # BASE_URL=http://127.0.0.1:3313 STUDENTS=30 SAMPLE_MS=5000 WARMUP_MS=1500
 *
 * Each sample also gives the page's main-thread busy time (CDP Performance metrics: wall time of
 * its tasks, script, layout, style) and the CPU time of Chromium's renderer and of all its
 * processes, per second of the sample: figures that depend less on the machine's other load than
 * the frame intervals do.
 *
 * TRACE_DIR=/some/dir also writes a Chromium performance trace of the drawing sample there
 * (`drawing.json`; summed up by e2e/traceSummary.ts, or open it in DevTools' Performance panel).
 *
 * Everything runs on one machine (server, 30 drawing sockets, the browser), so the numbers are an
 * upper bound on a teacher's laptop's frame times.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { ClientEvent, type BoardInfo } from '@wb/protocol';
import { drawLoop } from '../bench/privateClass.ts';
import { connectMember, joinRoom, type MemberSocket } from './roomSeed.ts';

const BASE = process.env.BASE_URL ?? 'http://127.0.0.1:3313';
const STUDENTS = Number(process.env.STUDENTS ?? 30);
const SAMPLE_MS = Number(process.env.SAMPLE_MS ?? 5_000);
/** How long the students draw before the drawing sample: longer for tiles that hold many strokes (~0.8 a second each). */
const WARMUP_MS = Number(process.env.WARMUP_MS ?? 1_500);
const TRACE_DIR = process.env.TRACE_DIR || undefined;
/** The timeline, script (with the sampling profiler's stacks) and paint of the page. */
const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'disabled-by-default-v8.cpu_profiler', 'blink', 'cc', 'gpu', 'toplevel'];
const load1 = () => loadavg()[0]!.toFixed(1);

// As source text: tsx would wrap a function literal in helpers that do not exist in the page.
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
    resolve({ frames: intervals.length, p50: at(0.5), p95: at(0.95), max: sorted.at(-1) ?? 0, over: intervals.filter((v) => v > 16.7 * 1.5).length, longTasks });
  };
  requestAnimationFrame(frame);
})`;
type Sample = { frames: number; p50: number; p95: number; max: number; over: number; longTasks: number; busy: Busy };
/** The page's main thread over a sample (CDP Performance metrics), in ms per second of the sample. */
type Busy = { task: number; script: number; layout: number; style: number; rendererCpu: number; chromiumCpu: number };
const fmt = (s: Sample) =>
  `${s.frames} frames, p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms, max ${s.max.toFixed(1)} ms, ${s.over} frames > 25 ms, ${s.longTasks} long tasks; ` +
  `main thread busy ${s.busy.task.toFixed(0)} ms/s (script ${s.busy.script.toFixed(0)}, layout ${s.busy.layout.toFixed(0)}, style ${s.busy.style.toFixed(0)}), ` +
  `CPU: renderer ${s.busy.rendererCpu.toFixed(0)} ms/s, all of Chromium ${s.busy.chromiumCpu.toFixed(0)} ms/s (load ${load1()})`;

async function main(): Promise<void> {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${BASE}/`);
  await page.getByLabel('Your name').fill('Ms Rivera');
  await page.getByRole('button', { name: 'Start lesson' }).click();
  await page.waitForURL(/\/r\/[A-Z2-9]{6}$/);
  const code = /\/r\/([A-Z2-9]{6})$/.exec(page.url())![1]!;
  const students: MemberSocket[] = [];
  for (let i = 0; i < STUDENTS; i++) students.push(await connectMember(BASE, await joinRoom(BASE, code, `Student ${i + 1}`)));
  await page.getByRole('button', { name: 'Start activity' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Start' }).click();
  await page.getByTestId('board-tile').nth(STUDENTS - 1).waitFor({ timeout: 60_000 });
  const boards: { socket: MemberSocket; boardId: string }[] = [];
  for (const socket of students) {
    const mine = (await socket.timeout(20_000).emitWithAck(ClientEvent.BOARD_MINE, {})) as { ok: true; board: BoardInfo };
    boards.push({ socket, boardId: mine.board.id });
  }
  // The main thread's busy time beside the frames: less at the mercy of the machine's other load.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  // CPU time, not wall time: what the page costs, whatever else the machine runs (seconds, per process).
  const browserCdp = await browser.newBrowserCDPSession();
  const cpu = async () => {
    const { processInfo } = (await browserCdp.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; cpuTime: number }[] };
    return { renderer: processInfo.filter((p) => p.type === 'renderer').reduce((n, p) => n + p.cpuTime, 0), all: processInfo.reduce((n, p) => n + p.cpuTime, 0) };
  };
  const metrics = async () => {
    const m = new Map((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
    const c = await cpu();
    m.set('RendererCpu', c.renderer);
    m.set('ChromiumCpu', c.all);
    return m;
  };
  const sample = async (): Promise<Sample> => {
    const before = await metrics();
    const frames = (await page.evaluate(`(${samplerSource})(${SAMPLE_MS})`)) as Omit<Sample, 'busy'>;
    const after = await metrics();
    const seconds = (after.get('Timestamp') ?? 0) - (before.get('Timestamp') ?? 0);
    const perSecond = (name: string) => (1000 * ((after.get(name) ?? 0) - (before.get(name) ?? 0))) / seconds;
    return { ...frames, busy: { task: perSecond('TaskDuration'), script: perSecond('ScriptDuration'), layout: perSecond('LayoutDuration'), style: perSecond('RecalcStyleDuration'), rendererCpu: perSecond('RendererCpu'), chromiumCpu: perSecond('ChromiumCpu') } };
  };
  console.log(`grid of ${STUDENTS}, idle: ${fmt(await sample())}`);
  let drawing = true;
  const loops = boards.map((b) => drawLoop(b, () => !drawing, () => ({ firstInk: () => {}, created: () => {} }), () => {}));
  await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));
  if (TRACE_DIR) await browser.startTracing(page, { path: join(TRACE_DIR, 'drawing.json'), categories: TRACE_CATEGORIES });
  const drawingSample = await sample();
  if (TRACE_DIR) await browser.stopTracing();
  console.log(`grid of ${STUDENTS}, every student drawing with live ink: ${fmt(drawingSample)}`);
  drawing = false;
  await Promise.all(loops);
  const drawn = await page.evaluate(() => Array.from(document.querySelectorAll('[data-testid="board-tile"] [data-elements]'), (board) => Number(board.getAttribute('data-elements') ?? 0)).reduce((n, m) => n + m, 0));
  console.log(`strokes on the grid's tiles: ${drawn}`);
  for (const s of students) s.disconnect();
  await browser.close();
}

await main();
