/**
 * Teacher accounts, their signed-in sessions, and the room lifecycle a teacher owns (rename,
 * archive). Passwords arrive here already hashed (argon2id, by the server): the store never sees
 * a password. Every state change is one conditional write (I3).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import {
  MAX_LISTED_ROOMS,
  type Member,
  type MembershipStatus,
  type RoomEvent,
  type RoomInfo,
  type TeacherAccount,
  type TeacherRoom,
} from '@wb/protocol';
import { appendAttendance } from './attendance.ts';
import { msFromNow, type Clock } from './clock.ts';
import { appendRoomEvent, nextRoomRevision } from './roomLog.ts';
import { roomColumns, toRoom, type RoomRow as BaseRoomRow } from './rooms.ts';
import { date, int, rows, type Db, type Executor } from './sql.ts';

interface TeacherRow {
  id: string;
  email: string;
  display_name: string;
}

const toAccount = (r: TeacherRow): TeacherAccount => ({ id: r.id, email: r.email, displayName: r.display_name });

export type CreateTeacherResult = { decision: 'created'; teacher: TeacherAccount } | { decision: 'email_taken' };

/** A new account; an address already registered is a decision, not an error. */
export async function createTeacher(
  executor: Executor,
  clock: Clock,
  input: { email: string; passwordHash: string | null; displayName: string },
): Promise<CreateTeacherResult> {
  const [row] = await rows<TeacherRow>(
    executor,
    sql`INSERT INTO teachers (id, email, password_hash, display_name, created_at)
        VALUES (${randomUUID()}::uuid, ${input.email.toLowerCase()}, ${input.passwordHash}, ${input.displayName}, ${clock.now()})
        ON CONFLICT (email) DO NOTHING
        RETURNING id, email, display_name`,
  );
  return row ? { decision: 'created', teacher: toAccount(row) } : { decision: 'email_taken' };
}

/**
 * The account, its password hash (null for an account made by an OpenID provider: no password
 * signs into it) and whether an admin disabled it, for the server to verify a sign-in against.
 */
export async function findTeacherCredentials(
  executor: Executor,
  email: string,
): Promise<{ teacher: TeacherAccount; passwordHash: string | null; disabled: boolean } | null> {
  const [row] = await rows<TeacherRow & { password_hash: string | null; status: string }>(
    executor,
    sql`SELECT id, email, display_name, password_hash, status FROM teachers WHERE email = ${email.toLowerCase()}`,
  );
  return row ? { teacher: toAccount(row), passwordHash: row.password_hash, disabled: row.status !== 'active' } : null;
}

/** Opens a signed-in session; the caller keeps the token, the store only its hash. */
export async function openTeacherSession(
  executor: Executor,
  clock: Clock,
  input: { teacherId: string; tokenHash: string; ttlMs: number },
): Promise<{ id: string; expiresAt: Date }> {
  const id = randomUUID();
  const [row] = await rows<{ expires_at: unknown }>(
    executor,
    sql`INSERT INTO teacher_sessions (id, teacher_id, token_hash, created_at, expires_at)
        VALUES (${id}::uuid, ${input.teacherId}::uuid, ${input.tokenHash}, ${clock.now()},
                ${msFromNow(clock, input.ttlMs)})
        RETURNING expires_at`,
  );
  return { id, expiresAt: date(row!.expires_at) };
}

export type AuthenticateTeacherResult =
  | { decision: 'ok'; teacher: TeacherAccount; sessionId: string }
  | { decision: 'unknown' | 'closed' | 'expired' | 'disabled' };

