import type { Element, ElementShape } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { inkBounds } from '../elements/geometry.ts';
import { boardInkBounds, cachedInkBounds, containsRect, cullRect, elementsToDraw, intersects, visibleRect } from './culling.ts';
import { boardToScreen, gestureTransform, panBy, zoomAt, type Viewport } from './viewport.ts';

const rect = (id: string, x: number, y: number, w = 40, h = 30): Element => ({
  id,
  shape: { kind: 'rect', x, y, w, h, stroke: '#000000', fill: 'transparent', strokeWidth: 2 },
  z: 0,
  version: 1,
  lock: null,
  pinned: false,
  createdBy: 'u1', updatedBy: 'u1',
});

describe('visibleRect', () => {
  test('at 100% and no pan it is the screen', () => {
    expect(visibleRect({ x: 0, y: 0, zoom: 1 }, 1280, 800)).toEqual({ x: 0, y: 0, w: 1280, h: 800 });
  });

  test('its corners are the screen corners mapped to the board', () => {
    const vp: Viewport = { x: 300, y: -120, zoom: 2.5 };
    const r = visibleRect(vp, 1000, 600);
    expect(boardToScreen(vp, { x: r.x, y: r.y })).toEqual({ x: 0, y: 0 });
    const far = boardToScreen(vp, { x: r.x + r.w, y: r.y + r.h });
    expect(far.x).toBeCloseTo(1000);
    expect(far.y).toBeCloseTo(600);
  });
});

test('cullRect adds a quarter of a screen on every side', () => {
  expect(cullRect({ x: 0, y: 0, zoom: 2 }, 1000, 600)).toEqual({ x: -125, y: -75, w: 750, h: 450 });
});

test.each([
  ['overlapping', { x: 0, y: 0, w: 10, h: 10 }, { x: 5, y: 5, w: 10, h: 10 }, true],
  ['touching edges', { x: 0, y: 0, w: 10, h: 10 }, { x: 10, y: 0, w: 5, h: 5 }, true],
  ['one inside the other', { x: 0, y: 0, w: 100, h: 100 }, { x: 40, y: 40, w: 1, h: 1 }, true],
  ['apart on x', { x: 0, y: 0, w: 10, h: 10 }, { x: 11, y: 0, w: 5, h: 5 }, false],
  ['apart on y', { x: 0, y: 0, w: 10, h: 10 }, { x: 0, y: -6, w: 5, h: 5 }, false],
  ['a zero-size point inside', { x: 0, y: 0, w: 10, h: 10 }, { x: 3, y: 3, w: 0, h: 0 }, true],
])('intersects: %s', (_name, a, b, expected) => {
  expect(intersects(a, b)).toBe(expected);
  expect(intersects(b, a)).toBe(expected);
});

test('containsRect', () => {
  const outer = { x: 0, y: 0, w: 100, h: 100 };
  expect(containsRect(outer, { x: 0, y: 0, w: 100, h: 100 })).toBe(true);
  expect(containsRect(outer, { x: 10, y: 10, w: 20, h: 20 })).toBe(true);
  expect(containsRect(outer, { x: 90, y: 10, w: 20, h: 20 })).toBe(false);
  expect(containsRect(outer, { x: -1, y: 10, w: 5, h: 5 })).toBe(false);
});

