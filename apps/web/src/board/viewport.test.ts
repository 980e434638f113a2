import { expect, test } from 'vitest';
import { MAX_ZOOM, MIN_ZOOM, boardToScreen, panBy, screenToBoard, wheelZoomFactor, zoomAt, type Viewport } from './viewport.ts';

const vp: Viewport = { x: 120, y: -40, zoom: 2 };

test('viewport: board and screen coordinates round-trip', () => {
  const p = { x: 13.5, y: -7 };
  expect(screenToBoard(vp, boardToScreen(vp, p))).toEqual(p);
});

test('viewport: zooming keeps the board point under the pointer fixed', () => {
  const anchor = { x: 300, y: 200 };
  const before = screenToBoard(vp, anchor);
  const after = zoomAt(vp, anchor, 1.7);
  const p = screenToBoard(after, anchor);
  expect(p.x).toBeCloseTo(before.x, 9);
  expect(p.y).toBeCloseTo(before.y, 9);
});

test('viewport: zoom is clamped both ways', () => {
  expect(zoomAt(vp, { x: 0, y: 0 }, 1e9).zoom).toBe(MAX_ZOOM);
  expect(zoomAt(vp, { x: 0, y: 0 }, 1e-9).zoom).toBe(MIN_ZOOM);
});

test('viewport: a wheel in and the same wheel out return to the same zoom', () => {
  expect(wheelZoomFactor(40) * wheelZoomFactor(-40)).toBeCloseTo(1, 12);
});

test('viewport: panning moves the screen, not the board', () => {
  const moved = panBy(vp, 10, 5);
  expect(boardToScreen(moved, { x: 0, y: 0 })).toEqual({ x: 130, y: -35 });
});
