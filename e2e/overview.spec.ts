import type { ElementShape, SessionGrant } from '@wb/protocol';
import type { Browser, Page } from '@playwright/test';
import { elementsOf } from './boardHook.ts';
import { reducePngPixels } from './pngPixels.ts';
import { connectMember, createElements, deleteElements, joinRoom, startRoom, type MemberSocket } from './roomSeed.ts';
import { SERVER_URL } from './origins.ts';
import { expect, joinLesson, test } from './support.ts';

/**
 * Overview mode (apps/web/src/board/overview.ts): a view holding more than 500 elements is drawn
 * on one canvas instead of one SVG node per element; below 350 the SVG nodes return. Elements
 * being dragged are drawn live, not also on the canvas. Pixels are read from the canvas itself.
 *
 * One room for the whole file: 560 small elements along the bottom of the first screen (so a
 * student's first view is in overview mode), a sample of every kind at a readable size, and an
 * empty strip at the top for the elements the tests create and drag.
 */
test.describe.configure({ mode: 'serial' });

const FILLER_COLUMNS = 28;
const FILLER_ROWS = 20;
/** Above OVERVIEW_ENTER_ELEMENTS (500): the first view is in overview mode. */
const FILLERS = FILLER_COLUMNS * FILLER_ROWS;

function filler(i: number): ElementShape {
  const x = 20 + (i % FILLER_COLUMNS) * 36;
  const y = 380 + Math.floor(i / FILLER_COLUMNS) * 12;
  const stroke = '#1971c2';
  switch (i % 7) {
    case 0:
      return { kind: 'rect', x, y, w: 26, h: 8, stroke, fill: 'transparent', strokeWidth: 1 };
    case 1:
      return { kind: 'ellipse', x, y, w: 26, h: 8, stroke, fill: '#d0ebff', strokeWidth: 1 };
    case 2:
      return { kind: 'line', x, y, dx: 26, dy: 8, stroke, strokeWidth: 1 };
    case 3:
      return { kind: 'arrow', x, y, dx: 26, dy: 6, stroke, strokeWidth: 1 };
    case 4:
      return { kind: 'pen', x, y, points: Array.from({ length: 12 }, (_, k) => [k * 2, Math.sin(k / 2) * 3, 0.5] as [number, number, number]), stroke, strokeWidth: 1 };
    case 5:
      return { kind: 'text', x, y, w: 30, h: 10, text: `t${i}`, stroke, fontSize: 8 };
    default:
      return { kind: 'sticky', x, y, w: 26, h: 10, text: '', fill: '#fff3a8' };
  }
}

/** One of each kind at a readable size, in a row right of the toolbar: what the canvas and the SVG must draw alike. */
const SAMPLE_ROW_Y = 240;
const SAMPLE_FILL = '#b2f2bb';
const samples: ElementShape[] = [
  { kind: 'rect', x: 140, y: SAMPLE_ROW_Y, w: 80, h: 60, stroke: '#2f9e44', fill: SAMPLE_FILL, strokeWidth: 3 },
  // Turned and centred: the canvas turns and aligns as the SVG does (issue 23).
  { kind: 'ellipse', x: 240, y: SAMPLE_ROW_Y, w: 80, h: 60, stroke: '#e8590c', fill: 'transparent', strokeWidth: 4, rotation: 30 },
  { kind: 'line', x: 340, y: SAMPLE_ROW_Y, dx: 70, dy: 60, stroke: '#1e1e1e', strokeWidth: 2 },
  { kind: 'arrow', x: 430, y: SAMPLE_ROW_Y + 60, dx: 80, dy: -55, stroke: '#6741d9', strokeWidth: 3 },
  {
    kind: 'pen',
    x: 530,
    y: SAMPLE_ROW_Y + 30,
    points: Array.from({ length: 40 }, (_, k) => [k * 2, Math.sin(k / 4) * 25, 0.3 + (k % 10) / 20] as [number, number, number]),
    stroke: '#c2255c',
    strokeWidth: 4,
  },
  { kind: 'text', x: 630, y: SAMPLE_ROW_Y, w: 120, h: 60, text: 'Fractions: 1/2 + 1/4 = 3/4', stroke: '#1e1e1e', fontSize: 18, align: 'center' },
  { kind: 'sticky', x: 770, y: SAMPLE_ROW_Y - 10, w: 140, h: 80, text: 'Homework: <b>page 12</b> & more', fill: '#fff3a8' },
];