describe('elementsToDraw', () => {
  const view = { x: 0, y: 0, w: 500, h: 400 };
  const board = [rect('a', 10, 10), rect('b', 2_000, 10), rect('c', 480, 390), rect('d', -5_000, -5_000), rect('e', 100, 100)];

  test('keeps the elements that reach into the rectangle, in drawing order', () => {
    expect(elementsToDraw(board, view).map((e) => e.id)).toEqual(['a', 'c', 'e']);
  });

  test('counts ink, not only geometry: a stroke just outside still shows its edge', () => {
    // Geometry ends 5 units left of the view; the stroke and its caps reach into it.
    expect(elementsToDraw([rect('near', -45, 10)], view).map((e) => e.id)).toEqual(['near']);
    expect(elementsToDraw([rect('far', -100, 10)], view)).toEqual([]);
  });

  test('draws an element being dragged wherever its confirmed position is', () => {
    const dragging = new Map([['d', { x: 20, y: 20 }]]);
    expect(elementsToDraw(board, view, dragging).map((e) => e.id)).toEqual(['a', 'c', 'd', 'e']);
  });

  test('a pen stroke is culled by its points, not its anchor', () => {
    const pen: Element = {
      ...rect('p', 0, 0),
      shape: { kind: 'pen', x: -1_000, y: 0, points: [[0, 0, 0.5], [1_100, 50, 0.5]], stroke: '#000000', strokeWidth: 3 },
    };
    expect(elementsToDraw([pen], view).map((e) => e.id)).toEqual(['p']);
    expect(elementsToDraw([pen], { x: 200, y: 0, w: 100, h: 100 })).toEqual([]);
  });

  test('2,000 elements in a grid: a 1280×800 view draws only its neighbourhood', () => {
    // The layout of e2e/renderLoad.ts: 50 columns 60 apart, 40 rows 50 apart, from (-1200, -800).
    const many = Array.from({ length: 2_000 }, (_, i) => rect(`e${i}`, (i % 50) * 60 - 1_200, Math.floor(i / 50) * 50 - 800));
    const vp: Viewport = { x: 0, y: 0, zoom: 1 };
    const drawnAt100 = elementsToDraw(many, cullRect(vp, 1280, 800));
    expect(drawnAt100.length).toBeLessThan(many.length / 2);
    // Everything the screen shows is among them.
    const onScreen = elementsToDraw(many, visibleRect(vp, 1280, 800));
    expect(onScreen.length).toBeGreaterThan(0);
    const drawnIds = new Set(drawnAt100.map((e) => e.id));
    expect(onScreen.every((e) => drawnIds.has(e.id))).toBe(true);
    // Zoomed out to 10% the whole board is in view.
    expect(elementsToDraw(many, cullRect({ x: 640, y: 400, zoom: 0.1 }, 1280, 800))).toHaveLength(2_000);
  });
});

test('cachedInkBounds: computed once per shape object, equal to inkBounds', () => {
  const shape: ElementShape = { kind: 'pen', x: 5, y: 5, points: [[0, 0, 0.5], [10, 20, 0.5]], stroke: '#000000', strokeWidth: 4 };
  const first = cachedInkBounds(shape);
  expect(first).toEqual(inkBounds(shape));
  expect(cachedInkBounds(shape)).toBe(first);
  // A moved copy is a new object with new bounds.
  expect(cachedInkBounds({ ...shape, x: 50 }).x).toBe(first.x + 45);
});

describe('gestureTransform', () => {
  const drawn: Viewport = { x: 120, y: -40, zoom: 1.5 };
  const cases: Array<[string, Viewport]> = [
    ['no change', drawn],
    ['a pan', panBy(drawn, -300, 75)],
    ['a zoom around a point', zoomAt(drawn, { x: 400, y: 300 }, 2.2)],
    ['a zoom then a pan', panBy(zoomAt(drawn, { x: 10, y: 700 }, 0.3), 50, 50)],
  ];
  test.each(cases)('%s: the drawn content lands where the new viewport puts it', (_name, current) => {
    const t = gestureTransform(drawn, current);
    for (const p of [{ x: 0, y: 0 }, { x: 250, y: -80 }, { x: -1_000, y: 3_000 }]) {
      const wasAt = boardToScreen(drawn, p);
      const expected = boardToScreen(current, p);
      expect(wasAt.x * t.scale + t.x).toBeCloseTo(expected.x, 6);
      expect(wasAt.y * t.scale + t.y).toBeCloseTo(expected.y, 6);
    }
  });

  test('is the identity when nothing moved', () => {
    expect(gestureTransform(drawn, drawn)).toEqual({ x: 0, y: 0, scale: 1 });
  });
});

describe('board ink', () => {
  test('is the union of every element’s ink, and null on an empty board', () => {
    const a = rect('a', -100, 20, 50, 10);
    const b = rect('b', 300, -40, 20, 20);
    const ink = boardInkBounds([a, b])!;
    const inkA = inkBounds(a.shape);
    const inkB = inkBounds(b.shape);
    expect(ink).toEqual({ x: inkA.x, y: inkB.y, w: inkB.x + inkB.w - inkA.x, h: inkA.y + inkA.h - inkB.y });
    expect(containsRect(ink, inkA) && containsRect(ink, inkB)).toBe(true);
    expect(boardInkBounds([])).toBeNull();
  });
});
