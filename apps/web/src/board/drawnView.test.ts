import type { Element } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import type { Bounds } from '../elements/geometry.ts';
import { containsRect, CULL_MARGIN_SCREENS, cullRect, visibleRect } from './culling.ts';
import {
  countInView,
  dragsNeedRedraw,
  GESTURE_MARGIN_SCREENS,
  gestureNeedsRedraw,
  initialView,
  modeFor,
  planeTransform,
  recounted,
  redrawnFor,
  type DrawnView,
  type LayerMode,
} from './drawnView.ts';
import { canvasCovers, canvasFrame, OVERVIEW_ENTER_ELEMENTS, OVERVIEW_LEAVE_ELEMENTS, ZOOM_OUT_AHEAD } from './overview.ts';
import { boardToScreen, panBy, zoomAt, type Viewport } from './viewport.ts';

const size = { width: 1280, height: 800 };
const home: Viewport = { x: 0, y: 0, zoom: 1 };

const rect = (id: string, x: number, y: number): Element => ({
  id,
  shape: { kind: 'rect', x, y, w: 40, h: 30, stroke: '#000000', fill: 'transparent', strokeWidth: 2 },
  z: 0,
  version: 1,
  lock: null,
  pinned: false,
  createdBy: 'u1', updatedBy: 'u1',
});

const byId = (elements: readonly Element[]) => new Map(elements.map((e) => [e.id, e]));

/** Replays view changes through the renderer's transitions, as elementRenderer.ts applies them. */
function gesture(start: DrawnView, steps: readonly Viewport[], inView: number, ink: Bounds | null): { view: DrawnView; redraws: number } {
  let view = start;
  let redraws = 0;
  for (const vp of steps) {
    if (!gestureNeedsRedraw(view, vp, size, () => ink)) continue;
    view = redrawnFor(view, vp, inView, true, size, true);
    redraws++;
  }
  return { view, redraws };
}

describe('[DV1] the mode is decided on the elements in the usual cull rect of the current view', () => {
  test.each<[LayerMode, number, boolean, LayerMode]>([
    // [mode now, elements in view, a canvas to draw on, mode next]
    ['elements', OVERVIEW_ENTER_ELEMENTS, true, 'elements'],
    ['elements', OVERVIEW_ENTER_ELEMENTS + 1, true, 'overview'],
    ['overview', OVERVIEW_LEAVE_ELEMENTS, true, 'overview'],
    ['overview', OVERVIEW_LEAVE_ELEMENTS - 1, true, 'elements'],
    ['elements', 5_000, false, 'elements'],
    ['overview', 5_000, false, 'elements'],
  ])('%s with %i in view (canvas %s): %s', (current, inView, canvas, expected) => {
    expect(modeFor(current, inView, canvas)).toBe(expected);
  });

  test('the count is taken in the quarter-screen cull rect of the view, not in a wider area drawn for a gesture', () => {
    // One element a quarter screen right of the view (inside the margin), one half a screen right (outside).
    const inMargin = rect('a', size.width + size.width * CULL_MARGIN_SCREENS - 50, 100);
    const beyond = rect('b', size.width * 1.5, 100);
    expect(countInView([inMargin, beyond], home, size)).toBe(1);
  });
});

describe('[DV2] settled, the layer draws for exactly the view', () => {
  const vp: Viewport = { x: -300, y: 120, zoom: 1.5 };

  test('in elements mode: SVG nodes for the view and a quarter screen on every side', () => {
    const view = redrawnFor(initialView(home, size), vp, 10, true, size, false);
    expect(view).toEqual({ mode: 'elements', drawnFor: vp, culled: cullRect(vp, size.width, size.height, CULL_MARGIN_SCREENS) });
  });

  test('in overview mode: the canvas over the view and its margin, whatever the pixel ratio', () => {
    const view = redrawnFor(initialView(home, size), vp, OVERVIEW_ENTER_ELEMENTS + 1, true, size, false);
    expect(view.mode).toBe('overview');
    expect(view.drawnFor).toBe(vp);
    for (const ratio of [1, 2, 3]) expect(view.culled).toEqual(canvasFrame(vp, size.width, size.height, ratio).covers);
  });

  test('the first view is SVG nodes with the usual margin, before anything is counted', () => {
    expect(initialView(vp, size)).toEqual({ mode: 'elements', drawnFor: vp, culled: cullRect(vp, size.width, size.height) });
  });
});

