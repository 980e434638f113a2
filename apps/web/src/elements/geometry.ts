import { MAX_COORDINATE, MAX_ELEMENT_SIZE, type Element, type ElementShape, type TextAlign } from '@wb/protocol';
import { STICKY_DEFAULT_FONT_SIZE, centreOf, rotatePoint, rotationOf, shapeBounds, strokeWidthOf, type Point } from '@wb/drawing';

export { centreOf, inkBounds, rotatePoint, rotatedBounds, rotationOf, shapeBounds, strokeWidthOf, turnedBounds, unionBounds, type Bounds, type Point } from '@wb/drawing';

/**
 * Pure geometry of board elements, in board coordinates: bounds, hit tests, moves and the shape a
 * drag of a drawing tool makes. No DOM, so it is tested on its own and shared by the renderer,
 * the tools and the exporter.
 */

export type ShapeKind = ElementShape['kind'];

/** Style the toolbar chooses for the next element. */
export interface ToolStyle {
  readonly stroke: string;
  readonly fill: string | 'transparent';
  readonly strokeWidth: number;
}

/** A new text box or sticky note made by a click rather than a drag gets this size (board units). */
export const DEFAULT_TEXT_BOX = { w: 240, h: 48 } as const;
export const DEFAULT_STICKY = { w: 200, h: 200 } as const;
export const TEXT_FONT_SIZE = 24;
export { STICKY_DEFAULT_FONT_SIZE } from '@wb/drawing';
export const STICKY_FILL = '#fff3a8';

export function clampCoordinate(v: number): number {
  return Math.max(-MAX_COORDINATE, Math.min(MAX_COORDINATE, Math.round(v * 100) / 100));
}

function clampSize(v: number): number {
  return Math.max(0, Math.min(MAX_ELEMENT_SIZE, Math.round(v * 100) / 100));
}

function clampOffset(v: number): number {
  return Math.max(-MAX_ELEMENT_SIZE, Math.min(MAX_ELEMENT_SIZE, Math.round(v * 100) / 100));
}

/** Every shape is anchored at (x, y); a move changes only the anchor. */
export function moveShapeTo(shape: ElementShape, x: number, y: number): ElementShape {
  return { ...shape, x: clampCoordinate(x), y: clampCoordinate(y) };
}

function distanceToSegment(p: Point, a: Point, b: Point): number {
  const vx = b.x - a.x;
  const vy = b.y - a.y;
  const len2 = vx * vx + vy * vy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((p.x - a.x) * vx + (p.y - a.y) * vy) / len2));
  return Math.hypot(p.x - (a.x + t * vx), p.y - (a.y + t * vy));
}

/**
 * Whether a board point touches the shape, within `tolerance` board units (a few screen pixels
 * divided by the zoom, so thin lines stay easy to grab at any zoom). Filled and text-like shapes
 * are hit inside; outlines, lines and strokes near their ink.
 */
export function hitShape(shape: ElementShape, point: Point, tolerance: number): boolean {
  const slack = tolerance + strokeWidthOf(shape) / 2;
  const b = shapeBounds(shape);
  // A turned box is tested in its own axes: the point turned back about its centre.
  const p = rotatePoint(point, centreOf(b), -rotationOf(shape));
  if (p.x < b.x - slack || p.x > b.x + b.w + slack || p.y < b.y - slack || p.y > b.y + b.h + slack) return false;
  switch (shape.kind) {
    case 'text':
    case 'sticky':
    case 'image':
    case 'equation':
      return true;
    case 'rect': {
      if (shape.fill !== 'transparent') return true;
      const inside = p.x > b.x + slack && p.x < b.x + b.w - slack && p.y > b.y + slack && p.y < b.y + b.h - slack;
      return !inside;
    }
    case 'ellipse': {
      const rx = b.w / 2;
      const ry = b.h / 2;
      if (rx === 0 || ry === 0) return true;
      const nx = (p.x - (b.x + rx)) / rx;
      const ny = (p.y - (b.y + ry)) / ry;
      const r = Math.sqrt(nx * nx + ny * ny);
      if (shape.fill !== 'transparent') return r <= 1 + slack / Math.min(rx, ry);
      return Math.abs(r - 1) * Math.min(rx, ry) <= slack;
    }
    case 'line':
    case 'arrow':
      return distanceToSegment(p, shape, { x: shape.x + shape.dx, y: shape.y + shape.dy }) <= slack;
    case 'pen': {
      const pts = shape.points;
      if (pts.length === 1) {
        const [dx, dy] = pts[0] ?? [0, 0];
        return Math.hypot(p.x - shape.x - dx, p.y - shape.y - dy) <= slack;
      }
      for (let i = 1; i < pts.length; i++) {
        const a = pts[i - 1];
        const c = pts[i];
        if (!a || !c) continue;
        if (distanceToSegment(p, { x: shape.x + a[0], y: shape.y + a[1] }, { x: shape.x + c[0], y: shape.y + c[1] }) <= slack) return true;
      }
      return false;
    }
  }
}

