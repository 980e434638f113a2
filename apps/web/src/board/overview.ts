import type { Element, ElementShape } from '@wb/protocol';
import type { Bounds } from '../elements/geometry.ts';
import { CULL_MARGIN_SCREENS, inRect, intersects } from './culling.ts';
import { zoomAt, type Viewport } from './viewport.ts';

/**
 * Overview mode: when a view holds many elements, the element layer draws the settled ones into
 * one canvas instead of one SVG node each. Chromium's per-frame layerization, paint and layout
 * grow with the number of SVG nodes on screen (zoomed out on 2,000 elements: 50-226 ms a frame
 * under 30 moving cursors); a canvas is one paint chunk however much it shows. Elements in motion
 * (drag previews), the draft and the overlay stay live SVG on top of it.
 *
 * The pure half lives here: when the mode is on, and where the canvas sits.
 */

/**
 * Enter overview mode when more elements than this are in the cull rect (the view plus its
 * margin), leave it when fewer than OVERVIEW_LEAVE_ELEMENTS are. The gap keeps a view near the
 * threshold from switching back and forth as elements come and go or a pan shifts the count.
 * Measured in bench/HISTORY.md ("overview canvas", 2026-11-30): what the counts were chosen from.
 */
export const OVERVIEW_ENTER_ELEMENTS = 500;
export const OVERVIEW_LEAVE_ELEMENTS = 350;

/** Whether the layer should be in overview mode, given whether it is and the count in view. */
export function overviewMode(current: boolean, inView: number): boolean {
  return current ? inView >= OVERVIEW_LEAVE_ELEMENTS : inView > OVERVIEW_ENTER_ELEMENTS;
}

/**
 * The canvas's backing store is capped at this many pixels (16 M: 64 MB of RGBA), scaling the
 * device pixel ratio down for it: a 1920 × 1080 screen at ratio 2 with the margin would be 19 M.
 */
export const MAX_CANVAS_PIXELS = 16_000_000;

/** Where the overview canvas sits in the plane, how many pixels it has, and what it shows. */
export interface CanvasFrame {
  /** CSS placement relative to the plane's origin (the screen's top-left corner when settled). */
  readonly left: number;
  readonly top: number;
  readonly cssWidth: number;
  readonly cssHeight: number;
  /** The backing store, in device pixels. */
  readonly pixelWidth: number;
  readonly pixelHeight: number;
  /** Board → canvas pixels: pixel = board * scale + (x, y). */
  readonly transform: { readonly scale: number; readonly x: number; readonly y: number };
  /** The board rectangle the canvas shows: the elements to draw are those reaching into it. */
  readonly covers: Bounds;
}

/**
 * The canvas for a viewport on a `width` × `height` px layer: the screen plus the cull margin on
 * every side (so a pan runs on what is drawn, as the SVG path does), at the device pixel ratio.
 */
export function canvasFrame(vp: Viewport, width: number, height: number, pixelRatio: number): CanvasFrame {
  const mx = Math.round(width * CULL_MARGIN_SCREENS);
  const my = Math.round(height * CULL_MARGIN_SCREENS);
  // At least a pixel: a layer not laid out yet has no size.
  const cssWidth = Math.max(1, width + 2 * mx);
  const cssHeight = Math.max(1, height + 2 * my);
  const ratio = Math.min(pixelRatio, Math.sqrt(MAX_CANVAS_PIXELS / (cssWidth * cssHeight)));
  const pixelWidth = Math.max(1, Math.round(cssWidth * ratio));
  const pixelHeight = Math.max(1, Math.round(cssHeight * ratio));
  // The backing store stretches to the CSS box; rounding makes the two axes' ratios differ by
  // under a pixel over the whole canvas, so one scale serves both.
  const sx = pixelWidth / cssWidth;
  return {
    left: -mx,
    top: -my,
    cssWidth,
    cssHeight,
    pixelWidth,
    pixelHeight,
    transform: { scale: vp.zoom * sx, x: (vp.x + mx) * sx, y: (vp.y + my) * sx },
    covers: canvasCovers(vp, width, height),
  };
}

/**
 * The board rectangle the canvas for a viewport shows (`canvasFrame(...).covers`): the elements
 * the layer has drawn in overview mode are those reaching into it. It does not depend on the
 * pixel ratio.
 */
export function canvasCovers(vp: Viewport, width: number, height: number): Bounds {
  const mx = Math.round(width * CULL_MARGIN_SCREENS);
  const my = Math.round(height * CULL_MARGIN_SCREENS);
  return { x: (-mx - vp.x) / vp.zoom, y: (-my - vp.y) / vp.zoom, w: Math.max(1, width + 2 * mx) / vp.zoom, h: Math.max(1, height + 2 * my) / vp.zoom };
}

/** Whether two frames put every board point on the same canvas pixel (a repaint can be partial). */
export function sameCanvasFrame(a: CanvasFrame, b: CanvasFrame): boolean {
  return (
    a.pixelWidth === b.pixelWidth &&
    a.pixelHeight === b.pixelHeight &&
    a.transform.scale === b.transform.scale &&
    a.transform.x === b.transform.x &&
    a.transform.y === b.transform.y
  );
}