describe('[DV3] mid-gesture the layer draws ahead of the view', () => {
  test('in elements mode: SVG nodes a screen around the view', () => {
    const vp = panBy(home, -2_000, 0);
    const view = redrawnFor(initialView(home, size), vp, 10, true, size, true);
    expect(view.drawnFor).toBe(vp);
    expect(view.culled).toEqual(cullRect(vp, size.width, size.height, GESTURE_MARGIN_SCREENS));
  });

  test('in overview mode a zoom-out draws the canvas for half the zoom, centred on the screen', () => {
    const start = redrawnFor(initialView(home, size), home, 2_000, true, size, false);
    const vp = zoomAt(home, { x: 640, y: 400 }, 0.8);
    const view = redrawnFor(start, vp, 2_000, true, size, true);
    expect(view.drawnFor.zoom).toBeCloseTo(vp.zoom * ZOOM_OUT_AHEAD);
    // The screen's centre shows the same board point in both.
    const centre = boardToScreen(view.drawnFor, { x: (640 - vp.x) / vp.zoom, y: (400 - vp.y) / vp.zoom });
    expect(centre.x).toBeCloseTo(640);
    expect(centre.y).toBeCloseTo(400);
    expect(view.culled).toEqual(canvasCovers(view.drawnFor, size.width, size.height));
    expect(containsRect(view.culled, visibleRect(vp, size.width, size.height))).toBe(true);
  });

  test('in overview mode a pan or zoom-in draws the canvas for the view', () => {
    const start = redrawnFor(initialView(home, size), home, 2_000, true, size, false);
    for (const vp of [panBy(home, 900, 0), zoomAt(home, { x: 100, y: 100 }, 2)]) {
      const view = redrawnFor(start, vp, 2_000, true, size, true);
      expect(view.drawnFor).toBe(vp);
      expect(view.culled).toEqual(canvasCovers(vp, size.width, size.height));
    }
  });

  test('a settle after a gesture trims the area back to the usual margin', () => {
    const vp = panBy(home, -2_000, 0);
    const moving = redrawnFor(initialView(home, size), vp, 10, true, size, true);
    const settled = redrawnFor(moving, vp, 10, true, size, false);
    expect(settled.culled).toEqual(cullRect(vp, size.width, size.height, CULL_MARGIN_SCREENS));
    expect(containsRect(moving.culled, settled.culled)).toBe(true);
  });
});

describe('[DV4] a mid-gesture redraw only when the view left the drawn area and some ink lies outside it', () => {
  const start = initialView(home, size);
  const farInk: Bounds = { x: -5_000, y: -5_000, w: 10_000, h: 10_000 };

  test('a pan within the margin redraws nothing, and does not ask for the board ink', () => {
    let asked = 0;
    const needs = gestureNeedsRedraw(start, panBy(home, -size.width * CULL_MARGIN_SCREENS, 0), size, () => {
      asked++;
      return farInk;
    });
    expect(needs).toBe(false);
    expect(asked).toBe(0);
  });

  test('a pan past the margin redraws when ink lies beyond the drawn area', () => {
    expect(gestureNeedsRedraw(start, panBy(home, -size.width * CULL_MARGIN_SCREENS - 1, 0), size, () => farInk)).toBe(true);
  });

  test('a zoom-out past the board edges redraws nothing once all the ink is drawn, nor on an empty board', () => {
    const inkDrawn: Bounds = { x: 100, y: 100, w: 200, h: 200 };
    const out = zoomAt(home, { x: 640, y: 400 }, 0.5);
    expect(gestureNeedsRedraw(start, out, size, () => inkDrawn)).toBe(false);
    expect(gestureNeedsRedraw(start, out, size, () => null)).toBe(false);
    expect(gestureNeedsRedraw(start, out, size, () => farInk)).toBe(true);
  });

  test('a long pan in elements mode redraws once a screen ahead, not on every step', () => {
    const steps = Array.from({ length: 60 }, (_, i) => panBy(home, -(i + 1) * 20, 0));
    // 1,200 px: the first redraw comes past the quarter-screen margin, and its screen ahead covers the rest.
    expect(gesture(start, steps, 10, farInk).redraws).toBe(1);
  });

  test('a zoom-out in overview mode redraws for half the zoom, then scales that raster for the next steps', () => {
    const overview = redrawnFor(start, home, 2_000, true, size, false);
    const steps = Array.from({ length: 6 }, (_, i) => zoomAt(home, { x: 640, y: 400 }, Math.pow(0.9, i + 1)));
    const { view, redraws } = gesture(overview, steps, 2_000, farInk);
    expect(redraws).toBe(1);
    expect(view.drawnFor.zoom).toBeLessThan(steps.at(-1)!.zoom);
  });
});

