import { MAX_ELEMENT_SIZE, type Element, type ElementShape } from '@wb/protocol';
import { centreOf, clampCoordinate, rotatedBounds, rotatePoint, rotationOf, shapeBounds, turnedBounds, unionBounds, type Bounds, type Point } from './geometry.ts';

/**
 * Resize and rotate, pure: the frame a selection is handled by, where its handles sit, what a
 * handle drag makes of the frame, and what a frame change makes of each shape. Boxes (rect,
 * ellipse, text, sticky) keep a `rotation` about their centre; lines, arrows and pen strokes are
 * turned by moving their points, so everything that reads them (hit tests, exports) is unchanged.
 */

/** A box turned by `rotation` degrees clockwise about its centre. */
export interface Frame extends Bounds {
  readonly rotation: number;
}

export type ResizeHandle = 'nw' | 'n' | 'ne' | 'e' | 'se' | 's' | 'sw' | 'w';
export const RESIZE_HANDLES: readonly ResizeHandle[] = ['nw', 'n', 'ne', 'e', 'se', 's', 'sw', 'w'];
export type Handle = ResizeHandle | 'rotate';

/** Handles are this many screen px across; the rotate handle sits this far above the frame. */
export const HANDLE_PX = 10;
export const ROTATE_HANDLE_GAP_PX = 28;
/** A resize never makes a side shorter than this (board units): no flips through zero. */
export const MIN_RESIZED_SIDE = 1;
/** Shift while rotating snaps to steps of this many degrees. */
export const ROTATE_SNAP_DEG = 15;

const RAD = Math.PI / 180;

/** Degrees in [0, 360), rounded to hundredths. */
export function normalizeDegrees(deg: number): number {
  const d = Math.round((((deg % 360) + 360) % 360) * 100) / 100;
  return d >= 360 ? 0 : d;
}

/** The frame a shape is handled by: a box's own (turned) box; otherwise its bounds, unturned. */
export function shapeFrame(shape: ElementShape): Frame {
  return { ...shapeBounds(shape), rotation: rotationOf(shape) };
}

/** The four corners of a frame, turned: nw, ne, se, sw. */
export function frameCorners(f: Frame): [Point, Point, Point, Point] {
  const c = centreOf(f);
  const at = (x: number, y: number) => rotatePoint({ x, y }, c, f.rotation);
  return [at(f.x, f.y), at(f.x + f.w, f.y), at(f.x + f.w, f.y + f.h), at(f.x, f.y + f.h)];
}

/** The upright bounds of a frame (of a turned box: of its four corners). */
export function frameBounds(f: Frame): Bounds {
  return turnedBounds({ x: f.x, y: f.y, w: f.w, h: f.h }, f.rotation);
}

/**
 * The frame of a selection: one element's own frame (turned with it); several elements' upright
 * bounds together. Null for no elements.
 */
export function selectionFrame(shapes: readonly ElementShape[]): Frame | null {
  const [only] = shapes;
  if (shapes.length === 1 && only) return shapeFrame(only);
  const b = unionBounds(shapes.map(rotatedBounds));
  return b ? { ...b, rotation: 0 } : null;
}

/** Where each handle is drawn (board units at `zoom`): the eight resize handles and rotate. */
export function handlePositions(f: Frame, zoom: number): Record<Handle, Point> {
  const c = centreOf(f);
  const at = (x: number, y: number) => rotatePoint({ x, y }, c, f.rotation);
  const { x, y, w, h } = f;
  return {
    nw: at(x, y),
    n: at(x + w / 2, y),
    ne: at(x + w, y),
    e: at(x + w, y + h / 2),
    se: at(x + w, y + h),
    s: at(x + w / 2, y + h),
    sw: at(x, y + h),
    w: at(x, y + h / 2),
    rotate: at(x + w / 2, y - ROTATE_HANDLE_GAP_PX / zoom),
  };
}

/** How far (screen px) from a handle's centre a mouse press takes it; a finger's reach is larger. */
export const HANDLE_REACH_PX = HANDLE_PX / 2 + 3;
export const HANDLE_REACH_TOUCH_PX = 16;

/** The handle under a board point, or null. The rotate handle first, then corners, then sides. */
export function handleAt(f: Frame, p: Point, zoom: number, reachPx = HANDLE_REACH_PX): Handle | null {
  const positions = handlePositions(f, zoom);
  const reach = reachPx / zoom;
  const order: Handle[] = ['rotate', 'nw', 'ne', 'se', 'sw', 'n', 'e', 's', 'w'];
  for (const handle of order) {
    const q = positions[handle];
    if (Math.abs(p.x - q.x) <= reach && Math.abs(p.y - q.y) <= reach) return handle;
  }
  return null;
}

