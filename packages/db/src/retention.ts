import { sql, type SQL } from 'drizzle-orm';
import type { Database } from './database.ts';
import { int, rows, type Tx } from './sql.ts';

export interface PurgeResult {
  /** The audit fact's id in retention_purges. */
  auditId: number;
  attendanceRows: number;
  /** Rows removed in every table, attendance included. */
  rows: number;
}

/**
 * Retention (docs/operations.md, "Retention"): removes a whole lesson, or one member of it, in
 * one transaction that also appends the audit fact (`retention_purges`: scope, room, member,
 * reason, how many rows, when; names and content are not kept). Attendance rows are deleted
 * through the one controlled path around the append-only guard (migration 0008: the trigger lets
 * a DELETE through only under `SET LOCAL wb.retention_purge = on`), which needs DELETE on
 * attendance: only the owner has it, never the app role. Run it with `pnpm db:purge`.
 *
 * A member's purge keeps the board's elements (the class's work) but removes everything that
 * names the member: membership (and so the display name), sessions, leases, attendance, the
 * idempotency records of their sessions, and the room-log events whose payload names their user
 * id (the log is a bounded replay buffer; a gap in it makes clients take a snapshot). A lesson
 * purge removes the room log whole. Elements the member drew keep their author's id, which no
 * longer resolves to a name.
 */
export async function purgeRoom(database: Database, roomId: string, reason: string): Promise<PurgeResult> {
  return database.db.transaction(async (tx) => {
    await allowAttendanceDelete(tx);
    const attendanceRows = await count(tx, sql`DELETE FROM attendance WHERE room_id = ${roomId}`);
    let removed = attendanceRows;
    // The lesson's private boards (docs/boards.md) go with it: their content, logs and rows, then its activities.
    const boards = sql`(SELECT id FROM rooms WHERE parent_id = ${roomId})`;
    for (const statement of [
      sql`DELETE FROM element_versions WHERE room_id IN ${boards}`,
      sql`DELETE FROM elements WHERE room_id IN ${boards}`,
      sql`DELETE FROM room_events WHERE room_id IN ${boards}`,
      sql`DELETE FROM rooms WHERE parent_id = ${roomId}`,
      sql`DELETE FROM activities WHERE room_id = ${roomId}`,
      // The lesson's polls (migration 0018) and their answers.
      sql`DELETE FROM poll_answers WHERE poll_id IN (SELECT id FROM polls WHERE room_id = ${roomId})`,
      sql`DELETE FROM polls WHERE room_id = ${roomId}`,
      // The lesson's images (migration 0012), and the bytes no other lesson names.
      sql`WITH gone AS (DELETE FROM lesson_images WHERE room_id = ${roomId} RETURNING sha256)
          DELETE FROM image_blobs b WHERE b.sha256 IN (SELECT sha256 FROM gone)
            AND NOT EXISTS (SELECT 1 FROM lesson_images l WHERE l.sha256 = b.sha256 AND l.room_id <> ${roomId})`,
      sql`DELETE FROM presence_leases WHERE room_id = ${roomId}`,
      sql`DELETE FROM applied_requests WHERE room_id = ${roomId}`,
      sql`DELETE FROM element_versions WHERE room_id = ${roomId}`,
      sql`DELETE FROM elements WHERE room_id = ${roomId}`,
      sql`DELETE FROM room_events WHERE room_id = ${roomId}`,
      sql`DELETE FROM sessions WHERE room_id = ${roomId}`,
      sql`DELETE FROM memberships WHERE room_id = ${roomId}`,
      sql`DELETE FROM rooms WHERE id = ${roomId}`,
    ]) {
      removed += await count(tx, statement);
    }
    return audit(tx, { scope: 'room', roomId, userId: null, reason, attendanceRows, rows: removed });
  });
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
