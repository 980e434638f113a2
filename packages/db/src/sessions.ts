import { sql } from 'drizzle-orm';
import type { Member, MembershipStatus, Role, RoomEvent, RoomInfo, SessionEndReason } from '@wb/protocol';
import { settingColumns } from './lessonSettingsColumns.ts';
import { toMember, toRoom } from './rooms.ts';
import { lowerHandsOf } from './hands.ts';
import { appendAttendance } from './attendance.ts';
import { msFromNow, type Clock } from './clock.ts';
import { attendanceFactId } from './eventIds.ts';
import { releaseLocksOfSessions } from './locks.ts';
import { lockMembership } from './memberships.ts';
import { appendRoomEvent } from './roomLog.ts';
import { AlreadyApplied, date, rows, type Db, type Executor } from './sql.ts';

export interface SessionRecord {
  id: string;
  roomId: string;
  userId: string;
  expiresAt: Date;
}

/** Issues a session for a member. The caller keeps the token; only its hash reaches the store. */
export async function openSession(
  executor: Executor,
  clock: Clock,
  input: { id: string; roomId: string; userId: string; tokenHash: string; ttlMs: number },
): Promise<SessionRecord> {
  const [row] = await rows<{ expires_at: unknown }>(
    executor,
    sql`INSERT INTO sessions (id, room_id, user_id, token_hash, created_at, expires_at)
        VALUES (${input.id}::uuid, ${input.roomId}::uuid, ${input.userId}::uuid, ${input.tokenHash},
                ${clock.now()}, ${msFromNow(clock, input.ttlMs)})
        RETURNING expires_at`,
  );
  return { id: input.id, roomId: input.roomId, userId: input.userId, expiresAt: date(row!.expires_at) };
}

export interface AuthenticatedSession {
  session: SessionRecord;
  member: Member;
  room: RoomInfo;
}

export type AuthenticateResult =
  | ({ decision: 'ok' } & AuthenticatedSession)
  /** A usable session of a member waiting in the lobby: it may ask about its admission, nothing else. */
  | ({ decision: 'pending' } & AuthenticatedSession)
  /** Removed by the teacher, with the reason they gave (if any), so a reload still says why. */
  | { decision: 'revoked'; reason: string | null }
  | { decision: 'unknown' | 'closed' | 'expired' | 'denied' | 'archived' | 'ended' };

/**
 * Resolves a token hash to its session, member and room, checking every condition that makes it
 * unusable. Called on the socket handshake and by HTTP routes acting for a session.
 */
export async function authenticateSession(
  executor: Executor,
  clock: Clock,
  tokenHash: string,
): Promise<AuthenticateResult> {
  const [row] = await rows<{
    id: string;
    room_id: string;
    user_id: string;
    session_status: string;
    expires_at: unknown;
    expired: boolean;
    display_name: string;
    role: Role;
    member_status: MembershipStatus;
    color_index: number;
    revoke_reason: string | null;
    pen_muted: boolean;
    hand_raised_at: unknown;
    code: string;
    title: string;
    room_status: 'open' | 'ended' | 'archived';
    require_approval: boolean;
    timer_ends_at: unknown;
    timer_remaining_ms: unknown;
    timer_duration_ms: unknown;
    timer_freeze: boolean;
    timer_sound: boolean;
    [settingColumn: string]: unknown;
  }>(
    executor,
    sql`SELECT s.id, s.room_id, s.user_id, s.status AS session_status, s.expires_at,
               s.expires_at <= ${clock.now()} AS expired,
               m.display_name, m.role, m.status AS member_status, m.color_index, m.revoke_reason, m.pen_muted, m.hand_raised_at,
               r.code, r.title, r.status AS room_status, r.require_approval, ${settingColumns('r')},
               r.timer_ends_at, r.timer_remaining_ms, r.timer_duration_ms, r.timer_freeze, r.timer_sound
        FROM sessions s
        JOIN memberships m ON m.room_id = s.room_id AND m.user_id = s.user_id
        JOIN rooms r ON r.id = s.room_id
        WHERE s.token_hash = ${tokenHash}`,
  );
  if (!row) return { decision: 'unknown' };
  if (row.member_status === 'revoked') return { decision: 'revoked', reason: row.revoke_reason };
  if (row.member_status === 'denied') return { decision: 'denied' };
  // Before `closed`: archiving closes every session, and the reason the person should hear is
  // that the lesson ended, not that their session did.
  if (row.room_status === 'archived') return { decision: 'archived' };
  // An ended lesson stays the teacher's (to read, export, reopen); for everyone else it is over.
  if (row.room_status === 'ended' && row.role !== 'teacher') return { decision: 'ended' };
  if (row.session_status !== 'open') return { decision: 'closed' };
  if (row.expired) return { decision: 'expired' };
  return {
    decision: row.member_status === 'pending' ? 'pending' : 'ok',
    session: { id: row.id, roomId: row.room_id, userId: row.user_id, expiresAt: date(row.expires_at) },
    member: toMember({ user_id: row.user_id, display_name: row.display_name, role: row.role, status: row.member_status, color_index: row.color_index, pen_muted: row.pen_muted, hand_raised_at: row.hand_raised_at }),
    room: toRoom({ ...row, id: row.room_id, status: row.room_status }),
  };
}

const attendanceKindFor = {
  signed_out: 'signed_out',
  revoked: 'membership_revoked',
  server: 'session_closed',
  lesson_ended: 'lesson_ended',
} as const;