/** A signed-in browser's account; a disabled account's sessions are refused even if one was left open. */
export async function authenticateTeacherSession(
  executor: Executor,
  clock: Clock,
  tokenHash: string,
): Promise<AuthenticateTeacherResult> {
  const [row] = await rows<TeacherRow & { session_id: string; status: string; teacher_status: string; expired: boolean }>(
    executor,
    sql`SELECT t.id, t.email, t.display_name, t.status AS teacher_status, s.id AS session_id, s.status,
               s.expires_at <= ${clock.now()} AS expired
        FROM teacher_sessions s JOIN teachers t ON t.id = s.teacher_id
        WHERE s.token_hash = ${tokenHash}`,
  );
  if (!row) return { decision: 'unknown' };
  if (row.teacher_status !== 'active') return { decision: 'disabled' };
  if (row.status !== 'open') return { decision: 'closed' };
  if (row.expired) return { decision: 'expired' };
  return { decision: 'ok', teacher: toAccount(row), sessionId: row.session_id };
}

/** Signs a browser out: conditional on the session being open, so a second call changes nothing. */
export async function closeTeacherSession(
  executor: Executor,
  clock: Clock,
  tokenHash: string,
): Promise<{ decision: 'closed' | 'already_closed' }> {
  const closed = await rows<{ id: string }>(
    executor,
    sql`UPDATE teacher_sessions SET status = 'closed', closed_at = ${clock.now()}
        WHERE token_hash = ${tokenHash} AND status = 'open' RETURNING id`,
  );
  return { decision: closed.length > 0 ? 'closed' : 'already_closed' };
}

interface RoomRow extends BaseRoomRow {
  created_at: unknown;
}

const toRoomInfo = toRoom;

/** The account's rooms, newest first, bounded (I10). */
export async function listTeacherRooms(executor: Executor, teacherId: string): Promise<TeacherRoom[]> {
  const found = await rows<RoomRow>(
    executor,
    sql`SELECT ${roomColumns}, created_at,
               (SELECT count(*) FROM lesson_pages p WHERE p.room_id = rooms.id AND p.deleted_at IS NULL) AS page_count
          FROM rooms WHERE teacher_id = ${teacherId}::uuid
        ORDER BY created_at DESC, id LIMIT ${MAX_LISTED_ROOMS}`,
  );
  return found.map((r) => ({ ...toRoomInfo(r), createdAt: date(r.created_at).toISOString(), pageCount: int(r.page_count) }));
}

/**
 * One page of the account's open lessons (class rooms, not private boards), by id after `afterId`:
 * a caller walks every one of them page by page, however many there are (an account's deletion
 * archives each), where `listTeacherRooms` shows only the most recent.
 */
export async function listOpenTeacherLessons(
  executor: Executor,
  teacherId: string,
  page: { afterId: string | null; limit: number },
): Promise<Array<{ id: string; code: string }>> {
  return rows<{ id: string; code: string }>(
    executor,
    sql`SELECT id, code FROM rooms
        WHERE teacher_id = ${teacherId}::uuid AND parent_id IS NULL AND status = 'open'
          ${page.afterId === null ? sql.empty() : sql`AND id > ${page.afterId}::uuid`}
        ORDER BY id LIMIT ${page.limit}`,
  );
}

/** A room by code, only if this account owns it. */
export async function findTeacherRoom(executor: Executor, teacherId: string, code: string): Promise<RoomInfo | null> {
  const [row] = await rows<RoomRow>(
    executor,
    sql`SELECT ${roomColumns}, created_at FROM rooms WHERE code = ${code} AND teacher_id = ${teacherId}::uuid`,
  );
  return row ? toRoomInfo(row) : null;
}

/**
 * The room's teacher membership (the one made with the room), for the owning account to enter
 * its own lesson from any browser as its teacher, not as a new student.
 */
export async function roomTeacherMember(executor: Executor, roomId: string): Promise<Member | null> {
  const [row] = await rows<{ user_id: string; display_name: string; status: MembershipStatus; color_index: number; pen_muted: boolean }>(
    executor,
    sql`SELECT user_id, display_name, status, color_index, pen_muted FROM memberships
        WHERE room_id = ${roomId}::uuid AND role = 'teacher' ORDER BY created_at, user_id LIMIT 1`,
  );
  return row
    ? { userId: row.user_id, displayName: row.display_name, role: 'teacher', status: row.status, colorIndex: row.color_index, penMuted: row.pen_muted, handRaisedAt: null }
    : null;
}