/** The element the drag test moves: a solid block, easy to find in pixels. */
const TARGET = { x: 120, y: 60, w: 80, h: 60 };
const TARGET_FILL = '#e03131';

let code = '';
let sockets: MemberSocket[] = [];
let fillerIds: string[] = [];
let targetId = '';
/**
 * Two students' screens, opened once (joining a board of 568 elements takes a few seconds on a
 * loaded machine). Ana's view never moves; Ben's is zoomed in by the mode-switch test.
 */
let ana: Page;
let ben: Page;

test.beforeAll(async ({ browser }) => {
  const baseURL = SERVER_URL;
  const teacher: SessionGrant = await startRoom(baseURL, 'Ms Rivera');
  code = teacher.room.code;
  // The teacher's socket stays connected (a drag lock needs the teacher present); three helpers
  // share the creating so that 568 elements take about 2 s.
  sockets = [await connectMember(baseURL, teacher)];
  for (let k = 0; k < 3; k++) sockets.push(await connectMember(baseURL, await joinRoom(baseURL, code, `Helper ${k}`)));
  const ids = await createElements(sockets, [
    ...Array.from({ length: FILLERS }, (_, i) => filler(i)),
    ...samples,
    { kind: 'rect', ...TARGET, stroke: TARGET_FILL, fill: TARGET_FILL, strokeWidth: 2 },
  ]);
  fillerIds = ids.slice(0, FILLERS);
  targetId = ids.at(-1)!;
  [ana, ben] = [await openBoard(browser, 'Ana'), await openBoard(browser, 'Ben')];
});

test.afterAll(async () => {
  for (const page of [ana, ben]) await page?.context().close();
  for (const s of sockets) s.disconnect();
});

/** A student's board with all the room's elements applied. */
async function openBoard(browser: Browser, name: string): Promise<Page> {
  const { page } = await joinLesson(browser, code, name);
  await expect.poll(async () => (await elementsOf(page)).length).toBeGreaterThanOrEqual(FILLERS + samples.length + 1);
  // The board opened fitted to its content (board/firstView.ts: the fillers reach under the tools,
  // the target under the top bar); the tests point at board coordinates at 100 %, unpanned.
  await page.locator('.zoom-readout').click();
  await expect(page.locator('.zoom-readout')).toHaveText('100%');
  // The keys the tests press go to the page, as before the click: a focused button keeps its own.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  return page;
}

/** Page coordinates of a board point (the view is at 100 % and not panned unless a test moves it). */
async function pagePoint(page: Page, x: number, y: number) {
  const box = (await page.getByTestId('board').boundingBox())!;
  return { x: box.x + x, y: box.y + y };
}

const layer = (page: Page) => page.getByTestId('element-layer');
const svgNode = (page: Page, id: string) => page.locator(`[data-testid="element"][data-element-id="${id}"]`);

/** The overview canvas's pixel under a page point, as [r, g, b, a]; null while the canvas is hidden. */
function canvasPixel(page: Page, at: { x: number; y: number }): Promise<number[] | null> {
  return page.evaluate(({ x, y }) => {
    const canvas = document.querySelector<HTMLCanvasElement>('[data-testid="element-canvas"]');
    if (!canvas || canvas.style.display === 'none' || canvas.width === 0) return null;
    const box = canvas.getBoundingClientRect();
    const px = Math.floor(((x - box.left) * canvas.width) / box.width);
    const py = Math.floor(((y - box.top) * canvas.height) / box.height);
    return [...canvas.getContext('2d')!.getImageData(px, py, 1, 1).data];
  }, at);
}

/** Whether the canvas holds `color` at a board point (opaque, each channel within 40). */
async function inkAt(page: Page, x: number, y: number, color: string): Promise<boolean> {
  const p = await canvasPixel(page, await pagePoint(page, x, y));
  const want = [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16));
  return p !== null && p[3]! > 200 && want.every((v, i) => Math.abs(p[i]! - v) <= 40);
}

async function transparentAt(page: Page, x: number, y: number): Promise<boolean> {
  const p = await canvasPixel(page, await pagePoint(page, x, y));
  return p !== null && p[3] === 0;
}