describe('[DV5] a board change keeps the viewport drawn for; only a mode switch re-culls', () => {
  const vp = panBy(home, -200, 50);
  const drawn = redrawnFor(initialView(home, size), vp, 10, true, size, true);

  test('the same mode: the very same state (nothing to redraw for)', () => {
    expect(recounted(drawn, 20, true, size)).toBe(drawn);
  });

  test('into overview mode: the canvas for the viewport drawn for', () => {
    const next = recounted(drawn, OVERVIEW_ENTER_ELEMENTS + 1, true, size);
    expect(next).toEqual({ mode: 'overview', drawnFor: vp, culled: canvasCovers(vp, size.width, size.height) });
  });

  test('out of overview mode: SVG nodes with the usual margin, not the gesture margin', () => {
    const overview = recounted(drawn, 2_000, true, size);
    const next = recounted(overview, OVERVIEW_LEAVE_ELEMENTS - 1, true, size);
    expect(next).toEqual({ mode: 'elements', drawnFor: vp, culled: cullRect(vp, size.width, size.height, CULL_MARGIN_SCREENS) });
  });

  test('without a canvas, no count switches the mode', () => {
    expect(recounted(drawn, 5_000, false, size)).toBe(drawn);
  });
});

describe('[DV6] drags redraw the elements only when they began or ended in a way the drawing must follow', () => {
  const elements = byId([rect('a', 0, 0), rect('b', 100, 0), rect('c', 5_000, 0)]);
  const drawn = new Map([
    ['a', { mounted: true }],
    ['b', { mounted: true }],
    ['c', { mounted: false }],
  ]);
  const moving = (...ids: string[]) => new Map(ids.map((id) => [id, { x: 1, y: 1 }]));

  test.each<[string, ReadonlyMap<string, unknown>, LayerMode, ReadonlySet<string>, boolean]>([
    ['elements: a drawn element moves', moving('a'), 'elements', new Set(), false],
    ['elements: a culled element is dragged into view', moving('c'), 'elements', new Set(), true],
    ['elements: a drag ends', moving(), 'elements', new Set(), false],
    ['elements: a drag of a deleted element', moving('gone'), 'elements', new Set(), false],
    ['overview: a drag begins (the element leaves the canvas)', moving('a'), 'overview', new Set(), true],
    ['overview: the same drags as at the last paint', moving('a', 'b'), 'overview', new Set(['a', 'b']), false],
    ['overview: one of two drags ends (the element returns)', moving('a'), 'overview', new Set(['a', 'b']), true],
    ['overview: the last drag ends', moving(), 'overview', new Set(['a']), true],
    ['overview: a drag of a deleted element', moving('gone'), 'overview', new Set(), false],
  ])('%s: %s', (_, previews, mode, leftOut, expected) => {
    expect(dragsNeedRedraw(previews, elements, mode, leftOut, drawn)).toBe(expected);
  });
});

describe('planeTransform: the plane shows what was drawn for one viewport as another shows it', () => {
  test('none when the view is the one drawn for', () => {
    expect(planeTransform(home, { ...home })).toBe('');
  });

  test('a pan translates, a zoom scales about the top-left corner', () => {
    expect(planeTransform(home, panBy(home, 30, -12))).toBe('translate(30px, -12px) scale(1)');
    expect(planeTransform(home, { x: 0, y: 0, zoom: 2 })).toBe('translate(0px, 0px) scale(2)');
  });
});
