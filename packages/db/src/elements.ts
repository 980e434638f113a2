/**
 * Board elements: durable, versioned, deleted as tombstones. Every change is one conditional
 * UPDATE naming the state it expects (I3): the version it was made against, the lock generation
 * it holds, a membership that is still active, and (I11) an element the lesson's edit policy lets
 * this member change. A lost condition is a decision, never an exception. Every accepted version
 * is also recorded for the teacher's history (elementVersions.ts).
 */
import { sql } from 'drizzle-orm';
import type { Element, ElementShape, RoomEvent } from '@wb/protocol';
import { priorResult, rememberResult } from './appliedRequests.ts';
import type { Clock } from './clock.ts';
import {
  authorizeEdit,
  editTransaction,
  drawingRefusal,
  mayChangeCondition,
  ownershipRefusal,
  type Authorized,
  type EditActor,
  type PolicyRefusal,
} from './editRights.ts';
import { ELEMENT_COLUMNS, readElement, readElementForUpdate, shapeOf, toElement, withShape, type ElementRow } from './elementRows.ts';
import { changeNamesUnknownImage, refusedWhenFull, type ElementCaps } from './elementCap.ts';
import { recordVersion, shapeChangeAction } from './elementVersions.ts';
import { FREE_LOCK, releasedEvent } from './lockRelease.ts';
import { appendRoomEvent } from './roomLog.ts';
import { int, rows, type Db, type Executor, type Tx } from './sql.ts';

export { authorizeEdit, type Authorized, type EditActor } from './editRights.ts';
export { ELEMENT_COLUMNS, listElements, readElement, toElement, type ElementRow } from './elementRows.ts';

/** Refusals shared by every element operation. */
export type Refusal =
  | 'not_a_member'
  | PolicyRefusal
  | 'not_found'
  | 'pinned'
  | 'locked'
  | 'conflict'
  | 'stale_generation'
  | 'forbidden'
  /** The board holds as many live elements as it may (elementCap.ts): nothing was stored. */
  | 'board_full'
  /** An image element naming a picture its lesson does not hold (`lesson_images`): nothing was stored. */
  | 'image_unknown';

export type ElementResult =
  | { decision: 'applied'; element: Element; events: RoomEvent[] }
  | { decision: 'already_applied'; element: Element }
  | { decision: Refusal; element?: Element };

type DecisionRow = ElementRow & { lock_live: boolean };

/** The element as it stands, with whether its lock is still live by the clock. */
export async function readForDecision(tx: Executor, clock: Clock, roomId: string, id: string): Promise<DecisionRow | null> {
  const [row] = await rows<DecisionRow>(
    tx,
    sql`SELECT ${ELEMENT_COLUMNS}, (lock_session_id IS NOT NULL AND lock_expires_at > ${clock.now()}) AS lock_live
        FROM elements WHERE room_id = ${roomId}::uuid AND id = ${id}::uuid`,
  );
  return row ?? null;
}

/** Why a conditional change to an existing element did not apply. */
export function refusalFor(row: DecisionRow | null, actor: EditActor, auth: Authorized): Refusal {
  if (!row || row.deleted) return 'not_found';
  const ownership = ownershipRefusal(auth, actor, row.created_by);
  if (ownership) return ownership;
  if (row.pinned && auth.role !== 'teacher') return 'pinned';
  if (row.lock_live && row.lock_session_id !== actor.sessionId) return 'locked';
  return 'conflict';
}

/**
 * Creates an element. Idempotent by element id: a retried create answers with the element. Refused
 * `board_full` at the board's cap and `image_unknown` for a picture its lesson lacks (elementCap.ts).
 */
