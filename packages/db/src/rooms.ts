import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { DEFAULT_LESSON_SETTINGS, MEMBER_PALETTE_SIZE, type LessonSettings, type Member, type MembershipStatus, type Role, type RoomEvent, type RoomInfo, type Timer } from '@wb/protocol';
import type { Clock } from './clock.ts';
import { settingColumns, settingsOfRow, settingValues } from './lessonSettingsColumns.ts';
import { DEFAULT_ELEMENT_CAPS, type ElementCaps } from './elementCap.ts';
import { copyPagesInto } from './pages.ts';
import { appendRoomEvent } from './roomLog.ts';
import { date, int, rows, type Db, type Executor } from './sql.ts';

/** A rooms row as `roomColumns` reads it: the lesson's settings are its columns too (lessonSettingsColumns.ts). */
export interface RoomRow {
  id: string;
  code: string;
  title: string;
  status: 'open' | 'ended' | 'archived';
  require_approval: boolean;
  timer_ends_at: unknown;
  timer_remaining_ms: unknown;
  timer_duration_ms: unknown;
  timer_freeze: boolean;
  timer_sound: boolean;
  /** Null while the lesson is prepared and not started (migration 0021). */
  started_at?: unknown;
  readonly [settingColumn: string]: unknown;
}

/** The columns `toRoom` reads, for every statement that returns a room. */
export const roomColumns = sql`id, code, title, status, require_approval, ${settingColumns()},
  timer_ends_at, timer_remaining_ms, timer_duration_ms, timer_freeze, timer_sound, started_at`;

/** The lesson's timer from its row (checks.ts in the store). */
export function toTimer(r: Pick<RoomRow, 'timer_ends_at' | 'timer_remaining_ms' | 'timer_duration_ms' | 'timer_freeze' | 'timer_sound'>): Timer | null {
  if (r.timer_duration_ms === null || r.timer_duration_ms === undefined) return null;
  const paused = r.timer_remaining_ms !== null && r.timer_remaining_ms !== undefined;
  return {
    status: paused ? 'paused' : 'running',
    endsAt: paused ? null : date(r.timer_ends_at).toISOString(),
    remainingMs: paused ? int(r.timer_remaining_ms) : null,
    durationMs: int(r.timer_duration_ms),
    freezeAtZero: r.timer_freeze,
    sound: r.timer_sound,
  };
}

export const toRoom = (r: RoomRow): RoomInfo => ({
  id: r.id,
  code: r.code,
  title: r.title,
  status: r.status,
  requireApproval: r.require_approval,
  settings: settingsOfRow(r),
  timer: toTimer(r),
  startedAt: r.started_at === null || r.started_at === undefined ? null : date(r.started_at).toISOString(),
});

export interface MemberRow {
  user_id: string;
  display_name: string;
  role: Role;
  status: MembershipStatus;
  color_index: number;
  pen_muted: boolean;
  hand_raised_at: unknown;
}

/** The columns `toMember` reads, for every statement that returns a member. */
export const memberColumns = sql`user_id, display_name, role, status, color_index, pen_muted, hand_raised_at`;

export const toMember = (r: MemberRow): Member => ({
  userId: r.user_id,
  displayName: r.display_name,
  role: r.role,
  status: r.status,
  colorIndex: r.color_index,
  penMuted: r.pen_muted,
  handRaisedAt: r.hand_raised_at === null || r.hand_raised_at === undefined ? null : date(r.hand_raised_at).toISOString(),
});

/**
 * The palette index for the room's next member: the least used one among its members (declined
 * lobby requests do not count), lowest first. So every member has a colour of their own until
 * the palette runs out, and after that colours are shared as evenly as they can be. Callers hold
 * the room's colour lock (`lockRoomColours`) so two joins cannot pick the same index.
 */
const nextColorIndex = (roomId: string) => sql`(
  SELECT c.i::smallint FROM generate_series(0, ${MEMBER_PALETTE_SIZE - 1}::int) AS c(i)
  LEFT JOIN memberships m ON m.room_id = ${roomId}::uuid AND m.color_index = c.i AND m.status <> 'denied'
  GROUP BY c.i ORDER BY count(m.user_id), c.i LIMIT 1)`;