/** Elements in drawing order: by z, ties by id, so every screen stacks them the same way. */
export function inDrawingOrder(elements: Iterable<Element>): Element[] {
  return [...elements].sort((a, b) => a.z - b.z || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Drawing order on a private board: its owner's work first, in its own order, then what anyone else
 * made on it (the teacher's feedback layer), so a student's later stroke never covers a tick.
 * `ownerUserId` null (the class board, or a classmate's anonymous view): one layer, `inDrawingOrder`.
 */
export function inLayerOrder(elements: Iterable<Element>, ownerUserId: string | null): Element[] {
  const ordered = inDrawingOrder(elements);
  if (ownerUserId === null) return ordered;
  return [...ordered.filter((e) => e.createdBy === ownerUserId), ...ordered.filter((e) => e.createdBy !== ownerUserId)];
}

/** The topmost element under a board point, or null. `ordered` is in drawing order. */
export function topmostAt(ordered: readonly Element[], p: Point, tolerance: number): Element | null {
  for (let i = ordered.length - 1; i >= 0; i--) {
    const e = ordered[i];
    if (e && hitShape(e.shape, p, tolerance)) return e;
  }
  return null;
}

export type DragTool = 'rect' | 'ellipse' | 'line' | 'arrow';

/** The shape a drag from `a` to `b` with a shape tool makes. Shift keeps it square or at 45°. */
export function shapeFromDrag(tool: DragTool, a: Point, b: Point, style: ToolStyle, constrain = false): ElementShape {
  let dx = b.x - a.x;
  let dy = b.y - a.y;
  if (constrain) {
    if (tool === 'line' || tool === 'arrow') {
      const angle = Math.round(Math.atan2(dy, dx) / (Math.PI / 4)) * (Math.PI / 4);
      const len = Math.hypot(dx, dy);
      dx = Math.cos(angle) * len;
      dy = Math.sin(angle) * len;
    } else {
      const side = Math.max(Math.abs(dx), Math.abs(dy));
      dx = Math.sign(dx || 1) * side;
      dy = Math.sign(dy || 1) * side;
    }
  }
  if (tool === 'line' || tool === 'arrow') {
    return { kind: tool, x: clampCoordinate(a.x), y: clampCoordinate(a.y), dx: clampOffset(dx), dy: clampOffset(dy), stroke: style.stroke, strokeWidth: style.strokeWidth };
  }
  return {
    kind: tool,
    x: clampCoordinate(Math.min(a.x, a.x + dx)),
    y: clampCoordinate(Math.min(a.y, a.y + dy)),
    w: clampSize(Math.abs(dx)),
    h: clampSize(Math.abs(dy)),
    stroke: style.stroke,
    fill: style.fill,
    strokeWidth: style.strokeWidth,
  };
}

/** A drag shorter than this (board units) is a click: shape tools ignore it. */
export const MIN_SHAPE_SIZE = 2;

export function isTooSmall(shape: ElementShape): boolean {
  const b = shapeBounds(shape);
  return Math.max(b.w, b.h) < MIN_SHAPE_SIZE;
}

/** How new text is set: its font size and alignment (`left` and a note's default size are stored as no field). */
export interface TextSetting {
  readonly fontSize?: number;
  readonly align?: TextAlign;
}

export function textBoxAt(p: Point, text: string, stroke: string, setting: TextSetting = {}): ElementShape {
  const align = setting.align && setting.align !== 'left' ? { align: setting.align } : {};
  return { kind: 'text', x: clampCoordinate(p.x), y: clampCoordinate(p.y), ...DEFAULT_TEXT_BOX, text, stroke, fontSize: setting.fontSize ?? TEXT_FONT_SIZE, ...align };
}

/** `setting.fontSize` is left out of the shape when it is a note's default (20). */
export function stickyAt(p: Point, text: string, fill = STICKY_FILL, setting: TextSetting = {}): ElementShape {
  const align = setting.align && setting.align !== 'left' ? { align: setting.align } : {};
  const size = setting.fontSize !== undefined && setting.fontSize !== STICKY_DEFAULT_FONT_SIZE ? { fontSize: setting.fontSize } : {};
  return { kind: 'sticky', x: clampCoordinate(p.x), y: clampCoordinate(p.y), ...DEFAULT_STICKY, text, fill, ...size, ...align };
}

/** Style changes apply where the kind has the property (a sticky note has no stroke). */
export function restyle(shape: ElementShape, style: Partial<ToolStyle>): ElementShape {
  switch (shape.kind) {
    case 'rect':
    case 'ellipse':
      return { ...shape, stroke: style.stroke ?? shape.stroke, fill: style.fill ?? shape.fill, strokeWidth: style.strokeWidth ?? shape.strokeWidth };
    case 'line':
    case 'arrow':
    case 'pen':
      return { ...shape, stroke: style.stroke ?? shape.stroke, strokeWidth: style.strokeWidth ?? shape.strokeWidth };
    case 'text':
    case 'equation':
      return { ...shape, stroke: style.stroke ?? shape.stroke };
    case 'sticky':
    case 'image':
      return shape;
  }
}

/** A text box grows to fit its lines (approximate metrics: no DOM measuring in a pure module). */
export function fitText(shape: Extract<ElementShape, { kind: 'text' }>): ElementShape {
  const lines = shape.text.split('\n');
  const longest = Math.max(1, ...lines.map((l) => [...l].length));
  return {
    ...shape,
    w: clampSize(Math.max(shape.w, longest * shape.fontSize * 0.6 + 8)),
    h: clampSize(Math.max(shape.h, lines.length * shape.fontSize * 1.25 + 8)),
  };
}