/**
 * The frame after dragging `handle` to `pointer`: the opposite side or corner stays where it is
 * on the board (also for a turned frame). `keepRatio` (shift) keeps the proportions: a corner
 * scales both sides by the larger change, a side scales the other side with it about its middle.
 * A side of length zero (a straight line's) stays zero.
 */
export function resizeFrame(f: Frame, handle: ResizeHandle, pointer: Point, keepRatio: boolean): Frame {
  const c = centreOf(f);
  // The pointer in the frame's own (unturned) axes.
  const local = rotatePoint(pointer, c, -f.rotation);
  const moveW = handle.includes('w');
  const moveE = handle.includes('e');
  const moveN = handle.includes('n');
  const moveS = handle.includes('s');
  const size = (v: number, from: number) => (from === 0 ? 0 : Math.min(MAX_ELEMENT_SIZE, Math.max(MIN_RESIZED_SIDE, v)));
  let w = moveE ? size(local.x - f.x, f.w) : moveW ? size(f.x + f.w - local.x, f.w) : f.w;
  let h = moveS ? size(local.y - f.y, f.h) : moveN ? size(f.y + f.h - local.y, f.h) : f.h;
  if (keepRatio && f.w > 0 && f.h > 0) {
    const sx = w / f.w;
    const sy = h / f.h;
    const corner = (moveE || moveW) && (moveN || moveS);
    const s = corner ? Math.max(sx, sy) : moveE || moveW ? sx : sy;
    w = Math.min(MAX_ELEMENT_SIZE, f.w * s);
    h = Math.min(MAX_ELEMENT_SIZE, f.h * s);
  }
  // The new box in local axes, anchored at the fixed side (or about the middle on the other axis).
  const x = moveW ? f.x + f.w - w : moveE ? f.x : f.x + (f.w - w) / 2;
  const y = moveN ? f.y + f.h - h : moveS ? f.y : f.y + (f.h - h) / 2;
  // Turned about the old centre, the local box's centre lands at its place on the board; the new
  // frame is turned about that point, so the fixed side stays put.
  const centre = rotatePoint({ x: x + w / 2, y: y + h / 2 }, c, f.rotation);
  return { x: centre.x - w / 2, y: centre.y - h / 2, w, h, rotation: f.rotation };
}

/** The frame turned by the angle the pointer swept about its centre from `grab`; `snap`: 15° steps. */
export function rotateFrame(f: Frame, grab: Point, pointer: Point, snap: boolean): Frame {
  const c = centreOf(f);
  const swept = (Math.atan2(pointer.y - c.y, pointer.x - c.x) - Math.atan2(grab.y - c.y, grab.x - c.x)) / RAD;
  let rotation = normalizeDegrees(f.rotation + swept);
  if (snap) rotation = normalizeDegrees(Math.round(rotation / ROTATE_SNAP_DEG) * ROTATE_SNAP_DEG);
  return { ...f, rotation };
}

const round = (v: number) => Math.round(v * 100) / 100;
const clampOffset = (v: number) => Math.max(-MAX_ELEMENT_SIZE, Math.min(MAX_ELEMENT_SIZE, round(v)));
const clampSize = (v: number) => Math.max(0, Math.min(MAX_ELEMENT_SIZE, round(v)));

/**
 * Where a board point goes when frame `from` becomes `to`: the same place relative to the frame
 * (a zero-length side maps to the middle of the new one).
 */
export function mapPoint(from: Frame, to: Frame, p: Point): Point {
  const local = rotatePoint(p, centreOf(from), -from.rotation);
  const u = from.w === 0 ? 0.5 : (local.x - from.x) / from.w;
  const v = from.h === 0 ? 0.5 : (local.y - from.y) / from.h;
  return rotatePoint({ x: to.x + u * to.w, y: to.y + v * to.h }, centreOf(to), to.rotation);
}

/** An equation's font size stays within what the protocol accepts (board units). */
const MIN_EQUATION_FONT = 4;
const MAX_EQUATION_FONT = 400;