/**
 * Serialises the joins of one room for the colour choice. A transaction-scoped advisory lock
 * rather than the room row: joins take it first, before any membership row, so it cannot form a
 * cycle with revocation (membership row, then room row).
 */
async function lockRoomColours(executor: Executor, roomId: string): Promise<void> {
  await executor.execute(sql`SELECT pg_advisory_xact_lock(${ROOM_COLOUR_LOCK_CLASS}::int, hashtext(${roomId}))`);
}

/** The advisory lock class of `lockRoomColours` (any int4 no other two-key lock uses). */
const ROOM_COLOUR_LOCK_CLASS = 24_001;

/** Names compare as a person reads them: trimmed, case and width folded. */
export function sameName(a: string, b: string): boolean {
  const fold = (n: string) => n.normalize('NFKC').trim().replace(/\s+/g, ' ').toLocaleLowerCase('und');
  return fold(a) === fold(b);
}

export async function findRoomByCode(executor: Executor, code: string): Promise<RoomInfo | null> {
  const [room] = await rows<RoomRow>(
    executor,
    sql`SELECT ${roomColumns} FROM rooms WHERE code = ${code} AND parent_id IS NULL`,
  );
  return room ? toRoom(room) : null;
}

export async function findRoomById(executor: Executor, roomId: string): Promise<RoomInfo | null> {
  const [room] = await rows<RoomRow>(
    executor,
    sql`SELECT ${roomColumns} FROM rooms WHERE id = ${roomId}::uuid AND parent_id IS NULL`,
  );
  return room ? toRoom(room) : null;
}

export type CreateRoomResult =
  | { decision: 'created'; room: RoomInfo; member: Member; events: RoomEvent[] }
  | { decision: 'code_taken' }
  /** Teach again: the source lesson is not this teacher's (or not a lesson): nothing was made. */
  | { decision: 'no_source' };

/** Creates a room with its teacher as the first member, in one transaction. */
export async function createRoom(
  db: Db,
  clock: Clock,
  input: {
    code: string;
    title: string;
    teacherName: string;
    memberKeyHash: string;
    /** The signed-in account that owns the room; absent for a room started without one. */
    teacherId?: string | null;
    /** Students wait in the lobby until admitted. */
    requireApproval?: boolean;
    /** The lesson's settings from its start; each one left out takes its default. */
    settings?: Partial<LessonSettings>;
    /** Prepared, not started (issue 39): students wait until the teacher starts it. */
    prepared?: boolean;
    /** Teach again: the lesson whose pages the new one starts with (pages.ts `copyPagesInto`). */
    copyPagesFrom?: string;
  },
  caps: ElementCaps = DEFAULT_ELEMENT_CAPS,
): Promise<CreateRoomResult> {
  return db.transaction(async (tx) => {
    if (input.copyPagesFrom !== undefined) {
      const [source] = await rows<{ id: string }>(
        tx,
        sql`SELECT id FROM rooms WHERE id = ${input.copyPagesFrom}::uuid AND parent_id IS NULL
              AND teacher_id IS NOT NULL AND teacher_id = ${input.teacherId ?? null}::uuid FOR SHARE`,
      );
      if (!source) return { decision: 'no_source' as const };
    }
    const roomId = randomUUID();
    const settings = { ...DEFAULT_LESSON_SETTINGS, ...definedSettings(input.settings ?? {}) };
    const inserted = await rows<RoomRow>(
      tx,
      sql`INSERT INTO rooms (id, code, title, created_at, started_at, teacher_id, require_approval, ${settingColumns()})
          VALUES (${roomId}::uuid, ${input.code}, ${input.title}, ${clock.now()}, ${input.prepared === true ? null : clock.now()},
                  ${input.teacherId ?? null}::uuid, ${input.requireApproval ?? false}, ${settingValues(settings)})
          ON CONFLICT (code) DO NOTHING RETURNING ${roomColumns}`,
    );
    const room = inserted[0];
    if (!room) return { decision: 'code_taken' as const };
    const [memberRow] = await rows<MemberRow>(
      tx,
      sql`INSERT INTO memberships (room_id, user_id, display_name, role, member_key_hash, created_at, color_index)
          VALUES (${roomId}::uuid, ${randomUUID()}::uuid, ${input.teacherName}, 'teacher', ${input.memberKeyHash}, ${clock.now()}, 0)
          RETURNING ${memberColumns}`,
    );
    const member = toMember(memberRow!);
    // The lesson's own board is its first page (pages.ts).
    await tx.execute(
      sql`INSERT INTO lesson_pages (room_id, board_id, position, created_at) VALUES (${roomId}::uuid, ${roomId}::uuid, 0, ${clock.now()})`,
    );
    if (input.copyPagesFrom !== undefined) await copyPagesInto(tx, clock, input.copyPagesFrom, { lessonId: roomId, teacherUserId: member.userId }, caps);
    const event = await appendRoomEvent(tx, clock, roomId, 'member.joined', { userId: member.userId, occurrence: 1 }, member);
    const [made] = await rows<RoomRow>(tx, sql`SELECT ${roomColumns} FROM rooms WHERE id = ${roomId}::uuid`);
    return { decision: 'created' as const, room: toRoom(made ?? room), member, events: [event] };
  });
}

