/**
 * Raised hands (issue 21): lesson state on the membership (`memberships.hand_raised_at`, migration
 * 0010), not presence, so a hand stays up across a reload, a reconnect or an expired lease.
 *
 *   down --raise (the student)--------------------------> up(at = now())     member.hand(at)
 *   up   --lower (the student, or the teacher)-----------> down              member.hand(null)
 *   up   --the student leaves (signs out, removed, ended)> down              member.hand(null)
 *
 * Each transition is one conditional UPDATE naming the state it expects (I3): raising a raised
 * hand or lowering a lowered one changes nothing and answers `already_applied`.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Member, RoomEvent } from '@wb/protocol';
import { date, rows, type Db, type Tx } from './sql.ts';
import type { Clock } from './clock.ts';
import { authorizeEdit, editTransaction, type Authorized, type EditActor } from './editRights.ts';
import { appendRoomEvent } from './roomLog.ts';
import { memberColumns, toMember, type MemberRow } from './rooms.ts';

export type HandResult =
  | { decision: 'applied'; member: Member; events: RoomEvent[] }
  | { decision: 'already_applied'; member: Member }
  | { decision: 'not_a_member' | 'forbidden' | 'not_found' };

/**
 * Raises (`raised`) or lowers a student's hand. A student raises and lowers only their own; the
 * teacher lowers anyone's and raises no one's. The acting session must be allowed in the room
 * (an open session of an active member of an open lesson), as for an edit.
 */
export async function setHand(db: Db, clock: Clock, actor: EditActor, input: { userId: string; raised: boolean }): Promise<HandResult> {
  return editTransaction(db, async (tx) => {
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth) return { decision: 'not_a_member' as const };
    const own = input.userId === actor.userId;
    if (auth.role === 'teacher' ? input.raised : !own) return { decision: 'forbidden' as const };
    const [changed] = await rows<MemberRow>(
      tx,
      input.raised
        ? sql`UPDATE memberships SET hand_raised_at = ${clock.now()}
              WHERE room_id = ${actor.roomId}::uuid AND user_id = ${input.userId}::uuid AND role = 'student'
                AND status = 'active' AND hand_raised_at IS NULL
              RETURNING ${memberColumns}`
        : sql`UPDATE memberships SET hand_raised_at = NULL
              WHERE room_id = ${actor.roomId}::uuid AND user_id = ${input.userId}::uuid AND role = 'student'
                AND hand_raised_at IS NOT NULL
              RETURNING ${memberColumns}`,
    );
    if (!changed) {
      const [row] = await rows<MemberRow>(
        tx,
        sql`SELECT ${memberColumns} FROM memberships WHERE room_id = ${actor.roomId}::uuid AND user_id = ${input.userId}::uuid AND role = 'student'`,
      );
      return row ? { decision: 'already_applied' as const, member: toMember(row) } : { decision: 'not_found' as const };
    }
    // A hand goes up only in an open lesson: the raise's bump repeats the check (I11).
    const event = await handEvent(tx, clock, actor.roomId, changed, actor.userId, input.raised ? auth : undefined);
    return { decision: 'applied' as const, member: toMember(changed), events: [event] };
  });
}

export type LowerAllResult = { decision: 'applied'; events: RoomEvent[] } | { decision: 'not_a_member' | 'forbidden' };

/** Teacher: lowers every raised hand of the lesson, one `member.hand` each (none when none is up). */
export async function lowerAllHands(db: Db, clock: Clock, actor: EditActor): Promise<LowerAllResult> {
  return db.transaction(async (tx) => {
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth) return { decision: 'not_a_member' as const };
    if (auth.role !== 'teacher') return { decision: 'forbidden' as const };
    return { decision: 'applied' as const, events: await lowerHandsOf(tx, clock, actor.roomId, null, actor.userId) };
  });
}

/**
 * Inside another transaction: lowers the raised hand of `userId` (or of everyone, `null`) because
 * they left. `by`: who lowered it (the student leaving, or the teacher).
 */
export async function lowerHandsOf(tx: Tx, clock: Clock, roomId: string, userId: string | null, by: string | null): Promise<RoomEvent[]> {
  const lowered = await rows<MemberRow>(
    tx,
    sql`UPDATE memberships SET hand_raised_at = NULL
        WHERE room_id = ${roomId}::uuid AND hand_raised_at IS NOT NULL
          ${userId === null ? sql`` : sql`AND user_id = ${userId}::uuid`}
        RETURNING ${memberColumns}`,
  );
  const events: RoomEvent[] = [];
  for (const member of lowered) events.push(await handEvent(tx, clock, roomId, member, by ?? member.user_id));
  return events;
}

async function handEvent(tx: Tx, clock: Clock, roomId: string, member: MemberRow, by: string, editedUnder?: Authorized): Promise<RoomEvent> {
  const raisedAt = member.hand_raised_at === null ? null : date(member.hand_raised_at).toISOString();
  return appendRoomEvent(
    tx,
    clock,
    roomId,
    'member.hand',
    { userId: member.user_id, occurrence: randomUUID() },
    { userId: member.user_id, raisedAt, by },
    editedUnder,
  );
}
