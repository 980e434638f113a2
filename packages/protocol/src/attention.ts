import { z } from 'zod';
import { Coordinate, RequestId, RoomId, SessionId } from './primitives.ts';

/**
 * The teacher's attention kit on the ephemeral path (I13): the laser pointer and "follow the
 * teacher". Nothing here is stored; every packet passes the socket's packet gate like a cursor.
 *
 * The kit works on every page of a lesson (issue 39). A point or a view is in one board's
 * coordinates, so each names its board: `boardId`, a page of the lesson the sender reads now
 * (`page.sync`), or absent for the lesson's own page, the class board (so a packet of the shape
 * before pages is the class board's, as it always was). A private board has no attention kit.
 */

/** Laser trail points a sender's client sends at most (ms between packets): a cursor's rate. */
export const LASER_SYNC_MS = 33;
/** How long a laser point stays visible on the receivers' screens before it has faded (ms). */
export const LASER_FADE_MS = 1_200;

/** The board a point or a view is on: a page of the lesson; absent, the class board. */
export const AttentionBoardId = RoomId;

/**
 * `laser` (volatile): the laser pointer is at (x, y) in board coordinates, on the page `boardId`
 * (its `board.pointers` batch, to its audience) or, without it, on the class board (`cursors`).
 */
export const LaserUpdate = z.strictObject({ x: Coordinate, y: Coordinate, boardId: AttentionBoardId.optional() });
export type LaserUpdate = z.infer<typeof LaserUpdate>;

/** One laser point in a batch: `[sessionId, x, y]` (the sender's latest point of the tick). */
export const LaserEntry = z.tuple([SessionId, z.number(), z.number()]);
export type LaserEntry = z.infer<typeof LaserEntry>;

/**
 * What the teacher sees of the board, in board coordinates: the centre of the visible area and
 * its size. A follower fits it to their own screen (a phone shows the same centre, zoomed so the
 * teacher's visible area fits).
 */
export const SharedView = z.strictObject({
  cx: Coordinate,
  cy: Coordinate,
  w: z.number().finite().positive().max(10_000_000),
  h: z.number().finite().positive().max(10_000_000),
});
export type SharedView = z.infer<typeof SharedView>;

/** Viewport packets the teacher's client sends at most (ms between packets) while presenting. */
export const VIEWPORT_SYNC_MS = 66;

/**
 * `viewport` (volatile, teacher): where the teacher's view is now, for the students following: the
 * view's fields, and `boardId` when it is a page's (absent: the class board's).
 */
export const ViewportUpdate = SharedView.extend({ boardId: AttentionBoardId.optional() });
export type ViewportUpdate = z.infer<typeof ViewportUpdate>;

/** The teacher's view in a batch, sent to the followers only; `boardId` as in `ViewportUpdate`. */
export const ViewportEntry = z.object({ sessionId: SessionId, view: SharedView, boardId: AttentionBoardId.optional() });
export type ViewportEntry = z.infer<typeof ViewportEntry>;

/** `follow.set` (student): follow the teacher's view, or stop (they panned away). */
export const FollowSetRequest = z.strictObject({ requestId: RequestId, following: z.boolean() });
export type FollowSetRequest = z.infer<typeof FollowSetRequest>;

/** `follow.bring` (teacher): move every student's view to `view` (on the page `boardId`, absent: the class board), once. */
export const FollowBringRequest = z.strictObject({ requestId: RequestId, view: SharedView, boardId: AttentionBoardId.optional() });
export type FollowBringRequest = z.infer<typeof FollowBringRequest>;

/** `follow.present` (teacher): start presenting (students follow until it stops) or stop; `view` on the page `boardId` (absent: the class board). */
export const FollowPresentRequest = z.strictObject({ requestId: RequestId, presenting: z.boolean(), view: SharedView, boardId: AttentionBoardId.optional() });
export type FollowPresentRequest = z.infer<typeof FollowPresentRequest>;

/**
 * `follow` (server to client):
 * - `bring`: the teacher brought everyone to `view` (students move there once);
 * - `presenting`: the teacher started (`presenting: true`, students follow from `view`) or stopped;
 * - `followers`: (to the teacher) how many students follow now.
 * A view's `boardId` is the page it is on, absent for the class board (as sent by the teacher).
 */
export const FollowSignal = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('bring'), view: SharedView, boardId: AttentionBoardId.optional() }),
  z.object({ kind: z.literal('presenting'), presenting: z.boolean(), view: SharedView, boardId: AttentionBoardId.optional() }),
  z.object({ kind: z.literal('followers'), count: z.number().int().min(0) }),
]);
export type FollowSignal = z.infer<typeof FollowSignal>;
