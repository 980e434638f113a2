import type { ElementShape } from '@wb/protocol';
import { getStroke } from 'perfect-freehand';
import type { Point } from './bounds.ts';

/**
 * The filled outline of a pen stroke as SVG path data, relative to the shape's anchor. Pressure
 * from a pen or touch thins and thickens the line; a mouse (constant 0.5) gets perfect-freehand's
 * simulated pressure from speed instead.
 */
export function penOutlinePath(shape: Extract<ElementShape, { kind: 'pen' }>): string {
  const pressures = new Set(shape.points.map((p) => p[2]));
  const realPressure = !(pressures.size === 1 && pressures.has(0.5));
  const outline = getStroke(
    shape.points.map(([x, y, p]) => [x, y, p]),
    { size: shape.strokeWidth * 2, thinning: 0.5, smoothing: 0.5, streamline: 0.4, simulatePressure: !realPressure, last: true },
  );
  return outlineToPath(outline);
}

/** perfect-freehand's polygon as a smooth closed path of quadratic curves through midpoints. */
function outlineToPath(points: number[][]): string {
  const n = points.length;
  if (n === 0) return '';
  const fmt = (v: number) => (Math.round(v * 100) / 100).toString();
  const at = (i: number): Point => {
    const p = points[i % n] ?? [0, 0];
    return { x: p[0] ?? 0, y: p[1] ?? 0 };
  };
  const start = at(0);
  let d = `M${fmt(start.x)} ${fmt(start.y)}Q`;
  for (let i = 0; i < n; i++) {
    const a = at(i);
    const b = at(i + 1);
    d += `${fmt(a.x)} ${fmt(a.y)} ${fmt((a.x + b.x) / 2)} ${fmt((a.y + b.y) / 2)} `;
  }
  return `${d}Z`;
}
