import type { Element, ElementShape } from '@wb/protocol';
import { inkBounds, unionBounds, type Bounds } from '../elements/geometry.ts';
import { screenToBoard, type Viewport } from './viewport.ts';

/**
 * Viewport culling: which elements the board puts in the DOM. Only elements whose ink reaches
 * into the view plus a margin are drawn; everything else (hit tests, export, undo) reads the
 * store, not the DOM, so a culled element is still fully on the board.
 *
 * The margin lets a pan run for a while on what is already drawn; the layer re-culls when the
 * view leaves the culled area, and again when a gesture settles.
 */

/**
 * Extra area drawn on each side of the view, in screens: a quarter of a screen left, right, above
 * and below. Larger margins re-cull less often during a pan but draw more (at 0.5 the view and its
 * margin already cover 4 screens' worth of board).
 */
export const CULL_MARGIN_SCREENS = 0.25;

/**
 * Ink bounds per shape object. Shapes are immutable and the sync engine keeps the identity of
 * unchanged elements, so a pen stroke's points are scanned once, not on every cull.
 */
const inkCache = new WeakMap<ElementShape, Bounds>();

export function cachedInkBounds(shape: ElementShape): Bounds {
  let b = inkCache.get(shape);
  if (!b) {
    b = inkBounds(shape);
    inkCache.set(shape, b);
  }
  return b;
}

/** The board rectangle a viewport shows on a screen of `width` × `height` px. */
export function visibleRect(vp: Viewport, width: number, height: number): Bounds {
  const corner = screenToBoard(vp, { x: 0, y: 0 });
  return { x: corner.x, y: corner.y, w: width / vp.zoom, h: height / vp.zoom };
}

/** The rectangle to draw for a view: the visible one plus `margin` screens on every side. */
export function cullRect(vp: Viewport, width: number, height: number, margin = CULL_MARGIN_SCREENS): Bounds {
  const view = visibleRect(vp, width, height);
  const mx = view.w * margin;
  const my = view.h * margin;
  return { x: view.x - mx, y: view.y - my, w: view.w + 2 * mx, h: view.h + 2 * my };
}

/** Whether two rectangles overlap (touching edges count: a hairline on the edge is still ink). */
export function intersects(a: Bounds, b: Bounds): boolean {
  return a.x <= b.x + b.w && b.x <= a.x + a.w && a.y <= b.y + b.h && b.y <= a.y + a.h;
}

export function containsRect(outer: Bounds, inner: Bounds): boolean {
  return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.w <= outer.x + outer.w && inner.y + inner.h <= outer.y + outer.h;
}

/** Whether an element's ink reaches into `rect`. */
export function inRect(element: Element, rect: Bounds): boolean {
  return intersects(cachedInkBounds(element.shape), rect);
}

/**
 * The elements to draw for `rect`, in drawing order. Elements in `always` are drawn wherever
 * their confirmed position is: a drag in progress shows them somewhere else.
 */
export function elementsToDraw(ordered: readonly Element[], rect: Bounds, always?: { has(id: string): boolean }): Element[] {
  return ordered.filter((e) => always?.has(e.id) === true || inRect(e, rect));
}

/** How many elements reach into `rect`: what the overview mode decides on (overview.ts). */
export function countInRect(ordered: readonly Element[], rect: Bounds): number {
  let n = 0;
  for (const e of ordered) if (inRect(e, rect)) n++;
  return n;
}

/**
 * The ink of every element on the board: once the drawn area holds it, a view that leaves the
 * drawn area mid-gesture (a zoom-out past the board's edges) shows only more empty board, and the
 * layer need not redraw. Null for an empty board.
 */
export function boardInkBounds(ordered: readonly Element[]): Bounds | null {
  return unionBounds(ordered.map((e) => cachedInkBounds(e.shape)));
}
