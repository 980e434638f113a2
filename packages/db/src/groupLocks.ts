/**
 * Group drag locks: a multi-selection drag takes every element's drag lock in one transaction, or
 * none. Each granted lock is an ordinary single lock afterwards (locks.ts): its own generation,
 * moves, extensions and release; only the grant is shared.
 *
 *   all free (or held by this session) --acquireLocks--> each held(g + 1, short first term)
 *   any held by another / pinned / not theirs / gone --acquireLocks--> nothing changes, the first
 *                                                                       conflict is named
 *
 * The rows are locked in id order, so two group requests over overlapping sets wait on each other
 * rather than deadlock, and the second one sees the first one's grants (never a partial mix).
 */
import { sql } from 'drizzle-orm';
import type { Element, RoomEvent } from '@wb/protocol';
import { msFromNow, type Clock } from './clock.ts';
import { authorizeEdit, drawingRefusal, editTransaction, ownershipRefusal, type EditActor, type PolicyRefusal } from './editRights.ts';
import { ELEMENT_COLUMNS, toElement, type ElementRow } from './elementRows.ts';
import { appendRoomEvent } from './roomLog.ts';
import { int, rows, type Db } from './sql.ts';

export interface GroupGrant {
  element: Element;
  generation: number;
  expiresInMs: number;
}

export type AcquireLocksResult =
  /** One grant per requested element, in the request's order. */
  | { decision: 'granted'; grants: GroupGrant[]; events: RoomEvent[] }
  /** The same request retried while its grants live: the same grants, not new ones. */
  | { decision: 'already_applied'; grants: GroupGrant[] }
  /** Nothing was taken: `elementId` is the first requested element someone else holds. */
  | { decision: 'locked'; elementId: string; holderUserId: string }
  | { decision: 'not_a_member' | PolicyRefusal | 'not_found' | 'pinned'; elementId?: string };

type LockedRow = ElementRow & { remaining_ms: unknown; lock_live: boolean };

/** A uuid[] parameter (one bound value, never spliced into the statement). */
function uuidArray(ids: readonly string[]): string {
  return `{${ids.join(',')}}`;
}

/**
 * Grants the drag locks of every element in `elementIds` (distinct ids) to the actor's session,
 * fenced like single grants (each generation + 1, short first term), or refuses the whole request
 * under the same rules as a single lock: the edit policy, a muted pen, pins, and live locks of
 * other sessions.
 */
export async function acquireLocks(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { elementIds: readonly string[]; requestId: string; firstTermMs: number },
): Promise<AcquireLocksResult> {
  return editTransaction(db, async (tx) => {
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth) return { decision: 'not_a_member' as const };
    const refused = drawingRefusal(auth);
    if (refused) return { decision: refused };
    const found = await rows<LockedRow>(
      tx,
      sql`SELECT ${ELEMENT_COLUMNS},
                 (lock_session_id IS NOT NULL AND lock_expires_at > ${clock.now()}) AS lock_live,
                 greatest(0, floor(extract(epoch FROM (lock_expires_at - ${clock.now()})) * 1000)) AS remaining_ms
          FROM elements WHERE room_id = ${actor.roomId}::uuid AND id = ANY(${uuidArray(input.elementIds)}::uuid[])
          ORDER BY id FOR UPDATE`,
    );
    const byId = new Map(found.map((row) => [row.id, row]));
    const wanted: LockedRow[] = [];
    for (const elementId of input.elementIds) {
      const row = byId.get(elementId);
      if (!row || row.deleted) return { decision: 'not_found' as const, elementId };
      wanted.push(row);
    }
    const retried = wanted.every(
      (row) => row.lock_live && row.lock_session_id === actor.sessionId && row.lock_request_id === input.requestId,
    );
    if (retried) {
      return {
        decision: 'already_applied' as const,
        grants: wanted.map((row) => ({
          element: toElement(row),
          generation: int(row.lock_generation),
          expiresInMs: Math.max(1, int(row.remaining_ms ?? 0)),
        })),
      };
    }
    // The same rules as a single grant, element by element in the request's order (I11).
    for (const row of wanted) {
      const ownership = ownershipRefusal(auth, actor, row.created_by);
      if (ownership) return { decision: ownership, elementId: row.id };
      if (row.pinned && auth.role !== 'teacher') return { decision: 'pinned' as const, elementId: row.id };
      if (row.lock_live && row.lock_session_id !== actor.sessionId && row.lock_user_id !== null) {
        return { decision: 'locked' as const, elementId: row.id, holderUserId: row.lock_user_id };
      }
    }
    // Each row's grant is conditional on the generation read above (I3), all in one statement.
    const granted = await rows<ElementRow>(
      tx,
      sql`UPDATE elements SET lock_generation = lock_generation + 1, lock_session_id = ${actor.sessionId}::uuid,
                              lock_user_id = ${actor.userId}::uuid, lock_expires_at = ${msFromNow(clock, input.firstTermMs)},
                              lock_request_id = ${input.requestId}, lock_confirmed = false
          WHERE room_id = ${actor.roomId}::uuid AND NOT deleted
            AND (id, lock_generation) IN (
              SELECT * FROM unnest(${uuidArray(wanted.map((row) => row.id))}::uuid[],
                                   ${`{${wanted.map((row) => int(row.lock_generation)).join(',')}}`}::int8[]))
          RETURNING ${ELEMENT_COLUMNS}`,
    );
    // The rows are locked FOR UPDATE above, so every conditional write matches; anything else
    // is a broken invariant, and throwing rolls the whole group back (never a partial grant).
    if (granted.length !== wanted.length) throw new Error(`group lock: ${granted.length} of ${wanted.length} rows granted`);
    const grantedById = new Map(granted.map((row) => [row.id, row]));
    const grants: GroupGrant[] = [];
    const events: RoomEvent[] = [];
    for (const elementId of input.elementIds) {
      const row = grantedById.get(elementId);
      if (!row) throw new Error(`group lock: ${elementId} missing from the grant`);
      const element = toElement(row);
      const generation = int(row.lock_generation);
      grants.push({ element, generation, expiresInMs: input.firstTermMs });
      events.push(
        await appendRoomEvent(
          tx,
          clock,
          actor.roomId,
          'lock.granted',
          { elementId, generation },
          { elementId, generation, sessionId: actor.sessionId, userId: actor.userId },
          auth,
        ),
      );
    }
    return { decision: 'granted' as const, grants, events };
  });
}
