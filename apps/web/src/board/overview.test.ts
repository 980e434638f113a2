import type { Element } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { cachedInkBounds, countInRect, cullRect, visibleRect } from './culling.ts';
import {
  canvasArea,
  canvasCovers,
  canvasFrame,
  changedAreas,
  gestureCanvasViewport,
  MAX_CHANGED_AREAS,
  MAX_CANVAS_PIXELS,
  OVERVIEW_ENTER_ELEMENTS,
  OVERVIEW_LEAVE_ELEMENTS,
  overviewLayers,
  overviewMode,
  repaintAreas,
  sameCanvasFrame,
  type CanvasContent,
} from './overview.ts';
import { boardToScreen, MIN_ZOOM, panBy, zoomAt, type Viewport } from './viewport.ts';

const rect = (id: string, x: number, y: number): Element => ({
  id,
  shape: { kind: 'rect', x, y, w: 40, h: 30, stroke: '#000000', fill: 'transparent', strokeWidth: 2 },
  z: 0,
  version: 1,
  lock: null,
  pinned: false,
  createdBy: 'u1', updatedBy: 'u1',
});

describe('overviewMode: enter above 500 elements in view, leave below 350', () => {
  test.each([
    // [in overview now, elements in the cull rect, in overview next]
    [false, 0, false],
    [false, 349, false],
    [false, 500, false],
    [false, 501, true],
    [false, 2_000, true],
    [true, 2_000, true],
    [true, 501, true],
    [true, 400, true],
    [true, 350, true],
    [true, 349, false],
    [true, 0, false],
  ])('in overview %s, %i in view: %s', (current, inView, expected) => {
    expect(overviewMode(current, inView)).toBe(expected);
  });

  test('a count that wanders around either threshold switches once, not back and forth', () => {
    const counts = [480, 499, 502, 497, 503, 420, 380, 351, 348, 360, 349, 355, 362];
    let mode = false;
    const switches: number[] = [];
    for (const n of counts) {
      const next = overviewMode(mode, n);
      if (next !== mode) switches.push(n);
      mode = next;
    }
    expect(switches).toEqual([502, 348]);
  });

  test('the thresholds leave a gap', () => {
    expect(OVERVIEW_LEAVE_ELEMENTS).toBeLessThan(OVERVIEW_ENTER_ELEMENTS);
  });
});

describe('canvasFrame', () => {
  const cases: Array<[string, Viewport, number]> = [
    ['100 %, no pan', { x: 0, y: 0, zoom: 1 }, 1],
    ['panned and zoomed out', { x: 312.5, y: -87.25, zoom: 0.37 }, 1],
    ['zoomed in on a HiDPI screen', { x: -1_800, y: 420, zoom: 3.2 }, 2],
  ];

  test.each(cases)('%s: a board point lands on the canvas pixel under its screen position', (_name, vp, ratio) => {
    const frame = canvasFrame(vp, 1280, 800, ratio);
    const t = frame.transform;
    for (const p of [{ x: 0, y: 0 }, { x: 250, y: -80 }, { x: -1_000, y: 3_000 }]) {
      const screen = boardToScreen(vp, p);
      // The canvas's CSS box starts at (left, top) on the screen and stretches its pixels over it.
      const px = p.x * t.scale + t.x;
      const py = p.y * t.scale + t.y;
      expect(frame.left + (px * frame.cssWidth) / frame.pixelWidth).toBeCloseTo(screen.x, 6);
      expect(frame.top + (py * frame.cssHeight) / frame.pixelHeight).toBeCloseTo(screen.y, 1);
    }
  });

  test('covers the screen and the cull margin: the same area the SVG path draws', () => {
    const vp: Viewport = { x: 100, y: 50, zoom: 0.8 };
    const frame = canvasFrame(vp, 1280, 800, 1);
    const cull = cullRect(vp, 1280, 800);
    expect(frame.covers.x).toBeCloseTo(cull.x, 6);
    expect(frame.covers.y).toBeCloseTo(cull.y, 6);
    expect(frame.covers.w).toBeCloseTo(cull.w, 6);
    expect(frame.covers.h).toBeCloseTo(cull.h, 6);
    expect([frame.left, frame.top, frame.cssWidth, frame.cssHeight]).toEqual([-320, -200, 1_920, 1_200]);
    expect([frame.pixelWidth, frame.pixelHeight]).toEqual([1_920, 1_200]);
  });

  test('a large HiDPI screen gets fewer pixels than its ratio asks, at most MAX_CANVAS_PIXELS', () => {
    const frame = canvasFrame({ x: 0, y: 0, zoom: 1 }, 1920, 1080, 2);
    expect(frame.pixelWidth * frame.pixelHeight).toBeLessThanOrEqual(MAX_CANVAS_PIXELS * 1.001);
    expect(frame.pixelWidth / frame.cssWidth).toBeGreaterThan(1.5);
    expect(canvasFrame({ x: 0, y: 0, zoom: 1 }, 1280, 800, 2).pixelWidth).toBe(3_840);
  });

  test('a layer with no size yet still gets a valid (1 px) canvas', () => {
    const frame = canvasFrame({ x: 0, y: 0, zoom: 1 }, 0, 0, 1);
    expect([frame.pixelWidth, frame.pixelHeight]).toEqual([1, 1]);
    expect(Number.isFinite(frame.transform.scale)).toBe(true);
  });
});