export async function createElement(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { id: string; shape: ElementShape },
  caps: ElementCaps,
): Promise<ElementResult> {
  return refusedWhenFull(() => editTransaction(db, async (tx) => {
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth) return { decision: 'not_a_member' as const };
    const refused = drawingRefusal(auth);
    if (refused) return { decision: refused };
    if (await changeNamesUnknownImage(tx, actor.roomId, input.shape, null)) return { decision: 'image_unknown' as const };
    const [inserted] = await rows<ElementRow>(
      tx,
      sql`INSERT INTO elements (room_id, id, kind, version, created_by, updated_by, created_at, updated_at, z)
          VALUES (${actor.roomId}::uuid, ${input.id}::uuid, ${input.shape.kind}, 1,
                  ${actor.userId}::uuid, ${actor.userId}::uuid, ${clock.now()}, ${clock.now()},
                  (SELECT revision + 1 FROM rooms WHERE id = ${actor.roomId}::uuid))
          ON CONFLICT (room_id, id) DO NOTHING
          RETURNING ${ELEMENT_COLUMNS}`,
    );
    if (!inserted) {
      const existing = await readElement(tx, actor.roomId, input.id);
      // A deleted element stays deleted: a late retry of its create must not bring it back.
      if (existing?.deleted) return { decision: 'not_found' as const };
      // The creator retrying gets its element back; anyone else reusing the id is refused.
      if (existing && existing.created_by === actor.userId) return { decision: 'already_applied' as const, element: toElement(existing) };
      return { decision: 'conflict' as const };
    }
    // Its shape is written once, as its first version (docs/store.md, "One copy of an element's content").
    const created = withShape(inserted, input.shape);
    const element = toElement(created);
    await recordVersion(tx, clock, created, 'created', actor.userId);
    const event = await appendRoomEvent(tx, clock, actor.roomId, 'element.created', { elementId: element.id }, { element }, auth, caps.maxPerBoard);
    return { decision: 'applied' as const, element, events: [event] };
  }));
}

/**
 * Changes an element's shape against the version it was made from. Refused while someone else
 * holds its lock, when it is pinned (students), or when the lesson's policy does not let this
 * member change it (in the same conditional write, I11).
 */
export async function updateElement(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { id: string; baseVersion: number; shape: ElementShape; requestId: string },
): Promise<ElementResult> {
  return editTransaction(db, async (tx) => {
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth) return { decision: 'not_a_member' as const };
    const prior = await priorResult<Element>(tx, actor, input.requestId);
    if (prior) return { decision: 'already_applied' as const, element: prior };
    const refused = drawingRefusal(auth);
    if (refused) return { decision: refused };
    const isTeacher = auth.role === 'teacher';
    const before = await readElementForUpdate(tx, actor.roomId, input.id);
    if (before && (await changeNamesUnknownImage(tx, actor.roomId, input.shape, before.data))) return { decision: 'image_unknown' as const };
    const [changed] = await rows<ElementRow>(
      tx,
      sql`UPDATE elements SET version = version + 1,
                              updated_by = ${actor.userId}::uuid, updated_at = ${clock.now()}
          WHERE room_id = ${actor.roomId}::uuid AND id = ${input.id}::uuid AND NOT deleted
            AND version = ${input.baseVersion}::int8 AND kind = ${input.shape.kind}
            AND (lock_session_id IS NULL OR lock_session_id = ${actor.sessionId}::uuid OR lock_expires_at <= ${clock.now()})
            AND (NOT pinned OR ${isTeacher}) AND ${mayChangeCondition(auth, actor)}
          RETURNING ${ELEMENT_COLUMNS}`,
    );
    if (!changed || !before) {
      const row = await readForDecision(tx, clock, actor.roomId, input.id);
      const element = row && !row.deleted ? toElement(row) : undefined;
      return { decision: refusalFor(row, actor, auth), ...(element ? { element } : {}) };
    }
    const updated = withShape(changed, input.shape);
    const element = toElement(updated);
    await recordVersion(tx, clock, updated, shapeChangeAction(before.data, input.shape), actor.userId);
    const event = await appendRoomEvent(
      tx,
      clock,
      actor.roomId,
      'element.updated',
      { elementId: element.id, version: element.version },
      { element },
      auth,
    );
    await rememberResult(tx, clock, actor, input.requestId, element);
    return { decision: 'applied' as const, element, events: [event] };
  });
}

/**
 * Deletes an element as a tombstone (only the teacher's restore brings it back). Deleting a
 * deleted one is a no-op. `erased`: the eraser took it (the history says so).
 */
