/**
 * The lobby: a room that requires approval makes each new student's membership `pending`, and the
 * teacher admits or denies it. Lifecycle, each transition one conditional statement (I3):
 *
 *   (join, approval required) --> pending                       member.pending
 *   pending --admitMember / admitAllPending--> active           member.admitted
 *   pending --denyMember--> denied (its sessions closed)        member.denied
 *   denied  --admitMember--> active (they join again)           member.admitted
 *   pending --withdrawFromLobby--> (membership removed)         member.withdrawn
 *
 * `active` never goes back to `pending` or `denied`, so each event id names its member alone.
 * The lobby writes no attendance: a waiting student was never in the lesson (docs/store.md).
 */
import { sql } from 'drizzle-orm';
import type { MembershipStatus, RoomEvent, RoomInfo } from '@wb/protocol';
import type { Clock } from './clock.ts';
import { lockMembership } from './memberships.ts';
import { appendRoomEvent } from './roomLog.ts';
import { findRoomById, roomColumns, toRoom, type RoomRow } from './rooms.ts';
import { AlreadyApplied, int, rows, type Db } from './sql.ts';

export type SetRequireApprovalResult =
  | { decision: 'changed'; room: RoomInfo; events: RoomEvent[] }
  | { decision: 'unchanged'; room: RoomInfo }
  | { decision: 'archived' | 'not_found' };

/**
 * Turns the room's "require approval" setting on or off; the room hears `room.updated`.
 * Turning it off admits nobody: members already waiting stay `pending` until the teacher decides.
 */
export async function setRequireApproval(
  db: Db,
  clock: Clock,
  input: { roomId: string; requireApproval: boolean },
): Promise<SetRequireApprovalResult> {
  return db.transaction(async (tx) => {
    const [updated] = await rows<RoomRow & { revision: unknown }>(
      tx,
      sql`UPDATE rooms SET require_approval = ${input.requireApproval}
          WHERE id = ${input.roomId}::uuid AND status = 'open' AND require_approval <> ${input.requireApproval}
          RETURNING ${roomColumns}, revision`,
    );
    if (!updated) {
      const room = await findRoomById(tx, input.roomId);
      if (!room) return { decision: 'not_found' as const };
      if (room.status !== 'open') return { decision: 'archived' as const };
      return { decision: 'unchanged' as const, room };
    }
    const room = toRoom(updated);
    // The UPDATE holds the room row, so the next revision is exactly this one.
    const event = await appendRoomEvent(tx, clock, room.id, 'room.updated', { roomRevision: int(updated.revision) + 1 }, room);
    return { decision: 'changed' as const, room, events: [event] };
  });
}

export type AdmitMemberResult =
  | { decision: 'admitted'; events: RoomEvent[] }
  /** Nothing changed: the member is `active` already (a second admit) or `revoked`. */
  | { decision: 'not_waiting'; status: MembershipStatus }
  | { decision: 'not_a_member' };

/**
 * Lets a waiting (or earlier denied) member in: `pending | denied -> active`, one conditional
 * UPDATE, appending `member.admitted`. A second admit finds `active` and changes nothing.
 */
export async function admitMember(
  db: Db,
  clock: Clock,
  input: { roomId: string; userId: string; by: string },
): Promise<AdmitMemberResult> {
  try {
    return await db.transaction(async (tx) => {
      const target = await lockMembership(tx, input.roomId, input.userId);
      if (!target) return { decision: 'not_a_member' as const };
      const admitted = await rows<{ user_id: string }>(
        tx,
        sql`UPDATE memberships
            SET status = 'active', lobby_decided_by = ${input.by}::uuid, lobby_decided_at = ${clock.now()}, lobby_reason = NULL
            WHERE room_id = ${input.roomId}::uuid AND user_id = ${input.userId}::uuid AND status IN ('pending', 'denied')
            RETURNING user_id`,
      );
      if (admitted.length === 0) return { decision: 'not_waiting' as const, status: target.status };
      const event = await appendRoomEvent(tx, clock, input.roomId, 'member.admitted', { userId: input.userId }, {
        userId: input.userId,
        by: input.by,
      });
      return { decision: 'admitted' as const, events: [event] };
    });
  } catch (error) {
    // Unreachable while `active` has no way back to the lobby; kept so a lost race stays a decision.
    if (error instanceof AlreadyApplied) return { decision: 'not_waiting', status: 'active' };
    throw error;
  }
}

export interface AdmitAllResult {
  /** The members let in by this call, in the order of their events; empty when nobody waited. */
  admitted: string[];
  events: RoomEvent[];
}

