import type { Element } from '@wb/protocol';
import type { Bounds } from '../elements/geometry.ts';
import { containsRect, countInRect, CULL_MARGIN_SCREENS, cullRect, visibleRect } from './culling.ts';
import { canvasCovers, gestureCanvasViewport, overviewMode } from './overview.ts';
import { gestureTransform, type Viewport } from './viewport.ts';

/**
 * What the element layer has drawn, and the pure decisions about when and what it redraws; the
 * element renderer (elementRenderer.ts) applies them to the DOM. Culling and the overview canvas's
 * geometry are culling.ts's and overview.ts's; this file composes them into the layer's states.
 *
 *   at rest ──view changes──▶ gesture: the plane is moved by planeTransform, nothing redrawn
 *   gesture ──gestureNeedsRedraw──▶ redrawnFor(gesture): drawn ahead of the view ──▶ gesture
 *   gesture ──SETTLE_MS without a view change──▶ redrawnFor(settled): exactly the view ──▶ at rest
 *   board changed ──recounted: the count crossed a threshold──▶ the other mode, same drawnFor
 *
 * Rules (named in drawnView.test.ts):
 * - [DV1] the mode is decided on the elements in the usual cull rect of the current view, never
 *   the wider area a gesture draws, so a mid-gesture count and the settle's agree; without a
 *   canvas (no 2D context) the layer stays SVG.
 * - [DV2] settled, the layer draws for exactly the view: SVG nodes with a quarter-screen margin, or
 *   the canvas over the view and that margin.
 * - [DV3] mid-gesture it draws ahead: SVG nodes a screen around the view; a zoom-out draws the
 *   canvas for half the zoom (a zoom-in, for the view).
 * - [DV4] a mid-gesture redraw happens only when the view left the drawn area and some element's
 *   ink lies outside that area.
 * - [DV5] a board change keeps the viewport drawn for; only a mode switch re-culls.
 * - [DV6] a drag redraws the elements (not only moves nodes) when it began or ended in a way the
 *   drawing must follow.
 */

export type LayerMode = 'elements' | 'overview';

export interface DrawnView {
  /** `overview`: settled elements on one canvas (overview.ts); `elements`: one SVG node each. */
  readonly mode: LayerMode;
  /** The viewport the SVG content and the canvas are drawn for; the plane's CSS transform covers the rest. */
  readonly drawnFor: Viewport;
  /** The board area whose elements are all drawn (as nodes, or on the canvas in overview mode). */
  readonly culled: Bounds;
}

/** The layer's size in CSS pixels (the board's). */
export interface LayerSize {
  readonly width: number;
  readonly height: number;
}

/**
 * Mid-gesture re-culls draw this many screens around the view instead of the usual margin: a
 * zoom-out grows the view on every wheel event, and re-culling on each one would rebuild the layer
 * every frame. The settle trims back to the usual margin.
 */
export const GESTURE_MARGIN_SCREENS = 1;

/** Before the first count: SVG nodes for `vp` with the usual margin. */
export function initialView(vp: Viewport, size: LayerSize): DrawnView {
  return { mode: 'elements', drawnFor: vp, culled: cullRect(vp, size.width, size.height) };
}

/** [DV1] The count the mode is decided on: elements in the usual cull rect of `vp`, the current view. */
export function countInView(ordered: readonly Element[], vp: Viewport, size: LayerSize): number {
  return countInRect(ordered, cullRect(vp, size.width, size.height));
}

/** [DV1] The mode for `inView` elements, given the current one (overview.ts's thresholds). */
export function modeFor(current: LayerMode, inView: number, canvas: boolean): LayerMode {
  return canvas && overviewMode(current === 'overview', inView) ? 'overview' : 'elements';
}

/**
 * [DV2, DV3] Drawn for a new viewport `vp`: at a settle, or mid-gesture (`gesture`) when the view
 * left the drawn area. A gesture draws more than the view: SVG nodes a screen around it, the
 * canvas (its size is the screen's) for half the zoom when zooming out.
 */
export function redrawnFor(view: DrawnView, vp: Viewport, inView: number, canvas: boolean, size: LayerSize, gesture: boolean): DrawnView {
  const mode = modeFor(view.mode, inView, canvas);
  if (mode === 'overview') {
    const drawnFor = gesture ? gestureCanvasViewport(view.drawnFor, vp, size.width, size.height) : vp;
    return { mode, drawnFor, culled: canvasCovers(drawnFor, size.width, size.height) };
  }
  return { mode, drawnFor: vp, culled: cullRect(vp, size.width, size.height, gesture ? GESTURE_MARGIN_SCREENS : CULL_MARGIN_SCREENS) };
}

/**
 * [DV5] The board changed (not the view): the same viewport drawn for, perhaps the other mode,
 * whose area is then culled as at a settle. The same object when the mode stays.
 */
export function recounted(view: DrawnView, inView: number, canvas: boolean, size: LayerSize): DrawnView {
  const mode = modeFor(view.mode, inView, canvas);
  if (mode === view.mode) return view;
  const { drawnFor } = view;
  return { mode, drawnFor, culled: mode === 'overview' ? canvasCovers(drawnFor, size.width, size.height) : cullRect(drawnFor, size.width, size.height) };
}

/**
 * [DV4] Whether the view `vp`, mid-gesture, needs a redraw: it left the drawn area, and not every
 * element's ink is drawn already (zooming out past the board's edges, a redraw would show only
 * more empty board and cost a long frame). `boardInk` (null for an empty board) is asked only once
 * the view has left the drawn area.
 */
export function gestureNeedsRedraw(view: DrawnView, vp: Viewport, size: LayerSize, boardInk: () => Bounds | null): boolean {
  if (containsRect(view.culled, visibleRect(vp, size.width, size.height))) return false;
  const ink = boardInk();
  return ink !== null && !containsRect(view.culled, ink);
}

/** The plane's CSS transform that shows content drawn for `drawnFor` as `vp` shows it ('' when none is needed). */
export function planeTransform(drawnFor: Viewport, vp: Viewport): string {
  // (The canvas may be drawn for less zoom than the view has.)
  const t = gestureTransform(drawnFor, vp);
  return t.scale === 1 && t.x === 0 && t.y === 0 ? '' : `translate(${t.x}px, ${t.y}px) scale(${t.scale})`;
}

/**
 * [DV6] Whether drags in progress (`moving`, by element id) changed in a way the drawing must
 * follow, beyond moving nodes: in overview mode an element whose drag began leaves the canvas
 * (`leftOut`: the elements left out at its last paint) and one whose drag ended returns to it;
 * otherwise a drag can bring a culled element into view, and dragged elements are always drawn
 * (`drawn`: the renderer's nodes). Drags of elements no longer on the board are ignored.
 */
export function dragsNeedRedraw(
  moving: ReadonlyMap<string, unknown>,
  elements: ReadonlyMap<string, Element>,
  mode: LayerMode,
  leftOut: ReadonlySet<string>,
  drawn: ReadonlyMap<string, { readonly mounted: boolean }>,
): boolean {
  const overview = mode === 'overview';
  let count = 0;
  for (const id of moving.keys()) {
    if (!elements.has(id)) continue;
    if (overview ? !leftOut.has(id) : drawn.get(id)?.mounted !== true) return true;
    count++;
  }
  return overview && count !== leftOut.size;
}