export type JoinRoomResult =
  | { decision: 'joined' | 'returned'; member: Member; events: RoomEvent[] }
  /** The room requires approval: the member (new, or already waiting) is `pending` in its lobby. */
  | { decision: 'pending'; member: Member; events: RoomEvent[] }
  | { decision: 'revoked' | 'denied' | 'archived' | 'ended' | 'no_room' }
  /** A student asked to join a prepared lesson its teacher has not started (issue 39). */
  | { decision: 'not_started' }
  /** A student asked for the teacher's name in the teacher's lesson (compared by `sameName`). */
  | { decision: 'name_reserved' };

/**
 * Makes the holder of a member key a member of the room, or finds the member it already is.
 * A revoked member stays revoked and a denied one stays denied: joining again changes neither.
 * In a room that requires approval a new student starts `pending` (the room hears
 * `member.pending`); an already admitted member goes straight in. The setting is read without
 * locking the room: a join that read it just before the teacher turned it on is admitted, as if it
 * had come a moment earlier.
 */
export async function joinRoom(
  db: Db,
  clock: Clock,
  input: { roomId: string; displayName: string; memberKeyHash: string; role: Role },
): Promise<JoinRoomResult> {
  return db.transaction(async (tx) => {
    const [room] = await rows<{ status: string; require_approval: boolean; started: boolean }>(
      tx,
      sql`SELECT status, require_approval, started_at IS NOT NULL AS started FROM rooms WHERE id = ${input.roomId}::uuid AND parent_id IS NULL`,
    );
    if (!room) return { decision: 'no_room' as const };
    // A prepared lesson admits its teacher only, until she starts it.
    if (!room.started && input.role === 'student') return { decision: 'not_started' as const };
    if (room.status === 'archived') return { decision: 'archived' as const };
    if (room.status === 'ended') {
      // Only the teacher comes back into an ended lesson (to read it, export it, reopen it).
      const [teacher] = await rows<MemberRow>(
        tx,
        sql`SELECT ${memberColumns} FROM memberships
            WHERE room_id = ${input.roomId}::uuid AND member_key_hash = ${input.memberKeyHash} AND role = 'teacher' AND status = 'active'`,
      );
      return teacher ? { decision: 'returned' as const, member: toMember(teacher), events: [] } : { decision: 'ended' as const };
    }
    if (input.role === 'student') {
      const teachers = await rows<{ display_name: string }>(
        tx,
        sql`SELECT display_name FROM memberships WHERE room_id = ${input.roomId}::uuid AND role = 'teacher'`,
      );
      if (teachers.some((t) => sameName(t.display_name, input.displayName))) return { decision: 'name_reserved' as const };
    }
    await lockRoomColours(tx, input.roomId);
    const status: MembershipStatus = room.require_approval && input.role === 'student' ? 'pending' : 'active';
    const inserted = await rows<MemberRow>(
      tx,
      sql`INSERT INTO memberships (room_id, user_id, display_name, role, status, member_key_hash, created_at, color_index)
          VALUES (${input.roomId}::uuid, ${randomUUID()}::uuid, ${input.displayName}, ${input.role}, ${status},
                  ${input.memberKeyHash}, ${clock.now()}, ${nextColorIndex(input.roomId)})
          ON CONFLICT (room_id, member_key_hash) DO NOTHING
          RETURNING ${memberColumns}`,
    );
    if (inserted[0]) {
      const member = toMember(inserted[0]);
      if (member.status === 'pending') {
        const event = await appendRoomEvent(tx, clock, input.roomId, 'member.pending', { userId: member.userId, occurrence: 1 }, member);
        return { decision: 'pending' as const, member, events: [event] };
      }
      const event = await appendRoomEvent(tx, clock, input.roomId, 'member.joined', { userId: member.userId, occurrence: 1 }, member);
      return { decision: 'joined' as const, member, events: [event] };
    }
    const [existing] = await rows<MemberRow>(
      tx,
      sql`SELECT ${memberColumns} FROM memberships
          WHERE room_id = ${input.roomId}::uuid AND member_key_hash = ${input.memberKeyHash} FOR UPDATE`,
    );
    if (!existing) throw new Error('membership vanished inside its transaction');
    if (existing.status === 'revoked') return { decision: 'revoked' as const };
    if (existing.status === 'denied') return { decision: 'denied' as const };
    const decision = existing.status === 'pending' ? ('pending' as const) : ('returned' as const);
    if (existing.display_name === input.displayName) {
      return { decision, member: toMember(existing), events: [] };
    }
    // A returning student under a new name: everyone's roster (or the lobby) learns it through the log.
    const [renamed] = await rows<MemberRow>(
      tx,
      sql`UPDATE memberships SET display_name = ${input.displayName}
          WHERE room_id = ${input.roomId}::uuid AND user_id = ${existing.user_id}::uuid AND status = ${existing.status}
          RETURNING ${memberColumns}`,
    );
    const member = toMember(renamed!);
    const kind = member.status === 'pending' ? 'member.pending' : 'member.joined';
    const event = await appendRoomEvent(tx, clock, input.roomId, kind, { userId: member.userId, occurrence: randomUUID() }, member);
    return { decision, member, events: [event] };
  });
}

