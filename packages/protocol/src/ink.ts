import { z } from 'zod';
import { Color, ElementId, StrokeWidth } from './elements.ts';
import { Coordinate, MAX_COORDINATE, SessionId } from './primitives.ts';

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

/** `z.uuid()`'s pattern (ElementId, boardId), for the hot path; the schema test holds them equal. */
const UUID = /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/;
/** `Color`'s pattern. */
const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;
const isCoordinate = (value: unknown): value is number => typeof value === 'number' && value >= -MAX_COORDINATE && value <= MAX_COORDINATE;
const isPressure = (value: unknown): value is number => typeof value === 'number' && value >= 0 && value <= 1;

/**
 * `InkUpdate` checked without zod, for the server's hot path (30 packets a second per drawer, each
 * with up to 64 points: zod's tuples were most of the server's validation time, issue 42). It
 * answers only for the well-formed case: the packet itself when `InkUpdate.parse` would return an
 * equal value, or null when it is anything else, and then `InkUpdate` decides and words the error.
 */
export function readInkUpdate(packet: unknown): InkUpdate | null {
  if (typeof packet !== 'object' || packet === null || Array.isArray(packet)) return null;
  if (Object.getPrototypeOf(packet) !== Object.prototype) return null;
  const { strokeId, from, points, stroke, strokeWidth, end, boardId } = packet as Record<string, unknown>;
  if (typeof strokeId !== 'string' || !UUID.test(strokeId)) return null;
  if (typeof from !== 'number' || !Number.isInteger(from) || from < 0 || from > MAX_LIVE_INK_POINTS) return null;
  if (!Array.isArray(points) || points.length > MAX_INK_POINTS_PER_PACKET) return null;
  for (const point of points as unknown[]) {
    if (!Array.isArray(point) || point.length !== 3 || !isCoordinate(point[0]) || !isCoordinate(point[1]) || !isPressure(point[2])) return null;
  }
  if (typeof stroke !== 'string' || !HEX_COLOR.test(stroke)) return null;
  if (typeof strokeWidth !== 'number' || !(strokeWidth >= 0.5 && strokeWidth <= 64)) return null;
  let keys = 5;
  if (end !== undefined) {
    if (end !== 'up' && end !== 'cancel') return null;
    keys += 1;
  }
  if (boardId !== undefined) {
    if (typeof boardId !== 'string' || !UUID.test(boardId)) return null;
    keys += 1;
  }
  if (Object.keys(packet).length !== keys) return null;
  return packet as InkUpdate;
}

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