describe('gestureCanvasViewport', () => {
  const drawn: Viewport = { x: 0, y: 0, zoom: 1 };

  test('a pan or a zoom-in draws for the view itself', () => {
    const panned = panBy(drawn, -700, 0);
    expect(gestureCanvasViewport(drawn, panned, 1280, 800)).toBe(panned);
    const zoomedIn = zoomAt(drawn, { x: 100, y: 100 }, 1.5);
    expect(gestureCanvasViewport(drawn, zoomedIn, 1280, 800)).toBe(zoomedIn);
  });

  test('a zoom-out draws for half the zoom around the screen centre: the canvas covers the view and twice as far', () => {
    const out = zoomAt(drawn, { x: 300, y: 200 }, 0.6);
    const ahead = gestureCanvasViewport(drawn, out, 1280, 800);
    expect(ahead.zoom).toBeCloseTo(0.3, 9);
    const covers = canvasFrame(ahead, 1280, 800, 1).covers;
    const view = visibleRect(out, 1280, 800);
    expect(covers.x).toBeLessThan(view.x - view.w / 2);
    expect(covers.x + covers.w).toBeGreaterThan(view.x + view.w * 1.5);
    expect(covers.y).toBeLessThan(view.y - view.h / 2);
    expect(covers.y + covers.h).toBeGreaterThan(view.y + view.h * 1.5);
  });

  test('at the least zoom there is nothing further out to draw', () => {
    const least = { x: 10, y: 10, zoom: MIN_ZOOM };
    expect(gestureCanvasViewport(drawn, least, 1280, 800)).toEqual(least);
  });
});

describe('overviewLayers', () => {
  const view = { x: 0, y: 0, w: 500, h: 400 };
  const board = [rect('a', 10, 10), rect('b', 2_000, 10), rect('c', 480, 390), rect('d', -5_000, -5_000), rect('e', 100, 100)];

  test('the canvas gets the elements in the rectangle, in drawing order; nothing is live without drags', () => {
    const { canvas, live } = overviewLayers(board, view, new Set());
    expect(canvas.map((e) => e.id)).toEqual(['a', 'c', 'e']);
    expect(live).toEqual([]);
  });

  test('an element being dragged is drawn live, not also on the canvas, wherever it is', () => {
    const { canvas, live } = overviewLayers(board, view, new Set(['c', 'd']));
    expect(canvas.map((e) => e.id)).toEqual(['a', 'e']);
    expect(live.map((e) => e.id)).toEqual(['c', 'd']);
  });
});