export async function listMembers(executor: Executor, roomId: string): Promise<Member[]> {
  const found = await rows<MemberRow>(
    executor,
    sql`SELECT ${memberColumns} FROM memberships WHERE room_id = ${roomId}::uuid ORDER BY created_at, user_id`,
  );
  return found.map(toMember);
}

/**
 * Who may draw in a room, for live ink (the server caches it per room): the lesson's edit policy,
 * its status and the students whose pen is muted. Advisory only: every durable edit decides inside
 * its own conditional write.
 */
export async function readDrawRights(
  executor: Executor,
  roomId: string,
): Promise<(LessonSettings & { status: RoomInfo['status']; mutedUserIds: string[] }) | null> {
  const [row] = await rows<{ status: RoomInfo['status']; muted: string[] | null; [settingColumn: string]: unknown }>(
    executor,
    sql`SELECT r.status, ${settingColumns('r')},
               (SELECT array_agg(m.user_id::text) FROM memberships m WHERE m.room_id = r.id AND m.pen_muted) AS muted
          FROM rooms r WHERE r.id = ${roomId}::uuid`,
  );
  return row ? { ...settingsOfRow(row), status: row.status, mutedUserIds: row.muted ?? [] } : null;
}

/** The settings a caller named (an explicit `undefined` takes the default like a left-out key). */
export function definedSettings(settings: Partial<LessonSettings>): Partial<LessonSettings> {
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined)) as Partial<LessonSettings>;
}
