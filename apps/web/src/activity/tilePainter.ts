import type { Element, ElementShape, InkPoint } from '@wb/protocol';
import type { LiveStroke } from '../sync/liveInk.ts';
import { BoardInkLayer, type StrokeLines } from './boardInkLayer.ts';

/**
 * A class-grid tile drawn on two canvases (issue 22): the board's elements on one, others' live
 * ink on one above it. A frame then costs what changed on the tile, not a repaint of every path
 * on it as the SVG thumbnail did. Pure: the canvases are a port (`TileSurface`, a canvas in the
 * page, a recording fake in tilePainter.test.ts) and the elements are drawn by elementCanvas.ts's
 * drawer, passed in, so the tile looks like the board's overview canvas and its SVG.
 *
 * Rules (named in tilePainter.test.ts):
 * - TP1 Scaled to the device: each canvas holds the tile's size in device pixels and draws the
 *   whole board page (BOARD_W x BOARD_H units) onto it; a new size repaints both layers whole.
 * - TP2 Appended, not redrawn: when the board's elements in drawing order are those painted plus
 *   new ones after them (a new stroke), only the new ones are drawn. An element whose shape did
 *   not change (a lock taken or released) is not drawn again.
 * - TP3 Anything else repaints the layer whole: a delete, a move, a reorder (cleared first, then
 *   every element in drawing order).
 * - TP4 Live ink grows by segments: a stroke that grew gets only the segment from its last drawn
 *   point through its new ones (boardInkLayer.ts's TI2 decides which points are new).
 * - TP5 A stroke that leaves (its element arrived, its drawer's presence ended: the ink store
 *   dropped it) is cleared in the same call: the ink layer is cleared and the strokes still live
 *   drawn again whole. Its element, drawn on the layer below in the same task, replaces it
 *   without a frame of neither or both.
 */

/** The board page a tile shows, in board units. */
export const BOARD_W = 1600;
export const BOARD_H = 1000;

/** The part of a canvas 2D context the painter itself uses (the elements' drawer uses its own). */
export interface TileContext {
  setTransform(a: number, b: number, c: number, d: number, e: number, f: number): void;
  clearRect(x: number, y: number, w: number, h: number): void;
  beginPath(): void;
  moveTo(x: number, y: number): void;
  lineTo(x: number, y: number): void;
  stroke(): void;
  strokeStyle: string | CanvasGradient | CanvasPattern;
  lineWidth: number;
  lineCap: CanvasLineCap;
  lineJoin: CanvasLineJoin;
}

/** One canvas of a tile: its context and its size in device pixels (setting it clears it). */
export interface TileSurface<C extends TileContext> {
  readonly ctx: C;
  readonly width: number;
  readonly height: number;
  setSize(width: number, height: number): void;
  /** How many live strokes it shows (ink layer only; for tests and styling). */
  showStrokes?(count: number): void;
}

/** Draws elements in the order given, in board coordinates on the context's current transform. */
export type DrawElements<C> = (ctx: C, elements: readonly Element[]) => void;

/** A live stroke on the ink layer: the points drawn so far (to draw it again after a clear). */
interface InkLine {
  readonly stroke: LiveStroke;
  readonly points: InkPoint[];
}

export class TilePainter<C extends TileContext> {
  /** The shapes on the elements layer, in drawing order. */
  private painted: readonly ElementShape[] = [];
  private elements: readonly Element[] = [];
  private readonly lines = new Set<InkLine>();
  private readonly inkLayer: BoardInkLayer<InkLine>;

  constructor(
    private readonly board: TileSurface<C>,
    private readonly ink: TileSurface<C>,
    private readonly drawElements: DrawElements<C>,
  ) {
    this.inkLayer = new BoardInkLayer(this.strokeLines());
  }

  /** TP1: the tile's size in device pixels (unchanged: nothing to do). */
  resize(width: number, height: number): void {
    const w = Math.max(1, Math.round(width));
    const h = Math.max(1, Math.round(height));
    if (w === this.board.width && h === this.board.height) return;
    this.board.setSize(w, h);
    this.ink.setSize(w, h);
    this.repaint();
  }

  /** The board's elements in drawing order, as they are now (TP2, TP3). */
  paint(ordered: readonly Element[]): void {
    this.elements = ordered;
    const painted = this.painted;
    let same = Math.min(painted.length, ordered.length);
    for (let i = 0; i < same; i++) {
      if (painted[i] !== ordered[i]!.shape) {
        same = i;
        break;
      }
    }
    if (same === painted.length) {
      if (ordered.length > same) this.drawOn(this.board, ordered.slice(same));
    } else this.paintWhole();
    this.painted = ordered.map((e) => e.shape);
  }

  /** Others' live strokes on the board as they are now (none: no live ink). TP4, TP5. */
  drawInk(strokes: ReadonlyMap<string, LiveStroke> | undefined): void {
    this.inkLayer.draw(strokes);
    this.ink.showStrokes?.(this.lines.size);
  }

  /** Both layers drawn again whole (a new size; a picture the elements show has loaded). */
  repaint(): void {
    this.paintWhole();
    this.redrawInk();
  }

  /** Frees the ink layer's strokes (the tile leaves the page). */
  clear(): void {
    this.inkLayer.clear();
  }

  private paintWhole(): void {
    this.clearSurface(this.board);
    this.drawOn(this.board, this.elements);
  }

  private drawOn(surface: TileSurface<C>, elements: readonly Element[]): void {
    this.toBoard(surface);
    this.drawElements(surface.ctx, elements);
  }

  private clearSurface(surface: TileSurface<C>): void {
    surface.ctx.setTransform(1, 0, 0, 1, 0, 0);
    surface.ctx.clearRect(0, 0, surface.width, surface.height);
  }

  /** Board units to the surface's device pixels. */
  private toBoard(surface: TileSurface<C>): void {
    surface.ctx.setTransform(surface.width / BOARD_W, 0, 0, surface.height / BOARD_H, 0, 0);
  }

  private redrawInk(): void {
    this.clearSurface(this.ink);
    for (const line of this.lines) this.segment(line, 0);
  }

  /**
   * The line from its point `from - 1` (where it was drawn to) through its last: a stroke's width,
   * rounded ends and joins, as the SVG polyline drew it.
   */
  private segment(line: InkLine, from: number): void {
    const { ctx } = this.ink;
    const { points } = line;
    const start = points[Math.max(0, from - 1)];
    if (!start || from >= points.length) return;
    this.toBoard(this.ink);
    ctx.strokeStyle = line.stroke.stroke;
    ctx.lineWidth = line.stroke.strokeWidth;
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    ctx.beginPath();
    ctx.moveTo(start[0], start[1]);
    for (let i = from; i < points.length; i++) ctx.lineTo(points[i]![0], points[i]![1]);
    ctx.stroke();
  }

  private strokeLines(): StrokeLines<InkLine> {
    return {
      add: (stroke) => {
        const line = { stroke, points: [] };
        this.lines.add(line);
        return line;
      },
      append: (line, points) => {
        const from = line.points.length;
        line.points.push(...points);
        this.segment(line, from);
      },
      remove: (line) => {
        this.lines.delete(line);
        this.redrawInk();
      },
    };
  }
}
