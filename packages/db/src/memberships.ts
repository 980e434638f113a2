import { sql } from 'drizzle-orm';
import type { MembershipStatus, Role, RoomEvent } from '@wb/protocol';
import type { Clock } from './clock.ts';
import { appendRoomEvent, nextRoomRevision } from './roomLog.ts';
import { rows, type Db, type Executor } from './sql.ts';

export type RestoreMemberResult =
  | { decision: 'restored'; events: RoomEvent[] }
  | { decision: 'not_revoked' | 'not_a_member' };

/**
 * Lets a revoked member back in: the one transition out of `revoked`, written as one conditional
 * UPDATE on `status = 'revoked'` (I3), so a retried or duplicated restore changes nothing. Their
 * sessions stay closed (a revocation closed them for good); they join again with their member
 * key and are the same member. The room hears `member.restored`.
 */
export async function restoreMember(
  db: Db,
  clock: Clock,
  input: { roomId: string; userId: string; by: string },
): Promise<RestoreMemberResult> {
  return db.transaction(async (tx) => {
    const target = await lockMembership(tx, input.roomId, input.userId);
    if (!target) return { decision: 'not_a_member' as const };
    const restored = await rows<{ user_id: string }>(
      tx,
      sql`UPDATE memberships SET status = 'active', revoked_by = NULL, revoked_at = NULL, revoke_reason = NULL
          WHERE room_id = ${input.roomId}::uuid AND user_id = ${input.userId}::uuid AND status = 'revoked'
          RETURNING user_id`,
    );
    if (restored.length === 0) return { decision: 'not_revoked' as const };
    // Named by the revision it will have (the room row is locked from here on, so it is exact):
    // unique, and each revocation can be undone only once anyway by the conditional UPDATE.
    const roomRevision = await nextRoomRevision(tx, input.roomId);
    const event = await appendRoomEvent(tx, clock, input.roomId, 'member.restored', { userId: input.userId, roomRevision }, {
      userId: input.userId,
      by: input.by,
    });
    return { decision: 'restored' as const, events: [event] };
  });
}

/**
 * A membership's role and status, its row locked until the caller's transaction ends. Every
 * change of a membership's status starts here, so admissions, denials, revocations, restores and
 * the share-locked edits of `authorizeEdit` serialize on the one row.
 */
export async function lockMembership(
  tx: Executor,
  roomId: string,
  userId: string,
): Promise<{ role: Role; status: MembershipStatus } | null> {
  const [row] = await rows<{ role: Role; status: MembershipStatus }>(
    tx,
    sql`SELECT role, status FROM memberships WHERE room_id = ${roomId}::uuid AND user_id = ${userId}::uuid FOR UPDATE`,
  );
  return row ?? null;
}