export type RenameRoomResult =
  | { decision: 'renamed'; room: RoomInfo; events: RoomEvent[] }
  | { decision: 'unchanged'; room: RoomInfo }
  | { decision: 'not_found' };

/** Renames a room the account owns; everyone in it hears `room.updated`. */
export async function renameRoom(
  db: Db,
  clock: Clock,
  input: { teacherId: string; code: string; title: string },
): Promise<RenameRoomResult> {
  return db.transaction(async (tx) => {
    const [updated] = await rows<RoomRow>(
      tx,
      sql`UPDATE rooms SET title = ${input.title}
          WHERE code = ${input.code} AND teacher_id = ${input.teacherId}::uuid AND title <> ${input.title}
          RETURNING ${roomColumns}, created_at`,
    );
    if (!updated) {
      const room = await findTeacherRoom(tx, input.teacherId, input.code);
      return room ? { decision: 'unchanged' as const, room } : { decision: 'not_found' as const };
    }
    const room = toRoomInfo(updated);
    const roomRevision = await nextRoomRevision(tx, room.id);
    const event = await appendRoomEvent(tx, clock, room.id, 'room.updated', { roomRevision }, room);
    return { decision: 'renamed' as const, room, events: [event] };
  });
}

export type ArchiveRoomResult =
  | { decision: 'archived'; room: RoomInfo; events: RoomEvent[] }
  | { decision: 'already_archived'; room: RoomInfo }
  | { decision: 'not_found' };

/**
 * Archives a room the account owns: the one transition out of `open`, conditional on it. In the
 * same transaction every open session of the room is closed by the server (`session.closed`,
 * attendance `session_closed`) and its leases go, so the lesson's record ends where the lesson
 * did. Joins and handshakes are refused from then on (`room_archived`); the report stays readable.
 */
export async function archiveRoom(
  db: Db,
  clock: Clock,
  input: { teacherId: string; code: string },
): Promise<ArchiveRoomResult> {
  return db.transaction(async (tx) => {
    const [updated] = await rows<RoomRow>(
      tx,
      sql`UPDATE rooms SET status = 'archived'
          WHERE code = ${input.code} AND teacher_id = ${input.teacherId}::uuid AND status = 'open'
          RETURNING ${roomColumns}, created_at`,
    );
    if (!updated) {
      const room = await findTeacherRoom(tx, input.teacherId, input.code);
      return room ? { decision: 'already_archived' as const, room } : { decision: 'not_found' as const };
    }
    const room = toRoomInfo(updated);
    const roomRevision = await nextRoomRevision(tx, room.id);
    const events = [await appendRoomEvent(tx, clock, room.id, 'room.updated', { roomRevision }, room)];
    // Session rows before lease rows: the store's lock order (docs/store.md).
    const closed = await rows<{ id: string; user_id: string }>(
      tx,
      sql`UPDATE sessions SET status = 'closed', closed_at = ${clock.now()}, closed_reason = 'server'
          WHERE room_id = ${room.id}::uuid AND status = 'open'
          RETURNING id, user_id`,
    );
    await tx.execute(sql`DELETE FROM presence_leases WHERE room_id = ${room.id}::uuid`);
    for (const session of closed) {
      const closedEvent = await appendRoomEvent(tx, clock, room.id, 'session.closed', { sessionId: session.id }, {
        sessionId: session.id,
        userId: session.user_id,
        reason: 'server',
      });
      events.push(closedEvent);
      await appendAttendance(tx, clock, {
        eventId: closedEvent.eventId,
        roomId: room.id,
        userId: session.user_id,
        sessionId: session.id,
        kind: 'session_closed',
        requestId: null,
        detail: { cause: 'room_archived' },
      });
    }
    return { decision: 'archived' as const, room, events };
  });
}
