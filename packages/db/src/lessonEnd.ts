/**
 * The end of a lesson, and its reopening, by the teacher:
 *   open  --endLesson-->    ended   every student session closed (`session.closed`, reason
 *                                   `lesson_ended`; attendance `lesson_ended`), their leases and drag
 *                                   locks gone; joins refused; the teacher's sessions stay
 *   ended --reopenLesson--> open    students may join again (their old sessions stay closed)
 * Each is one transaction that takes the room row FOR UPDATE first, so an edit racing the end is
 * serialised like a policy change (editRights.ts): it commits before the end, or it is refused.
 */
import { sql } from 'drizzle-orm';
import type { RoomEvent, RoomInfo } from '@wb/protocol';
import { appendAttendance } from './attendance.ts';
import type { Clock } from './clock.ts';
import { authorizeEdit, type EditActor } from './editRights.ts';
import { lowerHandsOf } from './hands.ts';
import { releaseLocksOfSessions } from './locks.ts';
import { appendRoomEvent, nextRoomRevision } from './roomLog.ts';
import { roomColumns, toRoom, type RoomRow } from './rooms.ts';
import { rows, type Db } from './sql.ts';

export type LessonEndResult =
  | { decision: 'applied'; room: RoomInfo; events: RoomEvent[]; closedSessionIds: string[] }
  | { decision: 'already_applied'; room: RoomInfo }
  | { decision: 'not_a_member' | 'forbidden' };

/** Teacher: ends the lesson for every student at once. Ending an ended lesson changes nothing. */
export async function endLesson(db: Db, clock: Clock, actor: EditActor): Promise<LessonEndResult> {
  return db.transaction(async (tx) => {
    const [current] = await rows<RoomRow>(tx, sql`SELECT ${roomColumns} FROM rooms WHERE id = ${actor.roomId}::uuid FOR UPDATE`);
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth || !current) return { decision: 'not_a_member' as const };
    if (auth.role !== 'teacher') return { decision: 'forbidden' as const };
    if (current.status === 'ended') return { decision: 'already_applied' as const, room: toRoom(current) };
    const [ended] = await rows<RoomRow>(
      tx,
      sql`UPDATE rooms SET status = 'ended' WHERE id = ${actor.roomId}::uuid AND status = 'open' RETURNING ${roomColumns}`,
    );
    if (!ended) return { decision: 'not_a_member' as const };
    const room = toRoom(ended);
    const roomRevision = await nextRoomRevision(tx, room.id);
    const events = [await appendRoomEvent(tx, clock, room.id, 'room.updated', { roomRevision }, room)];
    // Session rows before lease rows: the store's lock order (docs/store.md).
    const closed = await rows<{ id: string; user_id: string }>(
      tx,
      sql`UPDATE sessions s SET status = 'closed', closed_at = ${clock.now()}, closed_reason = 'lesson_ended'
          FROM memberships m
          WHERE s.room_id = ${room.id}::uuid AND s.status = 'open'
            AND m.room_id = s.room_id AND m.user_id = s.user_id AND m.role = 'student'
          RETURNING s.id, s.user_id`,
    );
    const sessionIds = closed.map((c) => c.id);
    if (sessionIds.length > 0) {
      await tx.execute(sql`DELETE FROM presence_leases WHERE session_id = ANY(${`{${sessionIds.join(',')}}`}::uuid[])`);
    }
    for (const session of closed) {
      const event = await appendRoomEvent(tx, clock, room.id, 'session.closed', { sessionId: session.id }, {
        sessionId: session.id,
        userId: session.user_id,
        reason: 'lesson_ended',
      });
      events.push(event);
      await appendAttendance(tx, clock, {
        eventId: event.eventId,
        roomId: room.id,
        userId: session.user_id,
        sessionId: session.id,
        kind: 'lesson_ended',
        requestId: null,
        detail: { by: actor.userId },
      });
    }
    events.push(...(await releaseLocksOfSessions(tx, clock, sessionIds)));
    // Every student left with the lesson: no hand stays up.
    events.push(...(await lowerHandsOf(tx, clock, room.id, null, actor.userId)));
    return { decision: 'applied' as const, room, events, closedSessionIds: sessionIds };
  });
}

export type ReopenLessonResult =
  | { decision: 'applied'; room: RoomInfo; events: RoomEvent[] }
  | { decision: 'already_applied'; room: RoomInfo }
  | { decision: 'not_a_member' | 'forbidden' };

/** Teacher: opens an ended lesson again; students join as before (the same member keys). */
export async function reopenLesson(db: Db, clock: Clock, actor: EditActor): Promise<ReopenLessonResult> {
  return db.transaction(async (tx) => {
    const [current] = await rows<RoomRow>(tx, sql`SELECT ${roomColumns} FROM rooms WHERE id = ${actor.roomId}::uuid FOR UPDATE`);
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth || !current) return { decision: 'not_a_member' as const };
    if (auth.role !== 'teacher') return { decision: 'forbidden' as const };
    if (current.status === 'open') return { decision: 'already_applied' as const, room: toRoom(current) };
    const [reopened] = await rows<RoomRow>(
      tx,
      sql`UPDATE rooms SET status = 'open' WHERE id = ${actor.roomId}::uuid AND status = 'ended' RETURNING ${roomColumns}`,
    );
    if (!reopened) return { decision: 'not_a_member' as const };
    const room = toRoom(reopened);
    const roomRevision = await nextRoomRevision(tx, room.id);
    return { decision: 'applied' as const, room, events: [await appendRoomEvent(tx, clock, room.id, 'room.updated', { roomRevision }, room)] };
  });
}
