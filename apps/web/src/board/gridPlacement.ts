import type { Viewport } from './viewport.ts';

/** Board units between grid dots at 100% (the paper's step, shared with the PDF export). */
export { GRID_STEP } from '@wb/drawing';
import { GRID_STEP } from '@wb/drawing';
/** Dots closer than this on screen (px) are thinned out by doubling the step: no grey mush. */
export const MIN_GRID_PX = 12;
/** A gesture scales the drawn grid at most this far either way before it is redrawn. */
const MAX_GESTURE_SCALE = 2;

/** The screen distance between grid dots at a zoom: the board step, doubled until not too dense. */
export function gridStep(zoom: number): number {
  let step = GRID_STEP * zoom;
  while (step < MIN_GRID_PX) step *= 2;
  return step;
}

/**
 * What the grid layer's background was drawn with: its tile (`step`, screen px) at `zoom`, and
 * how far the layer reaches past the board on every side (`pad`, a whole number of tiles). The
 * layer's transform origin is the board's top-left corner (`pad` into the layer).
 */
export interface GridDrawn {
  zoom: number;
  step: number;
  pad: number;
  /**
   * The repeating tile's size (screen px) when the paper repeats over more than one step (lined
   * paper, staves, graph paper's bold lines: a whole number of steps); left out, one step.
   */
  tileW?: number;
  tileH?: number;
}

/**
 * The transform that shows the grid drawn as `drawn` for the view `vp`: scaled by the zoom
 * change, and translated so that a dot sits where board point (m + ½) × GRID_STEP is on screen.
 * The layer's tiles start `pad` (a whole number of tiles) before the origin, so after scaling a
 * tile's dot is at tx + (k + ½) × step × scale; a translation of the view's offset modulo one
 * scaled step puts the dots on the board's lattice.
 *
 * Null when the drawn tile no longer fits the view: the zoom has changed more than twofold (the
 * layer's margin covers the screen only down to half scale), or the scaled dots would be denser
 * than the thinning allows. The caller then redraws the tile for `vp`.
 */
export function gridPlacement(drawn: GridDrawn, vp: Viewport): { tx: number; ty: number; scale: number } | null {
  const scale = vp.zoom / drawn.zoom;
  const step = drawn.step * scale;
  if (scale > MAX_GESTURE_SCALE || scale < 1 / MAX_GESTURE_SCALE || step < MIN_GRID_PX) return null;
  const mod = (v: number, tile: number) => ((v % tile) + tile) % tile;
  return { tx: mod(vp.x, (drawn.tileW ?? drawn.step) * scale), ty: mod(vp.y, (drawn.tileH ?? drawn.step) * scale), scale };
}
