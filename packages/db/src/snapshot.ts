import { sql } from 'drizzle-orm';
import type { Departure, RoomSnapshot } from '@wb/protocol';
import { ELEMENT_COLUMNS, toElement, type ElementRow } from './elementRows.ts';
import { memberColumns, roomColumns, toMember, toRoom, type MemberRow, type RoomRow } from './rooms.ts';
import { int, rows, type Db } from './sql.ts';
import { latestPollRow, toPoll, type PollRow } from './checks.ts';

const departureFor = {
  lease_expired: 'lease_expired',
  signed_out: 'signed_out',
  membership_revoked: 'revoked',
  session_closed: 'server',
  lesson_ended: 'lesson_ended',
  // A member whose last fact is a join but who holds no lease lost it to a database crash.
  joined: 'lease_expired',
  reconnected: 'lease_expired',
} as const;

/** A json column: node-postgres parses it, but a driver handing back text is read too. */
const parsed = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

/**
 * The room as one consistent picture at one revision, read by one statement (so one snapshot of
 * the database): the revision and every row belong together. One statement, not a transaction of
 * several, so on the embedded database's single connection a renewal waits behind a snapshot for
 * at most that one statement (I14).
 */
export async function loadRoomSnapshot(db: Db, roomId: string): Promise<RoomSnapshot | null> {
  const [row] = await rows<{ room: unknown; revision: unknown; members: unknown; presence: unknown; last: unknown; elements: unknown; poll: unknown }>(
    db,
    sql`SELECT
          (SELECT row_to_json(r) FROM (SELECT ${roomColumns} FROM rooms WHERE id = ${roomId}::uuid) r) AS room,
          (SELECT revision FROM rooms WHERE id = ${roomId}::uuid) AS revision,
          (SELECT coalesce(json_agg(m ORDER BY m.created_at, m.user_id), '[]'::json)
             FROM (SELECT ${memberColumns}, created_at FROM memberships WHERE room_id = ${roomId}::uuid) m) AS members,
          (SELECT coalesce(json_agg(p ORDER BY p.session_id), '[]'::json)
             FROM (SELECT user_id, session_id, revision, connected FROM presence_leases WHERE room_id = ${roomId}::uuid) p) AS presence,
          (SELECT coalesce(json_agg(a), '[]'::json)
             FROM (SELECT DISTINCT ON (user_id) user_id, kind FROM attendance
                   WHERE room_id = ${roomId}::uuid ORDER BY user_id, seq DESC) a) AS last,
          (SELECT coalesce(json_agg(e ORDER BY e.z, e.id), '[]'::json)
             FROM (SELECT ${ELEMENT_COLUMNS} FROM elements WHERE room_id = ${roomId}::uuid AND NOT deleted) e) AS elements,
          (SELECT row_to_json(p) FROM (${latestPollRow(roomId)}) p) AS poll`,
  );
  const roomRow = parsed<RoomRow | null>(row?.room ?? null);
  if (!row || !roomRow) return null;
  const presence = parsed<Array<{ user_id: string; session_id: string; revision: unknown; connected: boolean }>>(row.presence).map((p) => ({
    sessionId: p.session_id,
    userId: p.user_id,
    revision: int(p.revision),
    connected: p.connected,
  }));
  const present = new Set(presence.map((p) => p.userId));
  const departures: Departure[] = parsed<Array<{ user_id: string; kind: keyof typeof departureFor }>>(row.last)
    .filter((r) => !present.has(r.user_id))
    .map((r) => ({ userId: r.user_id, reason: departureFor[r.kind] }));
  return {
    room: toRoom(roomRow),
    revision: int(row.revision),
    members: parsed<MemberRow[]>(row.members).map(toMember),
    presence,
    departures,
    elements: parsed<ElementRow[]>(row.elements).map(toElement),
    poll: row.poll === null || row.poll === undefined ? null : toPoll(parsed<PollRow>(row.poll)),
  };
}
