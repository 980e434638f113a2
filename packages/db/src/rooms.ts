import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Member, Role, RoomEvent, RoomInfo } from '@wb/protocol';
import type { Clock } from './clock.ts';
import { appendRoomEvent } from './roomLog.ts';
import { rows, type Db, type Executor } from './sql.ts';

interface RoomRow {
  id: string;
  code: string;
  title: string;
  status: 'open' | 'archived';
}

const toRoom = (r: RoomRow): RoomInfo => ({ id: r.id, code: r.code, title: r.title, status: r.status });

interface MemberRow {
  user_id: string;
  display_name: string;
  role: Role;
  status: 'active' | 'revoked';
}

export const toMember = (r: MemberRow): Member => ({
  userId: r.user_id,
  displayName: r.display_name,
  role: r.role,
  status: r.status,
});

export async function findRoomByCode(executor: Executor, code: string): Promise<RoomInfo | null> {
  const [room] = await rows<RoomRow>(
    executor,
    sql`SELECT id, code, title, status FROM rooms WHERE code = ${code}`,
  );
  return room ? toRoom(room) : null;
}

export async function findRoomById(executor: Executor, roomId: string): Promise<RoomInfo | null> {
  const [room] = await rows<RoomRow>(
    executor,
    sql`SELECT id, code, title, status FROM rooms WHERE id = ${roomId}::uuid`,
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
  },
): Promise<CreateRoomResult> {
  return db.transaction(async (tx) => {
    const roomId = randomUUID();
    const inserted = await rows<RoomRow>(
      tx,
      sql`INSERT INTO rooms (id, code, title, created_at, teacher_id)
          VALUES (${roomId}::uuid, ${input.code}, ${input.title}, ${clock.now()}, ${input.teacherId ?? null}::uuid)
          ON CONFLICT (code) DO NOTHING RETURNING id, code, title, status`,
    );
    const room = inserted[0];
    if (!room) return { decision: 'code_taken' as const };
    const [memberRow] = await rows<MemberRow>(
      tx,
      sql`INSERT INTO memberships (room_id, user_id, display_name, role, member_key_hash, created_at)
          VALUES (${roomId}::uuid, ${randomUUID()}::uuid, ${input.teacherName}, 'teacher', ${input.memberKeyHash}, ${clock.now()})
          RETURNING user_id, display_name, role, status`,
    );
    const member = toMember(memberRow!);
    const event = await appendRoomEvent(tx, clock, roomId, 'member.joined', `member.joined:${member.userId}:1`, member);
    return { decision: 'created' as const, room: toRoom(room), member, events: [event] };
  });
}

export type JoinRoomResult =
  | { decision: 'joined' | 'returned'; member: Member; events: RoomEvent[] }
  | { decision: 'revoked' | 'archived' | 'no_room' };

/**
 * Makes the holder of a member key a member of the room, or finds the member it already is.
 * A revoked member stays revoked: joining again does not restore them.
 */
export async function joinRoom(
  db: Db,
  clock: Clock,
  input: { roomId: string; displayName: string; memberKeyHash: string; role: Role },
): Promise<JoinRoomResult> {
  return db.transaction(async (tx) => {
    const [room] = await rows<{ status: string }>(
      tx,
      sql`SELECT status FROM rooms WHERE id = ${input.roomId}::uuid`,
    );
    if (!room) return { decision: 'no_room' as const };
    if (room.status !== 'open') return { decision: 'archived' as const };
    const inserted = await rows<MemberRow>(
      tx,
      sql`INSERT INTO memberships (room_id, user_id, display_name, role, member_key_hash, created_at)
          VALUES (${input.roomId}::uuid, ${randomUUID()}::uuid, ${input.displayName}, ${input.role}, ${input.memberKeyHash}, ${clock.now()})
          ON CONFLICT (room_id, member_key_hash) DO NOTHING
          RETURNING user_id, display_name, role, status`,
    );
    if (inserted[0]) {
      const member = toMember(inserted[0]);
      const event = await appendRoomEvent(tx, clock, input.roomId, 'member.joined', `member.joined:${member.userId}:1`, member);
      return { decision: 'joined' as const, member, events: [event] };
    }
    const [existing] = await rows<MemberRow>(
      tx,
      sql`SELECT user_id, display_name, role, status FROM memberships
          WHERE room_id = ${input.roomId}::uuid AND member_key_hash = ${input.memberKeyHash} FOR UPDATE`,
    );
    if (!existing) throw new Error('membership vanished inside its transaction');
    if (existing.status === 'revoked') return { decision: 'revoked' as const };
    if (existing.display_name === input.displayName) {
      return { decision: 'returned' as const, member: toMember(existing), events: [] };
    }
    // A returning student under a new name: everyone's roster learns it through the log.
    const [renamed] = await rows<MemberRow>(
      tx,
      sql`UPDATE memberships SET display_name = ${input.displayName}
          WHERE room_id = ${input.roomId}::uuid AND user_id = ${existing.user_id}::uuid AND status = 'active'
          RETURNING user_id, display_name, role, status`,
    );
    const member = toMember(renamed!);
    const event = await appendRoomEvent(
      tx,
      clock,
      input.roomId,
      'member.joined',
      `member.joined:${member.userId}:${randomUUID()}`,
      member,
    );
    return { decision: 'returned' as const, member, events: [event] };
  });
}

export async function listMembers(executor: Executor, roomId: string): Promise<Member[]> {
  const found = await rows<MemberRow>(
    executor,
    sql`SELECT user_id, display_name, role, status FROM memberships WHERE room_id = ${roomId}::uuid ORDER BY created_at, user_id`,
  );
  return found.map(toMember);
}
