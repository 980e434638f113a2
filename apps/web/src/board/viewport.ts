import { createStore, type StoreApi } from 'zustand/vanilla';

/**
 * One viewer's pan and zoom. Board coordinates are shared by everyone; the viewport only maps
 * them to this screen: screen = board * zoom + (x, y). Cursors travel in board coordinates, so
 * two people looking at different parts of the board still point at the same things.
 */
export interface Viewport {
  readonly x: number;
  readonly y: number;
  readonly zoom: number;
}

export interface Point {
  readonly x: number;
  readonly y: number;
}

export const MIN_ZOOM = 0.1;
export const MAX_ZOOM = 8;
/** One +/- key press or zoom button click multiplies the zoom by this. */
export const ZOOM_STEP = 1.25;
/** Arrow keys pan by this many screen pixels. */
export const KEY_PAN_PX = 60;

export const initialViewport: Viewport = { x: 0, y: 0, zoom: 1 };

export function boardToScreen(vp: Viewport, p: Point): Point {
  return { x: p.x * vp.zoom + vp.x, y: p.y * vp.zoom + vp.y };
}

export function screenToBoard(vp: Viewport, p: Point): Point {
  return { x: (p.x - vp.x) / vp.zoom, y: (p.y - vp.y) / vp.zoom };
}

export function panBy(vp: Viewport, dx: number, dy: number): Viewport {
  return { ...vp, x: vp.x + dx, y: vp.y + dy };
}

/** Zoom by `factor` keeping the board point under `anchor` (screen coordinates) where it is. */
export function zoomAt(vp: Viewport, anchor: Point, factor: number): Viewport {
  const zoom = clampZoom(vp.zoom * factor);
  if (zoom === vp.zoom) return vp;
  const under = screenToBoard(vp, anchor);
  return { zoom, x: anchor.x - under.x * zoom, y: anchor.y - under.y * zoom };
}

/** Set an exact zoom (e.g. "reset to 100%") around a screen point. */
export function zoomTo(vp: Viewport, anchor: Point, zoom: number): Viewport {
  return zoomAt(vp, anchor, clampZoom(zoom) / vp.zoom);
}

export function clampZoom(zoom: number): number {
  return Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, zoom));
}

/**
 * A wheel event's zoom factor. Trackpad pinches arrive as ctrl+wheel with small deltas, mouse
 * wheels with large ones; the exponential keeps both proportional and symmetric (in then out
 * returns to the same zoom).
 */
export function wheelZoomFactor(deltaY: number): number {
  const clamped = Math.max(-100, Math.min(100, deltaY));
  return Math.exp(-clamped * 0.01);
}

export function createViewportStore(initial: Viewport = initialViewport): StoreApi<Viewport> {
  return createStore<Viewport>(() => initial);
}

/**
 * The CSS transform that makes content drawn for `drawn` appear as `current` shows it
 * (transform-origin 0 0): a pan or zoom gesture moves one already-rasterized layer this way, and
 * the content is redrawn for `current` only when the gesture settles.
 */
export function gestureTransform(drawn: Viewport, current: Viewport): { x: number; y: number; scale: number } {
  const scale = current.zoom / drawn.zoom;
  return { x: current.x - drawn.x * scale, y: current.y - drawn.y * scale, scale };
}