test('countInRect counts the elements whose ink reaches into the rectangle', () => {
  // The layout of e2e/renderLoad.ts: 50 columns 60 apart, 40 rows 50 apart, from (-1200, -800).
  const many = Array.from({ length: 2_000 }, (_, i) => rect(`e${i}`, (i % 50) * 60 - 1_200, Math.floor(i / 50) * 50 - 800));
  expect(countInRect(many, cullRect({ x: 640, y: 400, zoom: 0.1 }, 1280, 800))).toBe(2_000);
  const at100 = countInRect(many, cullRect({ x: 0, y: 0, zoom: 1 }, 1280, 800));
  // At 100 % the start view of the render-load board is past the threshold; at 250 % it is not.
  expect(overviewMode(false, at100)).toBe(true);
  expect(overviewMode(true, countInRect(many, cullRect(zoomAt({ x: 0, y: 0, zoom: 1 }, { x: 640, y: 400 }, 2.5), 1280, 800)))).toBe(false);
});

describe('changedAreas: what a repaint of the same view covers', () => {
  const covers = { x: -1_000, y: -1_000, w: 3_000, h: 3_000 };
  const a = rect('a', 10, 10);
  const b = rect('b', 200, 10);
  const c = rect('c', 400, 10);
  const content = (elements: Element[], leftOut: string[] = []): CanvasContent => ({ elements: new Map(elements.map((e) => [e.id, e])), leftOut: new Set(leftOut) });
  const areas = (painted: CanvasContent, now: CanvasContent) => changedAreas(painted, now, covers, cachedInkBounds);
  const inkOf = (e: Element) => cachedInkBounds(e.shape);

  test('nothing changed: nothing to repaint', () => {
    const painted = content([a, b]);
    expect(areas(painted, painted)).toEqual([]);
    // A new map holding the same element objects is no change either.
    expect(areas(painted, content([a, b]))).toEqual([]);
  });

  test('a moved element: where it was and where it is', () => {
    const moved = { ...b, version: 2, shape: { ...b.shape, x: 250 } };
    expect(areas(content([a, b]), content([a, moved]))).toEqual([inkOf(b), inkOf(moved)]);
  });

  test('an added and a deleted element: where each is or was', () => {
    expect(areas(content([a]), content([a, c]))).toEqual([inkOf(c)]);
    expect(areas(content([a, c]), content([a]))).toEqual([inkOf(c)]);
  });

  test('a drag that begins leaves a hole where the element was; one that ends fills it where it is', () => {
    expect(areas(content([a, b]), content([a, b], ['b']))).toEqual([inkOf(b)]);
    const dropped = { ...b, version: 2, shape: { ...b.shape, x: 300 } };
    expect(areas(content([a, b], ['b']), content([a, dropped]))).toEqual([inkOf(b), inkOf(dropped), inkOf(dropped)]);
  });

  test('changes outside the canvas cost nothing', () => {
    const far = rect('far', 50_000, 50_000);
    expect(areas(content([a]), content([a, far]))).toEqual([]);
  });

  test(`more than ${MAX_CHANGED_AREAS} areas: null, repaint everything`, () => {
    const many = Array.from({ length: MAX_CHANGED_AREAS + 1 }, (_, i) => rect(`n${i}`, i * 10, 500));
    expect(areas(content([a]), content([a, ...many]))).toBeNull();
    expect(areas(content([a]), content([a, ...many.slice(0, MAX_CHANGED_AREAS)]))).toHaveLength(MAX_CHANGED_AREAS);
  });
});

