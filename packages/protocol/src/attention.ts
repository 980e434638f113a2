import { z } from 'zod';
import { Coordinate, RequestId, SessionId } from './primitives.ts';

/**
 * The teacher's attention kit on the ephemeral path (I13): the laser pointer and "follow the
 * teacher". Nothing here is stored; every packet passes the socket's packet gate like a cursor.
 */

/** Laser trail points a sender's client sends at most (ms between packets): a cursor's rate. */
export const LASER_SYNC_MS = 33;
/** How long a laser point stays visible on the receivers' screens before it has faded (ms). */
export const LASER_FADE_MS = 1_200;

/** `laser` (volatile): the laser pointer is at (x, y) in board coordinates. */
export const LaserUpdate = z.strictObject({ x: Coordinate, y: Coordinate });
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

/** `viewport` (volatile, teacher): where the teacher's view is now, for the students following. */
export const ViewportUpdate = SharedView;
export type ViewportUpdate = SharedView;

/** The teacher's view in a batch, sent to the followers only. */
export const ViewportEntry = z.object({ sessionId: SessionId, view: SharedView });
export type ViewportEntry = z.infer<typeof ViewportEntry>;

/** `follow.set` (student): follow the teacher's view, or stop (they panned away). */
export const FollowSetRequest = z.strictObject({ requestId: RequestId, following: z.boolean() });
export type FollowSetRequest = z.infer<typeof FollowSetRequest>;

/** `follow.bring` (teacher): move every student's view to `view`, once. */
export const FollowBringRequest = z.strictObject({ requestId: RequestId, view: SharedView });
export type FollowBringRequest = z.infer<typeof FollowBringRequest>;

/** `follow.present` (teacher): start presenting (students follow until it stops) or stop. */
export const FollowPresentRequest = z.strictObject({ requestId: RequestId, presenting: z.boolean(), view: SharedView });
export type FollowPresentRequest = z.infer<typeof FollowPresentRequest>;

/**
 * `follow` (server to client):
 * - `bring`: the teacher brought everyone to `view` (students move there once);
 * - `presenting`: the teacher started (`presenting: true`, students follow from `view`) or stopped;
 * - `followers`: (to the teacher) how many students follow now.
 */
export const FollowSignal = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('bring'), view: SharedView }),
  z.object({ kind: z.literal('presenting'), presenting: z.boolean(), view: SharedView }),
  z.object({ kind: z.literal('followers'), count: z.number().int().min(0) }),
]);
export type FollowSignal = z.infer<typeof FollowSignal>;