export type CloseSessionResult =
  | { decision: 'closed'; events: RoomEvent[] }
  | { decision: 'already_closed' };

/**
 * Closes an open session at once: its lease goes, the room hears `session.closed` with the
 * reason, and attendance records how it ended. Closing a closed session changes nothing (I3).
 */
export async function closeSession(
  db: Db,
  clock: Clock,
  input: { sessionId: string; reason: SessionEndReason; requestId: string | null },
): Promise<CloseSessionResult> {
  try {
    return await db.transaction(async (tx) => {
      const [closed] = await rows<{ room_id: string; user_id: string }>(
        tx,
        sql`UPDATE sessions SET status = 'closed', closed_at = ${clock.now()}, closed_reason = ${input.reason}
            WHERE id = ${input.sessionId}::uuid AND status = 'open'
            RETURNING room_id, user_id`,
      );
      if (!closed) return { decision: 'already_closed' as const };
      await tx.execute(sql`DELETE FROM presence_leases WHERE session_id = ${input.sessionId}::uuid`);
      const event = await appendRoomEvent(tx, clock, closed.room_id, 'session.closed', { sessionId: input.sessionId }, {
        sessionId: input.sessionId,
        userId: closed.user_id,
        reason: input.reason,
      });
      await appendAttendance(tx, clock, {
        eventId: event.eventId,
        roomId: closed.room_id,
        userId: closed.user_id,
        sessionId: input.sessionId,
        kind: attendanceKindFor[input.reason],
        requestId: input.requestId,
      });
      const released = await releaseLocksOfSessions(tx, clock, [input.sessionId]);
      // A student who leaves on purpose takes their hand down with them (a lost connection does not).
      const hands = input.reason === 'signed_out' ? await lowerHandsOf(tx, clock, closed.room_id, closed.user_id, null) : [];
      return { decision: 'closed' as const, events: [event, ...released, ...hands] };
    });
  } catch (error) {
    if (error instanceof AlreadyApplied) return { decision: 'already_closed' };
    throw error;
  }
}

export type RevokeMemberResult =
  | { decision: 'revoked'; events: RoomEvent[]; closedSessionIds: string[] }
  /** `not_admitted`: the member waits in the lobby or was denied from it; deny is the way to refuse them. */
  | { decision: 'already_revoked' | 'not_a_member' | 'cannot_revoke_teacher' | 'not_admitted' };

/**
 * Revokes a student's membership (durable), closes every open session of theirs and removes
 * their leases, in one transaction. Every later renewal, edit or handshake of theirs is refused.
 */
export async function revokeMember(
  db: Db,
  clock: Clock,
  input: { roomId: string; userId: string; by: string; reason: string | null; requestId: string | null },
): Promise<RevokeMemberResult> {
  return db.transaction(async (tx) => {
    const target = await lockMembership(tx, input.roomId, input.userId);
    if (!target) return { decision: 'not_a_member' as const };
    if (target.role === 'teacher') return { decision: 'cannot_revoke_teacher' as const };
    if (target.status === 'revoked') return { decision: 'already_revoked' as const };
    if (target.status !== 'active') return { decision: 'not_admitted' as const };
    await tx.execute(
      sql`UPDATE memberships SET status = 'revoked', revoked_by = ${input.by}::uuid, revoked_at = ${clock.now()},
                                 revoke_reason = ${input.reason}
          WHERE room_id = ${input.roomId}::uuid AND user_id = ${input.userId}::uuid AND status = 'active'`,
    );
    const closed = await rows<{ id: string }>(
      tx,
      sql`UPDATE sessions SET status = 'closed', closed_at = ${clock.now()}, closed_reason = 'revoked'
          WHERE room_id = ${input.roomId}::uuid AND user_id = ${input.userId}::uuid AND status = 'open'
          RETURNING id`,
    );
    await tx.execute(
      sql`DELETE FROM presence_leases WHERE room_id = ${input.roomId}::uuid AND user_id = ${input.userId}::uuid`,
    );
    const revokedAt = await rows<{ n: unknown }>(
      tx,
      sql`SELECT count(*) AS n FROM attendance WHERE room_id = ${input.roomId}::uuid AND user_id = ${input.userId}::uuid AND kind = 'membership_revoked'`,
    );
    const nth = Number(revokedAt[0]?.n ?? 0) + 1;
    const event = await appendRoomEvent(tx, clock, input.roomId, 'member.revoked', { userId: input.userId, nth }, {
      userId: input.userId,
      by: input.by,
      reason: input.reason,
    });
    const sessionIds = closed.map((c) => c.id);
    for (const sessionId of sessionIds.length > 0 ? sessionIds : [null]) {
      await appendAttendance(tx, clock, {
        eventId: attendanceFactId(event.eventId, sessionId),
        roomId: input.roomId,
        userId: input.userId,
        sessionId,
        kind: 'membership_revoked',
        requestId: input.requestId,
        detail: { by: input.by, reason: input.reason },
      });
    }
    const released = await releaseLocksOfSessions(tx, clock, sessionIds);
    // A removed student's hand goes down with them.
    const hands = await lowerHandsOf(tx, clock, input.roomId, input.userId, input.by);
    return { decision: 'revoked' as const, events: [event, ...released, ...hands], closedSessionIds: sessionIds };
  });
}