test('[overview] more than 500 elements in view are drawn on one canvas: ink where an element is, and no SVG node for it', async () => {
  await expect(layer(ana)).toHaveAttribute('data-mode', 'overview');
  expect(Number(await layer(ana).getAttribute('data-in-view'))).toBeGreaterThan(500);
  await expect.poll(() => inkAt(ana, TARGET.x + TARGET.w / 2, TARGET.y + TARGET.h / 2, TARGET_FILL)).toBe(true);
  expect(await transparentAt(ana, TARGET.x + TARGET.w + 60, TARGET.y + TARGET.h / 2)).toBe(true);
  await expect(svgNode(ana, targetId)).toHaveCount(0);
  await expect(ana.getByTestId('element')).toHaveCount(0);
});

test('[overview] an element another user creates appears on the canvas', async () => {
  await expect(layer(ana)).toHaveAttribute('data-mode', 'overview');
  const spot = { x: 600, y: 60, w: 70, h: 50 };
  expect(await transparentAt(ana, spot.x + 35, spot.y + 25)).toBe(true);
  const [id] = await createElements([sockets[0]!], [{ kind: 'rect', ...spot, stroke: TARGET_FILL, fill: TARGET_FILL, strokeWidth: 2 }]);
  await expect.poll(() => inkAt(ana, spot.x + 35, spot.y + 25, TARGET_FILL)).toBe(true);
  await expect(svgNode(ana, id!)).toHaveCount(0);
});

test('[overview] a drag moves the element live, drawn once (not also on the canvas at its old place); another screen sees the commit', async () => {
  await expect(layer(ana)).toHaveAttribute('data-mode', 'overview');
  const center = { x: TARGET.x + TARGET.w / 2, y: TARGET.y + TARGET.h / 2 };
  const moveBy = { x: 300, y: 20 };
  await expect.poll(() => inkAt(ana, center.x, center.y, TARGET_FILL)).toBe(true);

  const from = await pagePoint(ana, center.x, center.y);
  await ana.mouse.move(from.x, from.y);
  await ana.mouse.down();
  await ana.mouse.move(from.x + moveBy.x, from.y + moveBy.y, { steps: 10 });
  // Mid-drag: the element is one live SVG node at the pointer; the canvas holds it nowhere.
  await expect(svgNode(ana, targetId)).toHaveCount(1);
  await expect.poll(() => transparentAt(ana, center.x, center.y)).toBe(true);
  expect(await transparentAt(ana, center.x + moveBy.x, center.y + moveBy.y)).toBe(true);
  const live = (await svgNode(ana, targetId).boundingBox())!;
  // 4 px: the pointer's last step and the node's box both land on whole pixels, and the 2 px
  // stroke widens the box by up to 1 px a side; a node left at its old place is 300 px off.
  expect(Math.abs(live.x + live.width / 2 - (from.x + moveBy.x))).toBeLessThan(4);
  expect(Math.abs(live.y + live.height / 2 - (from.y + moveBy.y))).toBeLessThan(4);
  await ana.mouse.up();

  // Committed: both screens have it at its new place, on their canvases, and no SVG node left.
  const moved = { x: TARGET.x + moveBy.x, y: TARGET.y + moveBy.y };
  for (const screen of [ana, ben]) {
    await expect.poll(async () => (await elementsOf(screen)).find((e) => e.id === targetId)).toMatchObject({ ...moved, lockedBy: null });
    await expect.poll(() => inkAt(screen, center.x + moveBy.x, center.y + moveBy.y, TARGET_FILL)).toBe(true);
    expect(await transparentAt(screen, center.x, center.y)).toBe(true);
    await expect(svgNode(screen, targetId)).toHaveCount(0);
  }
});

/** Keeps a copy of the overview canvas's pixels in the page, for `pixelsChangedSinceSnapshot`. */
function snapshotCanvas(page: Page): Promise<void> {
  return page.evaluate(() => {
    const canvas = document.querySelector<HTMLCanvasElement>('[data-testid="element-canvas"]')!;
    (window as unknown as { __canvasSnapshot: Uint8ClampedArray }).__canvasSnapshot = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
  });
}

/**
 * Pixels of the overview canvas that differ from the snapshot by more than 2 in a channel: a
 * rounded corner drawn under a clip can come out one level different from the same corner
 * drawn without one.
 */
function pixelsChangedSinceSnapshot(page: Page): Promise<number> {
  return page.evaluate(() => {
    const canvas = document.querySelector<HTMLCanvasElement>('[data-testid="element-canvas"]')!;
    const now = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
    const before = (window as unknown as { __canvasSnapshot: Uint8ClampedArray }).__canvasSnapshot;
    if (before.length !== now.length) return now.length / 4;
    let changed = 0;
    for (let i = 0; i < now.length; i += 4) {
      for (let c = 0; c < 4; c++) {
        if (Math.abs(now[i + c]! - before[i + c]!) > 2) {
          changed++;
          break;
        }
      }
    }
    return changed;
  });
}

