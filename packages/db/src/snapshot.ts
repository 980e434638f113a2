import { sql } from 'drizzle-orm';
import type { Departure, RoomSnapshot } from '@wb/protocol';
import { listElements } from './elements.ts';
import { listPresence } from './leases.ts';
import { findRoomById, listMembers } from './rooms.ts';
import { int, rows, type Db } from './sql.ts';

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

/**
 * The room as one consistent picture at one revision: read in a single repeatable-read,
 * read-only transaction so the revision and every row belong together.
 */
export async function loadRoomSnapshot(db: Db, roomId: string): Promise<RoomSnapshot | null> {
  return db.transaction(
    async (tx) => {
      const room = await findRoomById(tx, roomId);
      if (!room) return null;
      const [rev] = await rows<{ revision: unknown }>(tx, sql`SELECT revision FROM rooms WHERE id = ${roomId}::uuid`);
      const members = await listMembers(tx, roomId);
      const presence = await listPresence(tx, roomId);
      const last = await rows<{ user_id: string; kind: keyof typeof departureFor }>(
        tx,
        sql`SELECT DISTINCT ON (user_id) user_id, kind FROM attendance
            WHERE room_id = ${roomId}::uuid ORDER BY user_id, seq DESC`,
      );
      const present = new Set(presence.map((p) => p.userId));
      const departures: Departure[] = last
        .filter((r) => !present.has(r.user_id))
        .map((r) => ({ userId: r.user_id, reason: departureFor[r.kind] }));
      const elements = await listElements(tx, roomId);
      return { room, revision: int(rev!.revision), members, presence, departures, elements };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
}
