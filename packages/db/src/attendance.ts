import { sql } from 'drizzle-orm';
import type { AttendanceReport } from '@wb/protocol';
import { buildAttendanceReport } from './attendanceReport.ts';
import type { Clock } from './clock.ts';
import { findRoomById, listMembers } from './rooms.ts';
import type { AttendanceKind } from './schema.ts';
import { date, int, rows, type Db, type Executor } from './sql.ts';

export interface AttendanceFact {
  /** Stable across retries: appending the same fact twice leaves one row. */
  eventId: string;
  roomId: string;
  userId: string;
  sessionId: string | null;
  kind: AttendanceKind;
  requestId: string | null;
  detail?: Record<string, unknown>;
}

export interface AttendanceRow extends AttendanceFact {
  seq: number;
  at: Date;
}

/** Appends one fact at the clock's time (I6). Idempotent by event id. */
export async function appendAttendance(executor: Executor, clock: Clock, fact: AttendanceFact): Promise<void> {
  await executor.execute(
    sql`INSERT INTO attendance (event_id, room_id, user_id, session_id, kind, request_id, detail, at)
        VALUES (${fact.eventId}, ${fact.roomId}::uuid, ${fact.userId}::uuid, ${fact.sessionId}::uuid,
                ${fact.kind}, ${fact.requestId}, ${JSON.stringify(fact.detail ?? {})}::jsonb, ${clock.now()})
        ON CONFLICT (event_id) DO NOTHING`,
  );
}

/** Every attendance fact of a room, oldest first. */
export async function listAttendance(executor: Executor, roomId: string): Promise<AttendanceRow[]> {
  const found = await rows<Record<string, unknown>>(
    executor,
    sql`SELECT seq, event_id, room_id, user_id, session_id, kind, request_id, detail, at
        FROM attendance WHERE room_id = ${roomId}::uuid ORDER BY seq`,
  );
  return found.map((r) => ({
    seq: int(r.seq),
    eventId: String(r.event_id),
    roomId: String(r.room_id),
    userId: String(r.user_id),
    sessionId: r.session_id === null ? null : String(r.session_id),
    kind: r.kind as AttendanceKind,
    requestId: r.request_id === null ? null : String(r.request_id),
    detail: (typeof r.detail === 'string' ? JSON.parse(r.detail) : r.detail) as Record<string, unknown>,
    at: date(r.at),
  }));
}

/**
 * The teacher's report for a room (null when there is no such room): the attendance facts folded
 * by `buildAttendanceReport`, measured up to the database clock's now (I2). One repeatable-read
 * snapshot, so the facts, the names and "now" belong together.
 */
export async function loadAttendanceReport(db: Db, clock: Clock, roomId: string): Promise<AttendanceReport | null> {
  return db.transaction(
    async (tx) => {
      const room = await findRoomById(tx, roomId);
      if (!room) return null;
      const [now] = await rows<{ now: unknown }>(tx, sql`SELECT ${clock.now()} AS now`);
      const generatedAt = date(now!.now);
      const facts = await listAttendance(tx, roomId);
      const members = await listMembers(tx, roomId);
      return { room, generatedAt: generatedAt.toISOString(), students: buildAttendanceReport(facts, members, generatedAt) };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}