export async function deleteElement(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { id: string; erased?: boolean },
): Promise<ElementResult> {
  return editTransaction(db, async (tx) => {
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth) return { decision: 'not_a_member' as const };
    const refused = drawingRefusal(auth);
    if (refused) return { decision: refused };
    const isTeacher = auth.role === 'teacher';
    const [deleted] = await rows<ElementRow>(
      tx,
      sql`UPDATE elements SET deleted = true, version = version + 1, updated_by = ${actor.userId}::uuid, updated_at = ${clock.now()},
                              ${FREE_LOCK}
          WHERE room_id = ${actor.roomId}::uuid AND id = ${input.id}::uuid AND NOT deleted
            AND (lock_session_id IS NULL OR lock_session_id = ${actor.sessionId}::uuid OR lock_expires_at <= ${clock.now()})
            AND (NOT pinned OR ${isTeacher}) AND ${mayChangeCondition(auth, actor)}
          RETURNING ${ELEMENT_COLUMNS}`,
    );
    if (!deleted) {
      const row = await readForDecision(tx, clock, actor.roomId, input.id);
      if (row?.deleted) return { decision: 'already_applied' as const, element: toElement(row) };
      return { decision: refusalFor(row, actor, auth) };
    }
    const element = toElement(deleted);
    await recordVersion(tx, clock, deleted, input.erased ? 'erased' : 'deleted', actor.userId);
    const event = await deletedEvent(tx, clock, actor.roomId, element, actor.userId, auth);
    return { decision: 'applied' as const, element, events: [event] };
  });
}

/** Appends the tombstone event of an element just deleted (`editedUnder`: see appendRoomEvent). */
export function deletedEvent(tx: Tx, clock: Clock, roomId: string, element: Element, by: string, editedUnder?: Authorized): Promise<RoomEvent> {
  return appendRoomEvent(
    tx,
    clock,
    roomId,
    'element.deleted',
    { elementId: element.id, version: element.version },
    { elementId: element.id, version: element.version, by },
    editedUnder,
  );
}

/** Teacher: pins or unpins an element. Pinning breaks a student's lock on it. */
export async function setElementPinned(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { id: string; pinned: boolean },
): Promise<ElementResult> {
  return db.transaction(async (tx) => {
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth) return { decision: 'not_a_member' as const };
    if (auth.role !== 'teacher') return { decision: 'forbidden' as const };
    // The row is locked from this read to the write: a lock granted in between would otherwise be
    // left standing on a pinned element (a grant does not bump the version the write names).
    const before = await readElementForUpdate(tx, actor.roomId, input.id);
    if (!before || before.deleted) return { decision: 'not_found' as const };
    if (before.pinned === input.pinned) return { decision: 'already_applied' as const, element: toElement(before) };
    const events: RoomEvent[] = [];
    const breakLock = input.pinned && before.lock_session_id !== null && before.lock_session_id !== actor.sessionId;
    const [updated] = await rows<ElementRow>(
      tx,
      sql`UPDATE elements SET pinned = ${input.pinned}, version = version + 1, updated_by = ${actor.userId}::uuid,
                              updated_at = ${clock.now()}${breakLock ? sql`, ${FREE_LOCK}` : sql.empty()}
          WHERE room_id = ${actor.roomId}::uuid AND id = ${input.id}::uuid AND NOT deleted AND version = ${int(before.version)}::int8
            AND lock_generation = ${int(before.lock_generation)}::int8
          RETURNING ${ELEMENT_COLUMNS}`,
    );
    if (!updated) return { decision: 'conflict' as const };
    const element = toElement(updated);
    if (breakLock) events.push(await releasedEvent(tx, clock, actor.roomId, element.id, int(before.lock_generation), 'broken'));
    await recordVersion(tx, clock, updated, input.pinned ? 'pinned' : 'unpinned', actor.userId);
    events.push(
      await appendRoomEvent(tx, clock, actor.roomId, 'element.updated', { elementId: element.id, version: element.version }, {
        element,
      }),
    );
    return { decision: 'applied' as const, element, events };
  });
}

/** Forgets idempotency records older than `maxAgeMs` (I10): retries come within seconds. */
export async function pruneAppliedRequests(executor: Executor, clock: Clock, maxAgeMs: number): Promise<number> {
  const gone = await rows<{ n: unknown }>(
    executor,
    sql`WITH g AS (DELETE FROM applied_requests WHERE at < ${clock.now()} - ${maxAgeMs}::int8 * interval '1 millisecond' RETURNING 1)
        SELECT count(*) AS n FROM g`,
  );
  return int(gone[0]?.n ?? 0);
}

export { shapeOf };
