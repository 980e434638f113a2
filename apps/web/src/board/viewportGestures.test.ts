import { describe, expect, test } from 'vitest';
import { KEY_PAN_PX, MAX_ZOOM, screenToBoard, ZOOM_STEP, type Point, type Viewport } from './viewport.ts';
import {
  arrowPanViewport,
  keyZoomViewport,
  pinchOf,
  pinchViewport,
  surfacePoint,
  wheelPanViewport,
  wheelZooms,
  wheelZoomViewport,
  type WheelInput,
} from './viewportGestures.ts';

const vp: Viewport = { x: 120, y: -40, zoom: 2 };

const wheel = (fields: Partial<WheelInput>): WheelInput => ({ deltaX: 0, deltaY: 0, deltaMode: 0, shiftKey: false, ctrlKey: false, metaKey: false, ...fields });

function expectSameBoardPoint(a: Viewport, b: Viewport, at: Point) {
  const p = screenToBoard(a, at);
  const q = screenToBoard(b, at);
  expect(q.x).toBeCloseTo(p.x, 9);
  expect(q.y).toBeCloseTo(p.y, 9);
}

test('surfacePoint: a pointer in the surface\'s pixels, from its client position', () => {
  expect(surfacePoint({ getBoundingClientRect: () => ({ left: 30, top: 64 }) }, { clientX: 130, clientY: 70 })).toEqual({ x: 100, y: 6 });
});

describe('the wheel: ctrl/cmd zooms about the pointer, otherwise the board scrolls', () => {
  test('ctrl or cmd makes it a zoom (a trackpad pinch arrives as ctrl+wheel)', () => {
    expect(wheelZooms(wheel({ ctrlKey: true }))).toBe(true);
    expect(wheelZooms(wheel({ metaKey: true }))).toBe(true);
    expect(wheelZooms(wheel({ shiftKey: true }))).toBe(false);
  });

  test('a zoom keeps the board point under the pointer; up zooms in, down out', () => {
    const at = { x: 300, y: 200 };
    const zoomedIn = wheelZoomViewport(vp, wheel({ ctrlKey: true, deltaY: -40 }), at);
    expect(zoomedIn.zoom).toBeCloseTo(vp.zoom * Math.exp(0.4), 9);
    expectSameBoardPoint(vp, zoomedIn, at);
    expect(wheelZoomViewport(vp, wheel({ ctrlKey: true, deltaY: 40 }), at).zoom).toBeLessThan(vp.zoom);
  });

  test('deltas in lines count 16 pixels each', () => {
    const at = { x: 0, y: 0 };
    expect(wheelZoomViewport(vp, wheel({ ctrlKey: true, deltaY: -2, deltaMode: 1 }), at)).toEqual(wheelZoomViewport(vp, wheel({ ctrlKey: true, deltaY: -32 }), at));
    expect(wheelPanViewport(vp, wheel({ deltaX: 1, deltaY: 3, deltaMode: 1 }))).toEqual({ ...vp, x: vp.x - 16, y: vp.y - 48 });
  });

  test('a scroll moves the board against the deltas, at any zoom by screen pixels', () => {
    expect(wheelPanViewport(vp, wheel({ deltaX: 30, deltaY: 120 }))).toEqual({ ...vp, x: vp.x - 30, y: vp.y - 120 });
  });

  test('shift turns a vertical-only wheel sideways; a wheel with its own deltaX is left as it is', () => {
    expect(wheelPanViewport(vp, wheel({ shiftKey: true, deltaY: 50 }))).toEqual({ ...vp, x: vp.x - 50 });
    expect(wheelPanViewport(vp, wheel({ shiftKey: true, deltaX: 10, deltaY: 50 }))).toEqual({ ...vp, x: vp.x - 10, y: vp.y - 50 });
  });
});