test('[overview] the repaints after an edit and a drag (only the areas they touched) leave the pixels a full repaint leaves', async () => {
  // Ana's canvas has been repainted in part for the element created and the drag above.
  await expect(layer(ana)).toHaveAttribute('data-mode', 'overview');
  await snapshotCanvas(ana);
  // A pan away and back (the arrow keys pan by 60 px) repaints all of it, once for each view.
  await ana.getByTestId('board').focus();
  // With nothing selected: arrow keys nudge a selection (issue 23) and pan only without one.
  await ana.keyboard.press('Escape');
  await ana.keyboard.press('ArrowLeft');
  await expect.poll(() => pixelsChangedSinceSnapshot(ana)).toBeGreaterThan(1_000);
  await ana.keyboard.press('ArrowRight');
  await expect.poll(() => pixelsChangedSinceSnapshot(ana)).toBe(0);
});

test('[overview] zooming in to fewer than 350 elements in view leaves overview mode: the SVG nodes return', async () => {
  await expect(layer(ben)).toHaveAttribute('data-mode', 'overview');
  // Zoom in about 3x around a point of the sample row: the view then holds about a tenth of the board.
  const focus = await pagePoint(ben, 300, SAMPLE_ROW_Y + 30);
  await ben.mouse.move(focus.x, focus.y);
  for (let k = 0; k < 5; k++) await ben.keyboard.press('+');
  await expect(layer(ben)).toHaveAttribute('data-mode', 'elements');
  // 350: the count below which overview mode ends (overview.ts), not a tolerance.
  expect(Number(await layer(ben).getAttribute('data-in-view'))).toBeLessThan(350);
  await expect(ben.getByTestId('element-canvas')).toBeHidden();
  await expect(ben.locator('[data-testid="element"][data-kind="arrow"]').first()).toBeVisible();
  expect(await ben.getByTestId('element').count()).toBeGreaterThan(samples.length);
});

/** Two screenshots' pixels compared in the page: how many differ visibly, and how many are ink at all. */
async function comparePixels(page: Page, a: Buffer, b: Buffer): Promise<{ ink: number; differing: number }> {
  return reducePngPixels(page.context(), [a, b], ([pa, pb]) => {
    let ink = 0;
    let differing = 0;
    for (let i = 0; i < pa!.length; i += 4) {
      const d = Math.max(Math.abs(pa![i]! - pb![i]!), Math.abs(pa![i + 1]! - pb![i + 1]!), Math.abs(pa![i + 2]! - pb![i + 2]!));
      if (d > 32) differing++;
      if (Math.min(pa![i]!, pa![i + 1]!, pa![i + 2]!) < 200) ink++;
    }
    return { ink, differing };
  });
}

test('[overview] the canvas draws every kind as the SVG does: the same view in both modes differs in under 2 % of its ink', async () => {
  await expect(layer(ana)).toHaveAttribute('data-mode', 'overview');
  const topLeft = await pagePoint(ana, 120, SAMPLE_ROW_Y - 20);
  const clip = { x: topLeft.x, y: topLeft.y, width: 820, height: 110 };
  await expect.poll(() => inkAt(ana, 180, SAMPLE_ROW_Y + 30, SAMPLE_FILL)).toBe(true);
  const onCanvas = await ana.screenshot({ clip, animations: 'disabled' });

  // Deleting fillers (none in the clip) takes the view below 350 elements: same view, SVG nodes.
  await deleteElements(sockets, fillerIds.slice(0, 250));
  await expect(layer(ana)).toHaveAttribute('data-mode', 'elements');
  await expect(ana.locator('[data-testid="element"][data-kind="sticky"]').first()).toBeVisible();
  const asSvg = await ana.screenshot({ clip, animations: 'disabled' });

  const { ink, differing } = await comparePixels(ana, onCanvas, asSvg);
  expect(ink).toBeGreaterThan(5_000);
  // 2 %: anti-aliased edges drawn by the canvas and by SVG differ by more than 32 in a channel on
  // some edge pixels (a judgement from the pixel comparisons of issue 22, not a measured figure);
  // a kind drawn wrong or missing differs over its whole ink.
  expect(differing / ink).toBeLessThan(0.02);
});
