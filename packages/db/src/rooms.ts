import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { DEFAULT_EDIT_POLICY, type EditPolicy, type LessonSettings, type Member, type MembershipStatus, type Role, type RoomEvent, type RoomInfo } from '@wb/protocol';
import type { Clock } from './clock.ts';
import { appendRoomEvent } from './roomLog.ts';
import { rows, type Db, type Executor } from './sql.ts';

export interface RoomRow {
  id: string;
  code: string;
  title: string;
  status: 'open' | 'ended' | 'archived';
  require_approval: boolean;
  edit_policy: EditPolicy;
}

/** The columns `toRoom` reads, for every statement that returns a room. */
export const roomColumns = sql`id, code, title, status, require_approval, edit_policy`;

/** The lesson settings are rooms columns, one per `LessonSettings` key (lessonSettings.ts). */
export const toRoom = (r: RoomRow): RoomInfo => ({
  id: r.id,
  code: r.code,
  title: r.title,
  status: r.status,
  requireApproval: r.require_approval,
  settings: { editPolicy: r.edit_policy },
});

export interface MemberRow {
  user_id: string;
  display_name: string;
  role: Role;
  status: MembershipStatus;
  pen_muted: boolean;
}

/** The columns `toMember` reads. */
export const memberColumns = sql`user_id, display_name, role, status, pen_muted`;

export const toMember = (r: MemberRow): Member => ({
  userId: r.user_id,
  displayName: r.display_name,
  role: r.role,
  status: r.status,
  penMuted: r.pen_muted,
});

export async function findRoomByCode(executor: Executor, code: string): Promise<RoomInfo | null> {
  const [room] = await rows<RoomRow>(
    executor,
    sql`SELECT ${roomColumns} FROM rooms WHERE code = ${code}`,
  );
  return room ? toRoom(room) : null;
}

export async function findRoomById(executor: Executor, roomId: string): Promise<RoomInfo | null> {
  const [room] = await rows<RoomRow>(
    executor,
    sql`SELECT ${roomColumns} FROM rooms WHERE id = ${roomId}::uuid`,
  );
  return room ? toRoom(room) : null;
}

export type CreateRoomResult =
  | { decision: 'created'; room: RoomInfo; member: Member; events: RoomEvent[] }
  | { decision: 'code_taken' };

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
  },
): Promise<CreateRoomResult> {
  return db.transaction(async (tx) => {
    const roomId = randomUUID();
    const inserted = await rows<RoomRow>(
      tx,
      sql`INSERT INTO rooms (id, code, title, created_at, teacher_id, require_approval, edit_policy)
          VALUES (${roomId}::uuid, ${input.code}, ${input.title}, ${clock.now()}, ${input.teacherId ?? null}::uuid,
                  ${input.requireApproval ?? false}, ${input.settings?.editPolicy ?? DEFAULT_EDIT_POLICY})
          ON CONFLICT (code) DO NOTHING RETURNING ${roomColumns}`,
    );
    const room = inserted[0];
    if (!room) return { decision: 'code_taken' as const };
    const [memberRow] = await rows<MemberRow>(
      tx,
      sql`INSERT INTO memberships (room_id, user_id, display_name, role, member_key_hash, created_at)
          VALUES (${roomId}::uuid, ${randomUUID()}::uuid, ${input.teacherName}, 'teacher', ${input.memberKeyHash}, ${clock.now()})
          RETURNING ${memberColumns}`,
    );
    const member = toMember(memberRow!);
    const event = await appendRoomEvent(tx, clock, roomId, 'member.joined', { userId: member.userId, occurrence: 1 }, member);
    return { decision: 'created' as const, room: toRoom(room), member, events: [event] };
  });
}

export type JoinRoomResult =
  | { decision: 'joined' | 'returned'; member: Member; events: RoomEvent[] }
  /** The room requires approval: the member (new, or already waiting) is `pending` in its lobby. */
  | { decision: 'pending'; member: Member; events: RoomEvent[] }
  | { decision: 'revoked' | 'denied' | 'archived' | 'ended' | 'no_room' };

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
    const [room] = await rows<{ status: string; require_approval: boolean }>(
      tx,
      sql`SELECT status, require_approval FROM rooms WHERE id = ${input.roomId}::uuid`,
    );
    if (!room) return { decision: 'no_room' as const };
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
    const status: MembershipStatus = room.require_approval && input.role === 'student' ? 'pending' : 'active';
    const inserted = await rows<MemberRow>(
      tx,
      sql`INSERT INTO memberships (room_id, user_id, display_name, role, status, member_key_hash, created_at)
          VALUES (${input.roomId}::uuid, ${randomUUID()}::uuid, ${input.displayName}, ${input.role}, ${status},
                  ${input.memberKeyHash}, ${clock.now()})
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