describe('keys: + and - zoom a step about the pointer, 0 resets to 100 % about the centre, arrows pan', () => {
  const pointer = { x: 300, y: 200 };
  const center = { x: 640, y: 400 };

  test.each(['+', '='])('%s zooms in a step about the pointer', (key) => {
    const next = keyZoomViewport(vp, key, pointer, center)!;
    expect(next.zoom).toBeCloseTo(vp.zoom * ZOOM_STEP, 9);
    expectSameBoardPoint(vp, next, pointer);
  });

  test.each(['-', '_'])('%s zooms out a step about the pointer', (key) => {
    const next = keyZoomViewport(vp, key, pointer, center)!;
    expect(next.zoom).toBeCloseTo(vp.zoom / ZOOM_STEP, 9);
    expectSameBoardPoint(vp, next, pointer);
  });

  test('0 goes back to 100 % keeping the centre of the screen', () => {
    const next = keyZoomViewport(vp, '0', pointer, center)!;
    expect(next.zoom).toBe(1);
    expectSameBoardPoint(vp, next, center);
  });

  test('other keys are not zoom keys', () => {
    expect(keyZoomViewport(vp, 'z', pointer, center)).toBeNull();
    expect(arrowPanViewport(vp, 'Enter')).toBeNull();
  });

  test.each([
    ['ArrowLeft', KEY_PAN_PX, 0],
    ['ArrowRight', -KEY_PAN_PX, 0],
    ['ArrowUp', 0, KEY_PAN_PX],
    ['ArrowDown', 0, -KEY_PAN_PX],
  ])('%s shows what lies that way (the board moves by %i, %i)', (key, dx, dy) => {
    expect(arrowPanViewport(vp, key)).toEqual({ ...vp, x: vp.x + dx, y: vp.y + dy });
  });
});

describe('two fingers pan and pinch-zoom', () => {
  const touches = (...points: Point[]) => new Map(points.map((p, i) => [i + 10, p]));

  test('a pinch needs two touches, and is made by the first two down', () => {
    expect(pinchOf(touches())).toBeNull();
    expect(pinchOf(touches({ x: 0, y: 0 }))).toBeNull();
    expect(pinchOf(touches({ x: 0, y: 0 }, { x: 30, y: 40 }, { x: 1_000, y: 1_000 }))).toEqual({ center: { x: 15, y: 20 }, distance: 50 });
  });

  test('fingers moving together pan the board with them', () => {
    const from = pinchOf(touches({ x: 100, y: 100 }, { x: 200, y: 100 }))!;
    const to = pinchOf(touches({ x: 130, y: 80 }, { x: 230, y: 80 }))!;
    expect(pinchViewport(vp, from, to)).toEqual({ ...vp, x: vp.x + 30, y: vp.y - 20 });
  });

  test('fingers spreading zoom by their spread, and the board point between them follows their centre', () => {
    const from = pinchOf(touches({ x: 100, y: 100 }, { x: 200, y: 100 }))!;
    const to = pinchOf(touches({ x: 60, y: 120 }, { x: 260, y: 120 }))!;
    const next = pinchViewport(vp, from, to);
    expect(next.zoom).toBeCloseTo(vp.zoom * 2, 9);
    const under = screenToBoard(vp, from.center);
    const now = screenToBoard(next, to.center);
    expect(now.x).toBeCloseTo(under.x, 9);
    expect(now.y).toBeCloseTo(under.y, 9);
  });

  test('the zoom is clamped, and two fingers on one spot only pan', () => {
    const from = pinchOf(touches({ x: 100, y: 100 }, { x: 101, y: 100 }))!;
    const to = pinchOf(touches({ x: 0, y: 100 }, { x: 1_000, y: 100 }))!;
    expect(pinchViewport(vp, from, to).zoom).toBe(MAX_ZOOM);
    const together = pinchOf(touches({ x: 50, y: 50 }, { x: 50, y: 50 }))!;
    const moved = pinchOf(touches({ x: 60, y: 50 }, { x: 80, y: 50 }))!;
    expect(pinchViewport(vp, together, moved)).toEqual({ ...vp, x: vp.x + 20 });
  });
});