/** "Admit all": every member `pending` at this moment becomes `active`, in one transaction. */
export async function admitAllPending(
  db: Db,
  clock: Clock,
  input: { roomId: string; by: string },
): Promise<AdmitAllResult> {
  return db.transaction(async (tx) => {
    const admitted = await rows<{ user_id: string }>(
      tx,
      sql`UPDATE memberships
          SET status = 'active', lobby_decided_by = ${input.by}::uuid, lobby_decided_at = ${clock.now()}, lobby_reason = NULL
          WHERE room_id = ${input.roomId}::uuid AND status = 'pending'
          RETURNING user_id`,
    );
    const userIds = admitted.map((a) => a.user_id).sort();
    const events: RoomEvent[] = [];
    for (const userId of userIds) {
      events.push(
        await appendRoomEvent(tx, clock, input.roomId, 'member.admitted', { userId }, { userId, by: input.by }),
      );
    }
    return { admitted: userIds, events };
  });
}

export type DenyMemberResult =
  | { decision: 'denied'; events: RoomEvent[]; closedSessionIds: string[] }
  /** Nothing changed: the member is not waiting (already denied, admitted, or revoked). */
  | { decision: 'not_waiting'; status: MembershipStatus }
  | { decision: 'not_a_member' };

/**
 * Declines a waiting member: `pending -> denied`, one conditional UPDATE, and their open sessions
 * (they hold no lease while waiting) closed in the same transaction, membership row first as in
 * `revokeMember`. Joining again with the same member key is refused (`denied`).
 */
export async function denyMember(
  db: Db,
  clock: Clock,
  input: { roomId: string; userId: string; by: string; reason: string | null },
): Promise<DenyMemberResult> {
  try {
    return await db.transaction(async (tx) => {
      const target = await lockMembership(tx, input.roomId, input.userId);
      if (!target) return { decision: 'not_a_member' as const };
      const denied = await rows<{ user_id: string }>(
        tx,
        sql`UPDATE memberships
            SET status = 'denied', lobby_decided_by = ${input.by}::uuid, lobby_decided_at = ${clock.now()},
                lobby_reason = ${input.reason}
            WHERE room_id = ${input.roomId}::uuid AND user_id = ${input.userId}::uuid AND status = 'pending'
            RETURNING user_id`,
      );
      if (denied.length === 0) return { decision: 'not_waiting' as const, status: target.status };
      const closed = await rows<{ id: string }>(
        tx,
        sql`UPDATE sessions SET status = 'closed', closed_at = ${clock.now()}, closed_reason = 'revoked'
            WHERE room_id = ${input.roomId}::uuid AND user_id = ${input.userId}::uuid AND status = 'open'
            RETURNING id`,
      );
      const event = await appendRoomEvent(tx, clock, input.roomId, 'member.denied', { userId: input.userId }, {
        userId: input.userId,
        by: input.by,
        reason: input.reason,
      });
      return { decision: 'denied' as const, events: [event], closedSessionIds: closed.map((c) => c.id) };
    });
  } catch (error) {
    // `denied` is reached once per membership; a duplicate id would mean that changed.
    if (error instanceof AlreadyApplied) return { decision: 'not_waiting', status: 'denied' };
    throw error;
  }
}

export type WithdrawResult = { decision: 'withdrawn'; userId: string; events: RoomEvent[] } | { decision: 'not_waiting' };

/**
 * A waiting student cancels: every open session of theirs is closed and the `pending` membership
 * removed (conditional on still being `pending`), so nothing of the request remains. Joining again
 * asks again, as a new member. If the teacher admitted or denied them first, nothing changes here.
 */
export async function withdrawFromLobby(db: Db, clock: Clock, input: { sessionId: string }): Promise<WithdrawResult> {
  return db.transaction(async (tx) => {
    const [waiting] = await rows<{ room_id: string; user_id: string }>(
      tx,
      sql`SELECT m.room_id, m.user_id FROM sessions s
          JOIN memberships m ON m.room_id = s.room_id AND m.user_id = s.user_id
          WHERE s.id = ${input.sessionId}::uuid AND s.status = 'open' AND m.status = 'pending'
          FOR UPDATE OF m`,
    );
    if (!waiting) return { decision: 'not_waiting' as const };
    await tx.execute(
      sql`UPDATE sessions SET status = 'closed', closed_at = ${clock.now()}, closed_reason = 'signed_out'
          WHERE room_id = ${waiting.room_id}::uuid AND user_id = ${waiting.user_id}::uuid AND status = 'open'`,
    );
    const removed = await rows<{ user_id: string }>(
      tx,
      sql`DELETE FROM memberships
          WHERE room_id = ${waiting.room_id}::uuid AND user_id = ${waiting.user_id}::uuid AND status = 'pending'
          RETURNING user_id`,
    );
    if (removed.length === 0) throw new Error('pending membership changed under its row lock');
    const event = await appendRoomEvent(tx, clock, waiting.room_id, 'member.withdrawn', { userId: waiting.user_id }, {
      userId: waiting.user_id,
    });
    return { decision: 'withdrawn' as const, userId: waiting.user_id, events: [event] };
  });
}
