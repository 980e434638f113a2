/**
 * Render load: a student's board with 2,000 elements while 30 other people move their cursors,
 * measured as frame intervals in headless Chromium, idle, while panning, while zooming and while
 * another user edits an element in view, with the element layer's mode (SVG nodes or the overview
 * canvas) in each. Not a test (nothing asserts): a
 * measurement for BENCHMARKS.md ("Web rendering").
 *
 * IMAGES=n (default 0) also uploads n distinct worksheet-like pictures of 1200 x 900 pixels
 * (worksheetPng.ts) and places them among the other elements (interleaved in drawing order), at
 * 120 x 90 on the board in rows of ten from (10, 10): in the start view and in view while it pans
 * and zooms. Measuring waits until the page has decoded every picture (its `<img>` decode() with
 * naturalWidth 1200) and no placeholder is drawn.
 *
 *   pnpm build
 *   PORT=3313 PGLITE_DIR=$(mktemp -d)/pglite node --import tsx apps/server/src/main.ts &
 *   node --import tsx e2e/renderLoad.ts          # BASE_URL=http://127.0.0.1:3313 ELEMENTS=2000 CURSORS=30 IMAGES=0 SWEEP=1
 *
 * TRACE_DIR=/some/dir also writes a Chromium performance trace of each phase there (open it in
 * DevTools' Performance panel) to see what a long frame spent its time on.
 *
 * Everything runs on one machine (server, 30 cursor sockets, the browser), so the numbers are an
 * upper bound on a classroom laptop's frame times, not a typical one.
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { ClientEvent, type ElementShape } from '@wb/protocol';
import { connectMember, createElements, joinRoom, startRoom, type MemberSocket } from './roomSeed.ts';
import { worksheetPng } from './worksheetPng.ts';

const BASE = process.env.BASE_URL ?? 'http://127.0.0.1:3313';
const ELEMENTS = Number(process.env.ELEMENTS ?? 2_000);
const CURSORS = Number(process.env.CURSORS ?? 30);
const IMAGES = Number(process.env.IMAGES ?? 0);
/** The pictures' pixels (a scanned worksheet's) and their size on the board (in view at 100 %). */
const PICTURE = { width: 1_200, height: 900 } as const;
const PLACED = { w: 120, h: 90, perRow: 10, gapX: 125, gapY: 100 } as const;
/** Sockets creating the elements in parallel (the teacher's and movers'), each under the server's budget. */
const SEEDERS = 4;
const SAMPLE_MS = 5_000;
const TRACE_DIR = process.env.TRACE_DIR;
/** SWEEP=1: also step the zoom from 244 % to 10 % and measure each level (what overview.ts's thresholds come from). */
const SWEEP = process.env.SWEEP === '1';
/** The 1-minute load average: the machine is shared, so every figure carries it. */
const load1 = () => loadavg()[0]!.toFixed(2);

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

/** Uploads `count` distinct pictures to the lesson as the web client does; their image shapes, in view at the start. */
async function uploadPictures(grant: { token: string; room: { id: string } }, count: number): Promise<ElementShape[]> {
  const shapes: ElementShape[] = [];
  for (let k = 0; k < count; k++) {
    const response = await fetch(`${BASE}/api/rooms/${grant.room.id}/images`, {
      method: 'POST',
      headers: { authorization: `Bearer ${grant.token}`, 'content-type': 'image/png' },
      body: new Uint8Array(worksheetPng(k, PICTURE.width, PICTURE.height)),
    });
    if (!response.ok) throw new Error(`upload ${k}: ${response.status} ${await response.text()}`);
    const { sha256, width, height } = (await response.json()) as { sha256: string; width: number; height: number };
    const x = 10 + (k % PLACED.perRow) * PLACED.gapX;
    const y = 10 + Math.floor(k / PLACED.perRow) * PLACED.gapY;
    shapes.push({ kind: 'image', x, y, w: PLACED.w, h: PLACED.h, sha256, naturalWidth: width, naturalHeight: height });
  }
  return shapes;
}

/**
 * The page's decoded pictures: the image library decodes each fetched picture in an `<img>`
 * (decode()) before drawing it; this init script records each decode that resolved, with its
 * natural size, so the measurement starts only once every picture is really there.
 */
const recordDecodes = `(() => {
  const decoded = (window.__decodedPictures = []);
  const decode = HTMLImageElement.prototype.decode;
  HTMLImageElement.prototype.decode = function () {
    return decode.call(this).then(() => { decoded.push({ src: this.src, width: this.naturalWidth, height: this.naturalHeight }); });
  };
})()`;