/**
 * A shape after its selection's frame changed from `from` to `to` (a resize or a turn of one
 * element, or of a group). A box's centre follows the frame, its sides scale with the frame's
 * and it turns by as much as the frame did; a line's ends and a stroke's points are mapped one by
 * one. Text keeps its font size.
 */
export function transformShape(shape: ElementShape, from: Frame, to: Frame): ElementShape {
  const map = (p: Point) => mapPoint(from, to, p);
  switch (shape.kind) {
    case 'rect':
    case 'ellipse':
    case 'text':
    case 'sticky':
    case 'image': {
      const sx = from.w === 0 ? 1 : to.w / from.w;
      const sy = from.h === 0 ? 1 : to.h / from.h;
      const c = map(centreOf(shape));
      const w = clampSize(shape.w * sx);
      const h = clampSize(shape.h * sy);
      const rotation = normalizeDegrees((shape.rotation ?? 0) + to.rotation - from.rotation);
      const { rotation: _old, ...rest } = shape;
      return { ...rest, x: clampCoordinate(c.x - w / 2), y: clampCoordinate(c.y - h / 2), w, h, ...(rotation === 0 ? {} : { rotation }) };
    }
    case 'equation': {
      // An equation's formula grows and shrinks with its box (its height: the formula's line).
      const sx = from.w === 0 ? 1 : to.w / from.w;
      const sy = from.h === 0 ? 1 : to.h / from.h;
      const c = map(centreOf(shape));
      const w = clampSize(shape.w * sx);
      const h = clampSize(shape.h * sy);
      const fontSize = Math.min(MAX_EQUATION_FONT, Math.max(MIN_EQUATION_FONT, Math.round(shape.fontSize * sy * 10) / 10));
      const rotation = normalizeDegrees((shape.rotation ?? 0) + to.rotation - from.rotation);
      const { rotation: _old, ...rest } = shape;
      return { ...rest, x: clampCoordinate(c.x - w / 2), y: clampCoordinate(c.y - h / 2), w, h, fontSize, ...(rotation === 0 ? {} : { rotation }) };
    }
    case 'line':
    case 'arrow': {
      const a = map({ x: shape.x, y: shape.y });
      const b = map({ x: shape.x + shape.dx, y: shape.y + shape.dy });
      const x = clampCoordinate(a.x);
      const y = clampCoordinate(a.y);
      return { ...shape, x, y, dx: clampOffset(b.x - x), dy: clampOffset(b.y - y) };
    }
    case 'pen': {
      const anchor = map({ x: shape.x, y: shape.y });
      const x = clampCoordinate(anchor.x);
      const y = clampCoordinate(anchor.y);
      const points = shape.points.map(([dx, dy, pressure]): [number, number, number] => {
        const q = map({ x: shape.x + dx, y: shape.y + dy });
        return [clampOffset(q.x - x), clampOffset(q.y - y), pressure];
      });
      return { ...shape, x, y, points };
    }
  }
}

/**
 * An element's own frame (`shapeFrame`) after its selection's frame changed from `from` to `to`:
 * its centre mapped, its sides scaled as the selection's, turned by as much. A resize or turn in
 * progress sends it for each element (`LockMove.frame`, rounded to the protocol's bounds), and
 * `reshapeToFrame` makes of it the shape `transformShape(shape, from, to)` makes: a group's frame
 * is upright and only a single element's is turned, so each element's frame stays a box [TR13].
 */
export function frameAfter(own: Frame, from: Frame, to: Frame): Frame {
  const sx = from.w === 0 ? 1 : to.w / from.w;
  const sy = from.h === 0 ? 1 : to.h / from.h;
  const c = mapPoint(from, to, centreOf(own));
  const w = clampSize(own.w * sx);
  const h = clampSize(own.h * sy);
  return { x: clampCoordinate(c.x - w / 2), y: clampCoordinate(c.y - h / 2), w, h, rotation: normalizeDegrees(own.rotation + to.rotation - from.rotation) };
}

/** Someone else's resize or turn in progress, drawn: the element mapped from its own frame onto `frame`. */
export function reshapeToFrame(shape: ElementShape, frame: Frame): ElementShape {
  return transformShape(shape, shapeFrame(shape), frame);
}

/** The shape an element shows during a drag (a move preview, or a transform's own shape). */
export function shownShape(e: Element, preview: { readonly x: number; readonly y: number; readonly shape?: ElementShape } | undefined): ElementShape {
  if (!preview) return e.shape;
  if (preview.shape) return preview.shape;
  return { ...e.shape, x: preview.x, y: preview.y };
}
