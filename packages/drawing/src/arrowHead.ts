import type { ElementShape } from '@wb/protocol';
import type { Point } from './bounds.ts';

/**
 * An arrow head's open chevron: one barb end, the tip, the other barb end. Null for a zero-length
 * arrow (no direction to point in).
 */
export function arrowHeadPoints(shape: Extract<ElementShape, { kind: 'arrow' }>): readonly [Point, Point, Point] | null {
  const len = Math.hypot(shape.dx, shape.dy);
  if (len === 0) return null;
  const ux = shape.dx / len;
  const uy = shape.dy / len;
  const size = Math.min(len / 2, 10 + shape.strokeWidth * 2);
  const tip = { x: shape.x + shape.dx, y: shape.y + shape.dy };
  const barb = (side: number): Point => ({ x: tip.x - ux * size + side * -uy * size * 0.5, y: tip.y - uy * size + side * ux * size * 0.5 });
  return [barb(1), tip, barb(-1)];
}

