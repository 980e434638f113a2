import type { InkPoint } from '@wb/protocol';
import type { LiveStroke } from '../sync/liveInk.ts';

/** Where a board's live strokes are drawn: one line per stroke, grown by appending points. */
export interface StrokeLines<Line> {
  /** A new, empty line in the stroke's style. */
  add(stroke: LiveStroke): Line;
  /** Points added at the end of a line. */
  append(line: Line, points: readonly InkPoint[]): void;
  remove(line: Line): void;
}

/**
 * Others' strokes on one board while drawn (live ink), kept on a grid tile from its board engine's
 * ink store (one update a frame at most, boardEngine.ts) without React: a stroke that grew gets
 * only its new points appended to its line, never its whole point list again; a stroke that ended
 * loses its line in the update that ends it. Pure: the lines are a port (the tile's canvas in
 * tilePainter.ts, a recorder in the tests).
 *
 * Rules (named in boardInkLayer.test.ts):
 * - TI1 One draw a frame: however many batches arrive within a frame, a board's strokes are drawn
 *   once in it, with every point they brought.
 * - TI2 Append only: a stroke that grew gets its new points appended to its line; each point is on
 *   the line once, in order; a stroke that did not change is not touched.
 * - TI3 An ended stroke leaves at once: in the task that brought its element (which the tile draws
 *   in that task too), never a frame later, and a late batch never brings it back (LI2).
 */
export class BoardInkLayer<Line> {
  private readonly drawn = new Map<string, { line: Line; stroke: LiveStroke; count: number }>();

  constructor(private readonly lines: StrokeLines<Line>) {}

  /** Brings the lines to the board's strokes as they are now (none: the board has no live ink). */
  draw(strokes: ReadonlyMap<string, LiveStroke> | undefined): void {
    for (const [id, d] of this.drawn) {
      if (strokes?.has(id)) continue;
      this.lines.remove(d.line);
      this.drawn.delete(id);
    }
    for (const stroke of strokes?.values() ?? []) {
      let d = this.drawn.get(stroke.strokeId);
      // Strokes are immutable: the same object has nothing new.
      if (d?.stroke === stroke) continue;
      // A stroke only grows (LI1); anything else is drawn again from its first point.
      if (d && (stroke.points.length < d.count || d.stroke.stroke !== stroke.stroke || d.stroke.strokeWidth !== stroke.strokeWidth)) {
        this.lines.remove(d.line);
        d = undefined;
      }
      if (!d) {
        d = { line: this.lines.add(stroke), stroke, count: 0 };
        this.drawn.set(stroke.strokeId, d);
      }
      if (stroke.points.length > d.count) this.lines.append(d.line, stroke.points.slice(d.count));
      d.stroke = stroke;
      d.count = stroke.points.length;
    }
  }

  /** Removes every line (the layer leaves the page). */
  clear(): void {
    this.draw(undefined);
  }
}