/**
 * A zoom-out mid-gesture redraws the canvas for this much less zoom than the view has: the canvas
 * then covers twice the area each way, so the next several wheel steps shrink a drawn raster
 * instead of each redrawing all the elements. It is shown scaled up (softer) until the settle.
 */
export const ZOOM_OUT_AHEAD = 0.5;

/** The viewport to draw the canvas for mid-gesture, when the view has left the drawn area. */
export function gestureCanvasViewport(drawnFor: Viewport, current: Viewport, width: number, height: number): Viewport {
  if (current.zoom >= drawnFor.zoom) return current;
  // At the least zoom this is `current` itself (zoomAt clamps).
  return zoomAt(current, { x: width / 2, y: height / 2 }, ZOOM_OUT_AHEAD);
}

/**
 * What each part of the layer draws in overview mode: the canvas gets the settled elements that
 * reach into `rect`, in drawing order; elements being dragged (`moving`, own or others') are left
 * out of it and drawn live, wherever they are, so none is drawn twice.
 */
export function overviewLayers(ordered: readonly Element[], rect: Bounds, moving: { has(id: string): boolean }): { canvas: Element[]; live: Element[] } {
  const canvas: Element[] = [];
  const live: Element[] = [];
  for (const e of ordered) {
    if (moving.has(e.id)) live.push(e);
    else if (inRect(e, rect)) canvas.push(e);
  }
  return { canvas, live };
}

/**
 * What the canvas was painted with, to find what a repaint for the same view must cover: the
 * board's elements (by identity: the sync engine keeps unchanged elements' objects) and the ones
 * left out as live drags.
 */
export interface CanvasContent {
  readonly elements: ReadonlyMap<string, Element>;
  readonly leftOut: ReadonlySet<string>;
}

/**
 * More changed areas than this in one frame and the whole canvas is repainted: clipping to many
 * small areas saves little once they cover much of it.
 */
export const MAX_CHANGED_AREAS = 48;

/**
 * The board areas a repaint of the same view must cover, so that an edit repaints what it touched
 * instead of every element in view: where each changed, added or deleted element was and is, and
 * where an element whose drag began (it leaves the canvas) or ended (it returns) sits. Areas
 * outside `covers` are dropped. Null when more than MAX_CHANGED_AREAS remain: repaint everything.
 */
export function changedAreas(painted: CanvasContent, now: CanvasContent, covers: Bounds, boundsOf: (shape: ElementShape) => Bounds): Bounds[] | null {
  const areas: Bounds[] = [];
  const add = (e: Element | undefined): boolean => {
    if (!e) return true;
    const b = boundsOf(e.shape);
    if (intersects(b, covers)) areas.push(b);
    return areas.length <= MAX_CHANGED_AREAS;
  };
  if (painted.elements !== now.elements) {
    for (const [id, e] of now.elements) {
      const before = painted.elements.get(id);
      if (before !== e && !(add(before) && add(e))) return null;
    }
    for (const [id, e] of painted.elements) if (!now.elements.has(id) && !add(e)) return null;
  }
  for (const id of now.leftOut) if (!painted.leftOut.has(id) && !add(painted.elements.get(id))) return null;
  for (const id of painted.leftOut) if (!now.leftOut.has(id) && !add(now.elements.get(id))) return null;
  return areas;
}

/** What the canvas shows and for which frame. */
export interface PaintedCanvas extends CanvasContent {
  readonly frame: CanvasFrame;
}

/**
 * What a repaint to `now` must cover: null for all of it (nothing painted yet, or another frame:
 * a new view, size or pixel ratio), else the changed areas (changedAreas; null when too many).
 */
export function repaintAreas(painted: PaintedCanvas | null, now: PaintedCanvas, boundsOf: (shape: ElementShape) => Bounds): Bounds[] | null {
  return painted !== null && sameCanvasFrame(painted.frame, now.frame) ? changedAreas(painted, now, now.frame.covers, boundsOf) : null;
}

/**
 * A changed area on the canvas: out to whole device pixels and one more for antialiasing, within
 * the canvas. `board` is that pixel rectangle in board units (what to redraw elements for). Null
 * when the area misses the canvas.
 */
export function canvasArea(area: Bounds, frame: CanvasFrame): { pixels: Bounds; board: Bounds } | null {
  const { scale, x, y } = frame.transform;
  const x0 = Math.max(0, Math.floor(area.x * scale + x) - 1);
  const y0 = Math.max(0, Math.floor(area.y * scale + y) - 1);
  const x1 = Math.min(frame.pixelWidth, Math.ceil((area.x + area.w) * scale + x) + 1);
  const y1 = Math.min(frame.pixelHeight, Math.ceil((area.y + area.h) * scale + y) + 1);
  if (x1 <= x0 || y1 <= y0) return null;
  return {
    pixels: { x: x0, y: y0, w: x1 - x0, h: y1 - y0 },
    board: { x: (x0 - x) / scale, y: (y0 - y) / scale, w: (x1 - x0) / scale, h: (y1 - y0) / scale },
  };
}