describe('canvasArea', () => {
  const frame = canvasFrame({ x: 0, y: 0, zoom: 2 }, 1280, 800, 1);

  test('is whole pixels around the area, one more each way, and maps back to the board', () => {
    // Board (10.3, 20.7)-(30.1, 40.2) at zoom 2 with the 320 × 200 px margin.
    const onCanvas = canvasArea({ x: 10.3, y: 20.7, w: 19.8, h: 19.5 }, frame)!;
    expect(onCanvas.pixels).toEqual({ x: 339, y: 240, w: 43, h: 42 });
    const t = frame.transform;
    expect(onCanvas.board.x * t.scale + t.x).toBeCloseTo(339, 9);
    expect((onCanvas.board.y + onCanvas.board.h) * t.scale + t.y).toBeCloseTo(282, 9);
  });

  test('is cut to the canvas, and null off it', () => {
    expect(canvasArea({ x: -1_000, y: -1_000, w: 900, h: 1_000 }, frame)!.pixels).toEqual({ x: 0, y: 0, w: 121, h: 201 });
    expect(canvasArea({ x: 5_000, y: 0, w: 10, h: 10 }, frame)).toBeNull();
  });
});

test('sameCanvasFrame: a repaint may be partial only for the same view, size and pixel ratio', () => {
  const vp: Viewport = { x: 10, y: 20, zoom: 0.5 };
  expect(sameCanvasFrame(canvasFrame(vp, 1280, 800, 1), canvasFrame({ ...vp }, 1280, 800, 1))).toBe(true);
  expect(sameCanvasFrame(canvasFrame(vp, 1280, 800, 1), canvasFrame(panBy(vp, 1, 0), 1280, 800, 1))).toBe(false);
  expect(sameCanvasFrame(canvasFrame(vp, 1280, 800, 1), canvasFrame(vp, 1280, 801, 1))).toBe(false);
  expect(sameCanvasFrame(canvasFrame(vp, 1280, 800, 1), canvasFrame(vp, 1280, 800, 2))).toBe(false);
});

describe('repaintAreas: what a repaint must cover', () => {
  const vp: Viewport = { x: 10, y: 20, zoom: 0.5 };
  const a = rect('a', 10, 10);
  const moved = { ...a, version: 2, shape: { ...a.shape, x: 60 } };
  const paint = (elements: Element[], frame = canvasFrame(vp, 1280, 800, 1)) => ({ elements: new Map(elements.map((e) => [e.id, e])), leftOut: new Set<string>(), frame });

  test('all of it when nothing is painted yet, or the frame changed (a pan, another size or pixel ratio)', () => {
    expect(repaintAreas(null, paint([a]), cachedInkBounds)).toBeNull();
    expect(repaintAreas(paint([a]), paint([moved], canvasFrame(panBy(vp, 1, 0), 1280, 800, 1)), cachedInkBounds)).toBeNull();
    expect(repaintAreas(paint([a]), paint([moved], canvasFrame(vp, 1280, 800, 2)), cachedInkBounds)).toBeNull();
  });

  test('for the same frame, the changed areas only', () => {
    expect(repaintAreas(paint([a]), paint([moved]), cachedInkBounds)).toEqual([cachedInkBounds(a.shape), cachedInkBounds(moved.shape)]);
    expect(repaintAreas(paint([a]), paint([a]), cachedInkBounds)).toEqual([]);
  });
});

test('canvasCovers is the board rectangle under the canvas\'s CSS box, at every pixel ratio', () => {
  for (const vp of [{ x: 0, y: 0, zoom: 1 }, { x: -333.3, y: 71, zoom: 0.37 }, { x: 12, y: -5, zoom: 4 }]) {
    const covers = canvasCovers(vp, 1280, 800);
    for (const ratio of [1, 1.5, 2, 3]) {
      const frame = canvasFrame(vp, 1280, 800, ratio);
      const topLeft = boardToScreen(vp, covers);
      const bottomRight = boardToScreen(vp, { x: covers.x + covers.w, y: covers.y + covers.h });
      expect(topLeft.x).toBeCloseTo(frame.left, 6);
      expect(topLeft.y).toBeCloseTo(frame.top, 6);
      expect(bottomRight.x).toBeCloseTo(frame.left + frame.cssWidth, 6);
      expect(bottomRight.y).toBeCloseTo(frame.top + frame.cssHeight, 6);
    }
  }
});
