import { MAX_PEN_POINTS, type ElementShape } from '@wb/protocol';
import { clampCoordinate } from './geometry.ts';

/** A raw pointer sample: board position and pressure (0..1; mice report 0.5). */
export interface PenSample {
  readonly x: number;
  readonly y: number;
  readonly pressure: number;
}

type StrokePoint = readonly [number, number, number];

/** Squared distance from p to the segment a-b. */
function segmentDistance2(p: StrokePoint, a: StrokePoint, b: StrokePoint): number {
  const vx = b[0] - a[0];
  const vy = b[1] - a[1];
  const len2 = vx * vx + vy * vy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((p[0] - a[0]) * vx + (p[1] - a[1]) * vy) / len2));
  const dx = p[0] - (a[0] + t * vx);
  const dy = p[1] - (a[1] + t * vy);
  return dx * dx + dy * dy;
}

/** Ramer-Douglas-Peucker, iterative (a long stroke must not overflow the stack). */
function rdp(points: readonly StrokePoint[], tolerance: number): StrokePoint[] {
  if (points.length <= 2) return [...points];
  const keep = new Uint8Array(points.length);
  keep[0] = 1;
  keep[points.length - 1] = 1;
  const stack: Array<[number, number]> = [[0, points.length - 1]];
  const tol2 = tolerance * tolerance;
  while (stack.length > 0) {
    const range = stack.pop();
    if (!range) break;
    const [first, last] = range;
    const a = points[first];
    const b = points[last];
    if (!a || !b) continue;
    let worst = -1;
    let worstD = tol2;
    for (let i = first + 1; i < last; i++) {
      const p = points[i];
      if (!p) continue;
      const d = segmentDistance2(p, a, b);
      if (d > worstD) {
        worst = i;
        worstD = d;
      }
    }
    if (worst >= 0) {
      keep[worst] = 1;
      stack.push([first, worst], [worst, last]);
    }
  }
  return points.filter((_, i) => keep[i] === 1);
}

/**
 * Simplifies a stroke to at most `maxPoints` (the protocol's MAX_PEN_POINTS keeps one stroke well
 * under the 64 KB message limit). Starts with a quarter-unit tolerance, which no one can see at
 * 100%, and doubles it until the stroke fits.
 */
export function simplifyStroke(points: readonly StrokePoint[], maxPoints = MAX_PEN_POINTS): StrokePoint[] {
  let tolerance = 0.25;
  let result = rdp(points, tolerance);
  while (result.length > maxPoints) {
    tolerance *= 2;
    result = rdp(points, tolerance);
  }
  return result;
}

/**
 * A finished pen stroke as an element shape: anchored at its first sample, points relative to it,
 * rounded to 0.01 units (sub-pixel at any zoom we allow) so the JSON stays small.
 */
export function penShapeFromSamples(samples: readonly PenSample[], stroke: string, strokeWidth: number): ElementShape | null {
  const first = samples[0];
  if (!first) return null;
  const ox = clampCoordinate(first.x);
  const oy = clampCoordinate(first.y);
  const round = (v: number) => Math.round(v * 100) / 100;
  const relative: StrokePoint[] = samples.map((s) => [round(s.x - ox), round(s.y - oy), round(Math.max(0, Math.min(1, s.pressure)))]);
  return { kind: 'pen', x: ox, y: oy, points: simplifyStroke(relative).map(([x, y, p]) => [x, y, p]), stroke, strokeWidth };
}

export { penOutlinePath } from '@wb/drawing';
