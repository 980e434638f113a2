import type { Point } from './viewport.ts';

/**
 * Time constant of cursor smoothing (ms): about two cursor batches, so motion stays fluid between
 * packets without lagging visibly behind the real pointer.
 */
export const CURSOR_SMOOTHING_MS = 60;

/** Below this distance (board units) a cursor is where it should be and the animation can rest. */
export const CURSOR_SETTLED_DISTANCE = 0.05;

/**
 * Moves `current` toward `target` by exponential smoothing over `dtMs`. Frame-rate independent:
 * two 8 ms steps land where one 16 ms step does, so 30 Hz and 144 Hz screens look alike.
 */
export function smoothToward(current: Point, target: Point, dtMs: number, timeConstantMs = CURSOR_SMOOTHING_MS): Point {
  const k = 1 - Math.exp(-Math.max(0, dtMs) / timeConstantMs);
  return { x: current.x + (target.x - current.x) * k, y: current.y + (target.y - current.y) * k };
}

export function isSettled(current: Point, target: Point): boolean {
  return Math.abs(target.x - current.x) < CURSOR_SETTLED_DISTANCE && Math.abs(target.y - current.y) < CURSOR_SETTLED_DISTANCE;
}