async function main() {
  // The viewer is a student: it sees the 30 others' cursors only when the lesson shows everyone's
  // (a new lesson shows students only the teacher's since cursor visibility came in).
  const teacher = await startRoom(BASE, 'Load teacher', { cursorVisibility: 'everyone' });
  const pictures = await uploadPictures(teacher, IMAGES);
  const code = teacher.room.code;
  const teacherSocket = await connectMember(BASE, teacher);
  const movers: MemberSocket[] = [];
  for (let i = 0; i < CURSORS; i++) movers.push(await connectMember(BASE, await joinRoom(BASE, code, `Mover ${i}`)));
  const started = Date.now();
  // The pictures go among the other elements in drawing order: one after every ELEMENTS / (IMAGES + 1).
  const shapes = Array.from({ length: ELEMENTS }, (_, i) => shapeFor(i));
  const all = [...shapes];
  for (let k = pictures.length - 1; k >= 0; k--) all.splice(Math.floor(((k + 1) * ELEMENTS) / (pictures.length + 1)), 0, pictures[k]!);
  const created = await createElements([teacherSocket, ...movers].slice(0, SEEDERS), all);
  const at = new Map(all.map((shape, i) => [shape, i]));
  const ids = shapes.map((shape) => created[at.get(shape)!]!);
  console.log(`created ${ELEMENTS} elements and ${IMAGES} images in ${((Date.now() - started) / 1_000).toFixed(1)} s (load ${load1()})`);

  let t = 0;
  const cursorTimer = setInterval(() => {
    t += 0.033;
    movers.forEach((s, i) => s.volatile.emit('cursor', { x: Math.round(Math.cos(t + i) * 400 + i * 10), y: Math.round(Math.sin(t * 1.3 + i) * 300) }));
  }, 33);

  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.addInitScript(recordDecodes);
  await page.goto(`${BASE}/r/${code}`);
  await page.getByLabel('Your name').fill('Viewer');
  await page.getByRole('button', { name: 'Join lesson' }).click();
  // The board applies all elements, then draws them: as SVG nodes, or on the overview canvas.
  await page.waitForFunction((n) => ((window as { __wb?: { elements(): unknown[] } }).__wb?.elements().length ?? 0) >= n, ELEMENTS, { timeout: 60_000, polling: 250 });
  // (A build before overview mode has no `data-in-view`: its SVG nodes show it has drawn.)
  await page.waitForFunction(
    () => document.querySelector('[data-testid="element-layer"]')?.hasAttribute('data-in-view') === true || document.querySelector('[data-testid="element"]') !== null,
    undefined,
    { timeout: 30_000 },
  );
  // The board opens fitted to its content (apps/web/src/board/firstView.ts): back to the 100 %
  // view at the origin that every figure in BENCHMARKS.md was measured from. (A build before the
  // fit is already there: the click changes nothing.)
  await page.locator('.zoom-readout').click();
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="cursor"]').length >= n, CURSORS, { timeout: 30_000 });
  if (IMAGES > 0) {
    const decodeStarted = Date.now();
    // Every picture decoded at its full size, and no placeholder left in the SVG layer; then a
    // second for the overview canvas's repaint with them (at the next frame) to be done.
    await page.waitForFunction(
      ({ n, width, height }) => {
        const decoded = (window as { __decodedPictures?: Array<{ src: string; width: number; height: number }> }).__decodedPictures ?? [];
        const full = new Set(decoded.filter((d) => d.src.startsWith('blob:') && d.width === width && d.height === height).map((d) => d.src));
        return full.size >= n && document.querySelector('[data-image-pending]') === null;
      },
      { n: IMAGES, ...PICTURE },
      { timeout: 120_000, polling: 250 },
    );
    await page.waitForTimeout(1_000);
    console.log(`${IMAGES} pictures of ${PICTURE.width} x ${PICTURE.height} decoded in the page ${((Date.now() - decodeStarted) / 1_000).toFixed(1)} s after the board drew`);
  }
  /** What the element layer draws now: its mode, the count its decision read, and SVG nodes in the DOM. */
  const layerState = () =>
    page.evaluate(() => {
      const layer = document.querySelector<HTMLElement>('[data-testid="element-layer"]');
      return { mode: layer?.dataset.mode ?? '?', inView: Number(layer?.dataset.inView ?? 0), nodes: document.querySelectorAll('[data-testid="element"]').length };
    });
  const atStart = await layerState();

  // The sampler goes to the page as source text: tsx would wrap a function literal in helpers
  // (`__name`) that do not exist in the page. It also counts the frames drawn in overview mode.
  const samplerSource = `(duration) => new Promise((resolve) => {
    const intervals = [];
    let longTasks = 0;
    let overview = 0;
    const layer = document.querySelector('[data-testid="element-layer"]');
    const observer = new PerformanceObserver((list) => (longTasks += list.getEntries().length));
    observer.observe({ type: 'longtask', buffered: false });
    let last = performance.now();
    const end = last + duration;
    const frame = (now) => {
      intervals.push(now - last);
      last = now;
      if (layer && layer.dataset.mode === 'overview') overview++;
      if (now < end) { requestAnimationFrame(frame); return; }
      observer.disconnect();
      const sorted = [...intervals].sort((a, b) => a - b);
      const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      resolve({ frames: intervals.length, p50: at(0.5), p95: at(0.95), max: sorted.at(-1) ?? 0, over: intervals.filter((v) => v > 25).length, longTasks, overview });
    };
    requestAnimationFrame(frame);
  })`;
  type Sample = { frames: number; p50: number; p95: number; max: number; over: number; longTasks: number; overview: number };
  type Measured = Sample & { load: string };
  /** Samples frames while `drive` runs (or idles), with the load average at the end. */
  const measure = async (phase: string, drive?: (until: number) => Promise<void>, duration = SAMPLE_MS): Promise<Measured> => {
    if (TRACE_DIR) await browser.startTracing(page, { path: join(TRACE_DIR, `${phase}.json`), screenshots: false });
    const sampling = page.evaluate(`(${samplerSource})(${duration})`) as Promise<Sample>;
    if (drive) await drive(Date.now() + duration);
    const result = await sampling;
    if (TRACE_DIR) await browser.stopTracing();
    return { ...result, load: load1() };
  };
  const fmt = (s: Measured) =>
    `${s.frames} frames, p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms, max ${s.max.toFixed(1)} ms, ${s.over} frames > 25 ms, ${s.longTasks} long tasks, overview in ${s.overview} frames (load ${s.load})`;

  const idle = await measure('idle');
  const board = (await page.getByTestId('board').boundingBox())!;
  await page.mouse.move(board.x + 600, board.y + 400);
  const pan = await measure('pan', async (until) => {
    for (let k = 0; Date.now() < until; k++) await page.mouse.wheel(k % 40 < 20 ? 15 : -15, 10 * Math.sin(k / 7));
  });
  const afterPan = await layerState();
  // Ctrl+wheel is the zoom gesture (and what a trackpad pinch sends): out and back in.
  const zoom = await measure('zoom', async (until) => {
    await page.keyboard.down('Control');
    for (let k = 0; Date.now() < until; k++) await page.mouse.wheel(0, k % 60 < 30 ? 8 : -8);
    await page.keyboard.up('Control');
  });
  // Another user edits an element in view ten times a second (the teacher moving a note back and
  // forth): in overview mode each edit repaints the canvas, as SVG it rewrites one node.
  await page.locator('.zoom-readout').click();
  await page.waitForTimeout(500);
  const EDITED = Math.min(ELEMENTS - 1, 820); // at (0, 0) on the grid: in the start view
  const edited = shapeFor(EDITED);
  let version = 1;
  const editing = await measure('edit', async (until) => {
    for (let k = 0; Date.now() < until; k++) {
      const request = { requestId: randomBytes(12).toString('base64url'), id: ids[EDITED]!, baseVersion: version, shape: { ...edited, x: edited.x + (k % 2) * 20 } };
      const reply = await teacherSocket.emitWithAck(ClientEvent.ELEMENT_UPDATE, request);
      if (reply.ok) version = reply.element.version;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  const atEdit = await layerState();
  const state = (s: { mode: string; inView: number; nodes: number }) =>
    s.mode === '?' ? `${s.nodes} SVG nodes (a build without overview mode)` : `${s.mode}, ${s.inView} in the cull rect, ${s.nodes} SVG nodes`;
  console.log(`elements: ${ELEMENTS} on the board; at start ${state(atStart)}; after panning ${state(afterPan)}; cursors: ${CURSORS}`);
  console.log(`idle (cursors moving): ${fmt(idle)}`);
  console.log(`panning (wheel every frame, cursors moving): ${fmt(pan)}`);
  console.log(`zooming (ctrl+wheel every frame, cursors moving): ${fmt(zoom)}`);
  console.log(`editing (another user moves an element in view 10 times a second, cursors moving; ${state(atEdit)}): ${fmt(editing)}`);

  if (SWEEP) {
    // Per level: one zoom step (the - key, 1/1.25, around the pointer) and 700 ms of frames,
    // whose slowest is the step's redraw and its settle; then 2 s of wheel panning back and forth
    // within the drawn margin (no redraw: what a frame costs with this many elements in view).
    const board = page.getByTestId('board');
    await board.focus();
    await page.keyboard.press('0');
    for (let k = 0; k < 4; k++) await page.keyboard.press('+');
    await page.waitForTimeout(1_000);
    for (let level = 0; level < 15; level++) {
      const step = await measure(`sweep-step-${level}`, level === 0 ? undefined : () => page.keyboard.press('-'), 700);
      const drawn = await layerState();
      const panning = await measure(`sweep-pan-${level}`, async (until) => {
        for (let k = 0; Date.now() < until; k++) await page.mouse.wheel(k % 20 < 10 ? 12 : -12, 0);
      }, 2_000);
      console.log(`sweep ${await page.locator('.zoom-readout').textContent()}: ${state(drawn)}; step max ${step.max.toFixed(1)} ms; panning ${fmt(panning)}`);
    }
  }

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
