/**
 * How a drag lock ends, whichever path ends it (release, break, expiry, the holder gone, a pin, the
 * board lock): the lock columns are cleared and the room hears `lock.released` for the generation
 * that ended. The generation itself stays, so the next grant is above it (I4).
 */
import { sql } from 'drizzle-orm';
import type { LockReleaseReason, RoomEvent } from '@wb/protocol';
import type { Clock } from './clock.ts';
import { appendRoomEvent } from './roomLog.ts';
import type { Tx } from './sql.ts';

/** The SET list that frees an element's lock, for any UPDATE of `elements`. */
export const FREE_LOCK = sql.raw('lock_session_id = NULL, lock_user_id = NULL, lock_expires_at = NULL, lock_request_id = NULL');

/** Appends `lock.released` for the generation that just ended. */
export function releasedEvent(
  tx: Tx,
  clock: Clock,
  roomId: string,
  elementId: string,
  generation: number,
  reason: LockReleaseReason,
): Promise<RoomEvent> {
  return appendRoomEvent(tx, clock, roomId, 'lock.released', { elementId, generation }, { elementId, generation, reason });
}
