import { z } from 'zod';
import { Color, ElementId, StrokeWidth } from './elements.ts';
import { Coordinate, SessionId } from './primitives.ts';

/**
 * Live ink: a pen stroke while it is being drawn, on the ephemeral path (I13). The drawer sends
 * the points drawn since its last packet; the server batches them per room tick with the cursors
 * and never stores them; at pointer-up the durable `element.create` (with the stroke's id as the
 * element's id) replaces the live stroke on every screen.
 */

/** Live-ink packets per drawer at most this often (ms): 30 Hz, like cursors. */
export const INK_SYNC_MS = 33;
/** Points in one `ink` packet at most (a 240 Hz pen gives about 8 per 33 ms). */
export const MAX_INK_POINTS_PER_PACKET = 64;
/**
 * A live stroke's points at most (raw samples, before the durable stroke is simplified to
 * MAX_PEN_POINTS); past it the drawer sends nothing more until pointer-up, receivers keep no more.
 */
export const MAX_LIVE_INK_POINTS = 4_000;

/** One live-ink point in board coordinates: `[x, y, pressure 0..1]` (absolute, not relative). */
export const InkPoint = z.tuple([Coordinate, Coordinate, z.number().finite().min(0).max(1)]);
export type InkPoint = z.infer<typeof InkPoint>;

/**
 * How a stroke ended: `up` (pointer-up: its durable element follows through `element.create` with
 * the same id) or `cancel` (dropped: nothing follows).
 */
export const InkEnd = z.enum(['up', 'cancel']);
export type InkEnd = z.infer<typeof InkEnd>;

/**
 * Client to server, volatile (`ink`): the points of stroke `strokeId` from index `from` on.
 * Every packet carries the style, so a receiver that missed the first still draws the rest.
 */
export const InkUpdate = z.strictObject({
  /** A new UUID per stroke, the id its durable element will be created with. */
  strokeId: ElementId,
  /** The index in the stroke of `points[0]`. */
  from: z.number().int().min(0).max(MAX_LIVE_INK_POINTS),
  points: z.array(InkPoint).max(MAX_INK_POINTS_PER_PACKET),
  stroke: Color,
  strokeWidth: StrokeWidth,
  end: InkEnd.optional(),
  /** The private board drawn on (docs/boards.md); absent, the class board. */
  boardId: z.uuid().optional(),
});
export type InkUpdate = z.infer<typeof InkUpdate>;

/**
 * Server to client, in a `cursors` batch: one stroke's points appended during the tick (several
 * packets of one drawer joined), with the drawing session. It names no user: the roster does.
 */
export const InkEntry = z.object({
  strokeId: ElementId,
  sessionId: SessionId,
  from: z.number().int().min(0),
  points: z.array(InkPoint),
  stroke: Color,
  strokeWidth: StrokeWidth,
  end: InkEnd.optional(),
});
export type InkEntry = z.infer<typeof InkEntry>;
