import { sql, type SQL } from 'drizzle-orm';
import type { Clock } from './clock.ts';
import type { Database } from './database.ts';
import { int, rows, type Executor, type Tx } from './sql.ts';

export interface PurgeResult {
  /** The audit fact's id in retention_purges. */
  auditId: number;
  attendanceRows: number;
  /** Rows removed in every table, attendance included. */
  rows: number;
}

/**
 * Deletion (docs/privacy.md; docs/store.md, "Deletion"): a whole lesson, one member of it, or a
 * teacher account, each in one transaction that also appends its audit fact (`retention_purges`:
 * scope, ids, reason, who asked, how many rows, when; names and content are not kept). Attendance
 * rows are deleted through the one controlled path around the append-only guard (migration 0008:
 * the trigger lets a DELETE through only under `SET LOCAL wb.retention_purge = on`).
 *
 * A lesson or an account is deleted by a database function (migration 0020) that runs as its
 * owner: the app role may call it but holds no DELETE on attendance itself. The server calls it
 * on a schedule (`sweepRetention`), for a teacher's deletion and for an admin's; the operator's
 * `pnpm db:purge` too (`purgeRoom`).
 *
 * A member's purge (the owner only, `pnpm db:purge -- --user`) keeps the board's elements (the
 * class's work) but removes everything that names the member: membership (and so the display
 * name), sessions, leases, attendance, the idempotency records of their sessions, and the
 * room-log events whose payload names their user id (the log is a bounded replay buffer; a gap in
 * it makes clients take a snapshot). Elements the member drew keep their author's id, which no
 * longer resolves to a name.
 */
export async function purgeRoom(database: Database, roomId: string, reason: string): Promise<PurgeResult> {
  const purged = await purgeLesson(database.db, { roomId, reason, requestedBy: 'operator', teacherId: null, unusedSince: null, wait: true });
  if (!purged) throw new Error(`no lesson ${roomId} to purge (a private board is purged with its lesson)`);
  return purged;
}

/** Who asked for a deletion, kept in its audit fact. */
export type DeletionRequester = 'operator' | 'retention' | 'teacher' | 'admin';

/**
 * Deletes one lesson and everything in it (its boards, private boards, images no other lesson
 * names, events, attendance, activities, and any table with a `room_id`) through
 * `wb_purge_lesson` (migration 0020), with its audit fact, in one transaction. Null when nothing
 * was deleted: the lesson is gone already (another node or request won), is not `teacherId`'s,
 * was used at or after `unusedSince`, or (`wait` false) another transaction holds it right now.
 * The app role may call this; it may not delete attendance by itself.
 */
export async function purgeLesson(
  executor: Executor,
  input: { roomId: string; reason: string; requestedBy: DeletionRequester; teacherId: string | null; unusedSince: SQL | null; wait: boolean },
): Promise<PurgeResult | null> {
  const [row] = await rows<{ audit_id: unknown; attendance_rows: unknown; total_rows: unknown }>(
    executor,
    sql`SELECT audit_id, attendance_rows, total_rows FROM wb_purge_lesson(${input.roomId}::uuid, ${input.reason}, ${input.requestedBy},
          ${input.teacherId}::uuid, ${input.unusedSince ?? sql`NULL`}::timestamptz, ${input.wait})`,
  );
  return row ? { auditId: int(row.audit_id), attendanceRows: int(row.attendance_rows), rows: int(row.total_rows) } : null;
}

/**
 * Lessons nobody used for `days` (docs/privacy.md): created, and their latest attendance fact (a
 * join, a departure, the end of the lesson), before the cutoff. Oldest first, bounded (I10).
 */
export async function findLessonsUnusedSince(executor: Executor, cutoff: SQL, limit: number): Promise<string[]> {
  const found = await rows<{ id: string }>(
    executor,
    sql`SELECT r.id FROM rooms r
        WHERE r.parent_id IS NULL AND r.created_at < ${cutoff}
          AND NOT EXISTS (SELECT 1 FROM attendance a WHERE a.room_id = r.id AND a.at >= ${cutoff})
        ORDER BY r.created_at, r.id LIMIT ${limit}`,
  );
  return found.map((r) => r.id);
}

export interface RetentionPass {
  /** Lessons found past their term. */
  found: number;
  /** Lessons this caller deleted (each with one audit fact). */
  deleted: number;
}

/**
 * One pass of the retention schedule: lessons unused for `days` days by the clock (I2), each
 * deleted in its own transaction, skipping one another node holds (it is deleting it). Run by
 * every node; exactly one deletes each lesson (the lock and the re-check inside
 * `wb_purge_lesson`), so a fleet needs no coordination for correctness (I9).
 */
