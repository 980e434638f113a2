import type { ElementShape } from '@wb/protocol';

/**
 * Where a shape lies on the board, in board coordinates: its bounds, turned bounds and the bounds
 * its ink can reach. Shared by the web client (renderer, tools, exports) and the server's PDF
 * export, so a page of the PDF frames a board as the board's own export does.
 */

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface Bounds {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

export function shapeBounds(shape: ElementShape): Bounds {
  switch (shape.kind) {
    case 'rect':
    case 'ellipse':
    case 'text':
    case 'sticky':
    case 'image':
    case 'equation':
      return { x: shape.x, y: shape.y, w: shape.w, h: shape.h };
    case 'line':
    case 'arrow':
      return {
        x: Math.min(shape.x, shape.x + shape.dx),
        y: Math.min(shape.y, shape.y + shape.dy),
        w: Math.abs(shape.dx),
        h: Math.abs(shape.dy),
      };
    case 'pen': {
      let minX = Infinity;
      let minY = Infinity;
      let maxX = -Infinity;
      let maxY = -Infinity;
      for (const [dx, dy] of shape.points) {
        minX = Math.min(minX, dx);
        minY = Math.min(minY, dy);
        maxX = Math.max(maxX, dx);
        maxY = Math.max(maxY, dy);
      }
      return { x: shape.x + minX, y: shape.y + minY, w: maxX - minX, h: maxY - minY };
    }
  }
}

/** A box's turn about its centre in degrees clockwise (0 for kinds that do not turn: lines, strokes). */
export function rotationOf(shape: ElementShape): number {
  return 'rotation' in shape ? (shape.rotation ?? 0) : 0;
}

export function centreOf(b: Bounds): Point {
  return { x: b.x + b.w / 2, y: b.y + b.h / 2 };
}

/** `p` turned by `deg` degrees clockwise (the board's y axis points down) about `c`. */
export function rotatePoint(p: Point, c: Point, deg: number): Point {
  if (deg === 0) return p;
  const rad = (deg * Math.PI) / 180;
  const cos = Math.cos(rad);
  const sin = Math.sin(rad);
  const dx = p.x - c.x;
  const dy = p.y - c.y;
  return { x: c.x + dx * cos - dy * sin, y: c.y + dx * sin + dy * cos };
}

/** The upright bounds of `b` turned by `deg` about its centre (of its four corners). */
export function turnedBounds(b: Bounds, deg: number): Bounds {
  if (deg === 0) return b;
  const c = centreOf(b);
  const pts = [rotatePoint({ x: b.x, y: b.y }, c, deg), rotatePoint({ x: b.x + b.w, y: b.y }, c, deg), rotatePoint({ x: b.x + b.w, y: b.y + b.h }, c, deg), rotatePoint({ x: b.x, y: b.y + b.h }, c, deg)];
  const xs = pts.map((p) => p.x);
  const ys = pts.map((p) => p.y);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, w: Math.max(...xs) - x, h: Math.max(...ys) - y };
}

/** Where a shape lies on the board, upright: a turned box's corners' bounds, else its bounds. */
export function rotatedBounds(shape: ElementShape): Bounds {
  return turnedBounds(shapeBounds(shape), rotationOf(shape));
}

/**
 * Where a shape can put ink: its geometric bounds (turned) plus half its stroke and the arrow
 * heads and round caps that reach past them. What an export frames and what the board culls by.
 */
export function inkBounds(shape: ElementShape): Bounds {
  const b = rotatedBounds(shape);
  const reach = strokeWidthOf(shape) / 2 + INK_OVERHANG;
  return { x: b.x - reach, y: b.y - reach, w: b.w + 2 * reach, h: b.h + 2 * reach };
}

/** Board units an arrow head or a round cap can reach past a shape's geometric bounds. */
const INK_OVERHANG = 12;

/** The union of several bounds, or null for none. */
export function unionBounds(list: Iterable<Bounds>): Bounds | null {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const b of list) {
    minX = Math.min(minX, b.x);
    minY = Math.min(minY, b.y);
    maxX = Math.max(maxX, b.x + b.w);
    maxY = Math.max(maxY, b.y + b.h);
  }
  return minX === Infinity ? null : { x: minX, y: minY, w: maxX - minX, h: maxY - minY };
}

export function strokeWidthOf(shape: ElementShape): number {
  return 'strokeWidth' in shape ? shape.strokeWidth : 0;
}