export async function sweepRetention(executor: Executor, clock: Clock, options: { days: number; batch: number }): Promise<RetentionPass> {
  if (options.days <= 0) return { found: 0, deleted: 0 };
  const cutoff = sql`(${clock.now()} - ${options.days}::int8 * interval '1 day')`;
  const due = await findLessonsUnusedSince(executor, cutoff, options.batch);
  let deleted = 0;
  for (const roomId of due) {
    const purged = await purgeLesson(executor, {
      roomId,
      reason: `retention: unused for ${options.days} days`,
      requestedBy: 'retention',
      teacherId: null,
      unusedSince: cutoff,
      wait: false,
    });
    if (purged) deleted++;
  }
  return { found: due.length, deleted };
}

/**
 * Deletes a teacher account with every lesson it owns (one audit fact per lesson and one for the
 * account, none holding its email, name or content) through `wb_delete_teacher` (migration 0020).
 * Null when there was no such account.
 */
export async function deleteTeacherAccount(executor: Executor, input: { teacherId: string; reason: string }): Promise<{ auditId: number; lessons: number; rows: number } | null> {
  const [row] = await rows<{ audit_id: unknown; lessons: unknown; total_rows: unknown }>(
    executor,
    sql`SELECT audit_id, lessons, total_rows FROM wb_delete_teacher(${input.teacherId}::uuid, ${input.reason})`,
  );
  return row ? { auditId: int(row.audit_id), lessons: int(row.lessons), rows: int(row.total_rows) } : null;
}

export async function purgeMember(database: Database, roomId: string, userId: string, reason: string): Promise<PurgeResult> {
  return database.db.transaction(async (tx) => {
    await allowAttendanceDelete(tx);
    const attendanceRows = await count(tx, sql`DELETE FROM attendance WHERE room_id = ${roomId} AND user_id = ${userId}`);
    let removed = attendanceRows;
    // The member's private boards name them (their title is the name): content, logs and rows.
    const boards = sql`(SELECT id FROM rooms WHERE parent_id = ${roomId} AND owner_user_id = ${userId})`;
    for (const statement of [
      sql`DELETE FROM element_versions WHERE room_id IN ${boards}`,
      sql`DELETE FROM elements WHERE room_id IN ${boards}`,
      sql`DELETE FROM room_events WHERE room_id IN ${boards}`,
      sql`DELETE FROM rooms WHERE parent_id = ${roomId} AND owner_user_id = ${userId}`,
      sql`DELETE FROM poll_answers WHERE user_id = ${userId} AND poll_id IN (SELECT id FROM polls WHERE room_id = ${roomId})`,
      sql`DELETE FROM presence_leases WHERE room_id = ${roomId} AND user_id = ${userId}`,
      sql`DELETE FROM applied_requests WHERE room_id = ${roomId} AND session_id IN (SELECT id FROM sessions WHERE room_id = ${roomId} AND user_id = ${userId})`,
      sql`DELETE FROM room_events WHERE room_id = ${roomId} AND payload::text LIKE ${`%${userId}%`}`,
      sql`DELETE FROM sessions WHERE room_id = ${roomId} AND user_id = ${userId}`,
      sql`DELETE FROM memberships WHERE room_id = ${roomId} AND user_id = ${userId}`,
    ]) {
      removed += await count(tx, statement);
    }
    return audit(tx, { scope: 'member', roomId, userId, reason, attendanceRows, rows: removed });
  });
}

async function allowAttendanceDelete(tx: Tx): Promise<void> {
  // Transaction-local: the guard is back the moment this transaction ends, committed or not.
  await tx.execute(sql`SELECT set_config('wb.retention_purge', 'on', true)`);
}

async function count(tx: Tx, statement: SQL): Promise<number> {
  const result = (await tx.execute(statement)) as unknown as { rowCount?: number | null; affectedRows?: number };
  return result.rowCount ?? result.affectedRows ?? 0;
}

async function audit(
  tx: Tx,
  fact: { scope: 'room' | 'member'; roomId: string; userId: string | null; reason: string; attendanceRows: number; rows: number },
): Promise<PurgeResult> {
  const [row] = await rows<{ id: unknown }>(
    tx,
    sql`INSERT INTO retention_purges (scope, room_id, user_id, reason, attendance_rows, rows)
        VALUES (${fact.scope}, ${fact.roomId}, ${fact.userId}, ${fact.reason}, ${fact.attendanceRows}, ${fact.rows}) RETURNING id`,
  );
  return { auditId: int(row!.id), attendanceRows: fact.attendanceRows, rows: fact.rows };
}

/** The room a purge names by its join code (any status), or null. */
export async function findRoomIdForPurge(database: Database, code: string): Promise<string | null> {
  const [row] = await rows<{ id: string }>(database.db, sql`SELECT id FROM rooms WHERE code = ${code.toUpperCase()}`);
  return row?.id ?? null;
}
