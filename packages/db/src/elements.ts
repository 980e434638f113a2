/**
 * Board elements: durable, versioned, deleted as tombstones. Every change is one conditional
 * UPDATE naming the state it expects (I3): the version it was made against, the lock generation
 * it holds, a membership that is still active. A lost condition is a decision, never an exception.
 */
import { sql } from 'drizzle-orm';
import type { Element, ElementShape, Role, RoomEvent } from '@wb/protocol';
import type { Clock } from './clock.ts';
import { FREE_LOCK, releasedEvent } from './lockRelease.ts';
import { appendRoomEvent, nextRoomRevision } from './roomLog.ts';
import { int, rows, type Db, type Executor, type Tx } from './sql.ts';

/** Who is acting: a session of a member in a room. */
export interface EditActor {
  roomId: string;
  sessionId: string;
  userId: string;
}

export interface ElementRow {
  room_id: string;
  id: string;
  kind: string;
  data: unknown;
  version: unknown;
  deleted: boolean;
  pinned: boolean;
  created_by: string;
  z: unknown;
  lock_generation: unknown;
  lock_session_id: string | null;
  lock_user_id: string | null;
  lock_expires_at: unknown;
  lock_request_id: string | null;
}

export const ELEMENT_COLUMNS = sql.raw(
  'room_id, id, kind, data, version, deleted, pinned, created_by, z, lock_generation, lock_session_id, lock_user_id, lock_expires_at, lock_request_id',
);

export function toElement(row: ElementRow): Element {
  return {
    id: row.id,
    shape: (typeof row.data === 'string' ? JSON.parse(row.data) : row.data) as ElementShape,
    version: int(row.version),
    pinned: row.pinned,
    createdBy: row.created_by,
    z: int(row.z),
    lock:
      row.lock_session_id && row.lock_user_id
        ? { sessionId: row.lock_session_id, userId: row.lock_user_id, generation: int(row.lock_generation) }
        : null,
  };
}

export interface Authorized {
  role: Role;
  boardLocked: boolean;
}

/**
 * The acting session's right to change the room, read inside the caller's transaction: an open,
 * unexpired session of an active member of an open room.
 *
 * The membership row is share-locked until the caller commits, and revocation takes it FOR UPDATE
 * before anything else: an edit and a revocation of the same member serialize. An edit that read
 * the membership first commits first (its room revision is below the revocation's); one that
 * arrives while a revocation is in progress waits, re-reads the row as revoked and is refused.
 * Nothing a member sent is ever applied at a revision after their revocation (I4).
 */
export async function authorizeEdit(tx: Executor, clock: Clock, actor: EditActor): Promise<Authorized | null> {
  const [row] = await rows<{ role: Role; board_locked: boolean }>(
    tx,
    sql`SELECT m.role, r.board_locked FROM sessions s
        JOIN memberships m ON m.room_id = s.room_id AND m.user_id = s.user_id
        JOIN rooms r ON r.id = s.room_id
        WHERE s.id = ${actor.sessionId}::uuid AND s.room_id = ${actor.roomId}::uuid AND s.user_id = ${actor.userId}::uuid
          AND s.status = 'open' AND s.expires_at > ${clock.now()} AND m.status = 'active' AND r.status = 'open'
        FOR SHARE OF m`,
  );
  return row ? { role: row.role, boardLocked: row.board_locked } : null;
}

export async function readElement(executor: Executor, roomId: string, id: string): Promise<ElementRow | null> {
  const [row] = await rows<ElementRow>(
    executor,
    sql`SELECT ${ELEMENT_COLUMNS} FROM elements WHERE room_id = ${roomId}::uuid AND id = ${id}::uuid`,
  );
  return row ?? null;
}

/** Live elements of a room in drawing order. */
export async function listElements(executor: Executor, roomId: string): Promise<Element[]> {
  const found = await rows<ElementRow>(
    executor,
    sql`SELECT ${ELEMENT_COLUMNS} FROM elements WHERE room_id = ${roomId}::uuid AND NOT deleted ORDER BY z, id`,
  );
  return found.map(toElement);
}

/** Refusals shared by every element operation. */
export type Refusal =
  | 'not_a_member'
  | 'board_locked'
  | 'not_found'
  | 'pinned'
  | 'locked'
  | 'conflict'
  | 'stale_generation'
  | 'forbidden';

export type ElementResult =
  | { decision: 'applied'; element: Element; events: RoomEvent[] }
  | { decision: 'already_applied'; element: Element }
  | { decision: Refusal; element?: Element };

/** A retried request gets the answer it got the first time. */
async function priorAnswer(tx: Tx, actor: EditActor, requestId: string): Promise<Element | null> {
  const [row] = await rows<{ result: unknown }>(
    tx,
    sql`SELECT result FROM applied_requests WHERE session_id = ${actor.sessionId}::uuid AND request_id = ${requestId}`,
  );
  if (!row) return null;
  return (typeof row.result === 'string' ? JSON.parse(row.result) : row.result) as Element;
}

async function rememberAnswer(tx: Tx, clock: Clock, actor: EditActor, requestId: string, element: Element): Promise<void> {
  await tx.execute(
    sql`INSERT INTO applied_requests (session_id, request_id, room_id, result, at)
        VALUES (${actor.sessionId}::uuid, ${requestId}, ${actor.roomId}::uuid, ${JSON.stringify(element)}::jsonb, ${clock.now()})
        ON CONFLICT DO NOTHING`,
  );
}

/** The element as it stands, with whether its lock is still live by the clock. */
async function readForDecision(tx: Executor, clock: Clock, roomId: string, id: string) {
  const [row] = await rows<ElementRow & { lock_live: boolean }>(
    tx,
    sql`SELECT ${ELEMENT_COLUMNS}, (lock_session_id IS NOT NULL AND lock_expires_at > ${clock.now()}) AS lock_live
        FROM elements WHERE room_id = ${roomId}::uuid AND id = ${id}::uuid`,
  );
  return row ?? null;
}

/** Why a conditional change to an existing element did not apply. */
function refusalFor(row: (ElementRow & { lock_live: boolean }) | null, actor: EditActor, auth: Authorized): Refusal {
  if (!row || row.deleted) return 'not_found';
  if (row.pinned && auth.role !== 'teacher') return 'pinned';
  if (row.lock_live && row.lock_session_id !== actor.sessionId) return 'locked';
  return 'conflict';
}

/** Creates an element. Idempotent by element id: a retried create answers with the element. */
export async function createElement(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { id: string; shape: ElementShape },
): Promise<ElementResult> {
  return db.transaction(async (tx) => {
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth) return { decision: 'not_a_member' as const };
    if (auth.boardLocked && auth.role !== 'teacher') return { decision: 'board_locked' as const };
    const [inserted] = await rows<ElementRow>(
      tx,
      sql`INSERT INTO elements (room_id, id, kind, data, version, created_by, updated_by, created_at, updated_at, z)
          VALUES (${actor.roomId}::uuid, ${input.id}::uuid, ${input.shape.kind}, ${JSON.stringify(input.shape)}::jsonb, 1,
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
    const element = toElement(inserted);
    const event = await appendRoomEvent(tx, clock, actor.roomId, 'element.created', { elementId: element.id }, { element });
    return { decision: 'applied' as const, element, events: [event] };
  });
}

/**
 * Changes an element's shape against the version it was made from. Refused while someone else
 * holds its lock, when it is pinned (students) or the board is locked (students).
 */
export async function updateElement(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { id: string; baseVersion: number; shape: ElementShape; requestId: string },
): Promise<ElementResult> {
  return db.transaction(async (tx) => {
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth) return { decision: 'not_a_member' as const };
    const prior = await priorAnswer(tx, actor, input.requestId);
    if (prior) return { decision: 'already_applied' as const, element: prior };
    if (auth.boardLocked && auth.role !== 'teacher') return { decision: 'board_locked' as const };
    const isTeacher = auth.role === 'teacher';
    const [updated] = await rows<ElementRow>(
      tx,
      sql`UPDATE elements SET data = ${JSON.stringify(input.shape)}::jsonb, version = version + 1,
                              updated_by = ${actor.userId}::uuid, updated_at = ${clock.now()}
          WHERE room_id = ${actor.roomId}::uuid AND id = ${input.id}::uuid AND NOT deleted
            AND version = ${input.baseVersion}::int8 AND kind = ${input.shape.kind}
            AND (lock_session_id IS NULL OR lock_session_id = ${actor.sessionId}::uuid OR lock_expires_at <= ${clock.now()})
            AND (NOT pinned OR ${isTeacher})
          RETURNING ${ELEMENT_COLUMNS}`,
    );
    if (!updated) {
      const row = await readForDecision(tx, clock, actor.roomId, input.id);
      const element = row && !row.deleted ? toElement(row) : undefined;
      return { decision: refusalFor(row, actor, auth), ...(element ? { element } : {}) };
    }
    const element = toElement(updated);
    const event = await appendRoomEvent(tx, clock, actor.roomId, 'element.updated', { elementId: element.id, version: element.version }, {
      element,
    });
    await rememberAnswer(tx, clock, actor, input.requestId, element);
    return { decision: 'applied' as const, element, events: [event] };
  });
}

/** Deletes an element as a tombstone (it never comes back). Deleting a deleted one is a no-op. */
export async function deleteElement(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { id: string },
): Promise<ElementResult> {
  return db.transaction(async (tx) => {
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth) return { decision: 'not_a_member' as const };
    if (auth.boardLocked && auth.role !== 'teacher') return { decision: 'board_locked' as const };
    const isTeacher = auth.role === 'teacher';
    const [deleted] = await rows<ElementRow>(
      tx,
      sql`UPDATE elements SET deleted = true, version = version + 1, updated_by = ${actor.userId}::uuid, updated_at = ${clock.now()},
                              ${FREE_LOCK}
          WHERE room_id = ${actor.roomId}::uuid AND id = ${input.id}::uuid AND NOT deleted
            AND (lock_session_id IS NULL OR lock_session_id = ${actor.sessionId}::uuid OR lock_expires_at <= ${clock.now()})
            AND (NOT pinned OR ${isTeacher})
          RETURNING ${ELEMENT_COLUMNS}`,
    );
    if (!deleted) {
      const row = await readForDecision(tx, clock, actor.roomId, input.id);
      if (row?.deleted) return { decision: 'already_applied' as const, element: toElement(row) };
      return { decision: refusalFor(row, actor, auth) };
    }
    const element = toElement(deleted);
    const event = await appendRoomEvent(
      tx,
      clock,
      actor.roomId,
      'element.deleted',
      { elementId: element.id, version: element.version },
      { elementId: element.id, version: element.version, by: actor.userId },
    );
    return { decision: 'applied' as const, element, events: [event] };
  });
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
    const before = await readElement(tx, actor.roomId, input.id);
    if (!before || before.deleted) return { decision: 'not_found' as const };
    if (before.pinned === input.pinned) return { decision: 'already_applied' as const, element: toElement(before) };
    const events: RoomEvent[] = [];
    const breakLock = input.pinned && before.lock_session_id !== null && before.lock_session_id !== actor.sessionId;
    const [updated] = await rows<ElementRow>(
      tx,
      sql`UPDATE elements SET pinned = ${input.pinned}, version = version + 1, updated_by = ${actor.userId}::uuid,
                              updated_at = ${clock.now()}${breakLock ? sql`, ${FREE_LOCK}` : sql.empty()}
          WHERE room_id = ${actor.roomId}::uuid AND id = ${input.id}::uuid AND NOT deleted AND version = ${int(before.version)}::int8
          RETURNING ${ELEMENT_COLUMNS}`,
    );
    if (!updated) return { decision: 'conflict' as const };
    const element = toElement(updated);
    if (breakLock) events.push(await releasedEvent(tx, clock, actor.roomId, element.id, int(before.lock_generation), 'broken'));
    events.push(
      await appendRoomEvent(tx, clock, actor.roomId, 'element.updated', { elementId: element.id, version: element.version }, {
        element,
      }),
    );
    return { decision: 'applied' as const, element, events };
  });
}

export type BoardLockResult =
  | { decision: 'applied'; locked: boolean; events: RoomEvent[] }
  | { decision: 'already_applied'; locked: boolean }
  | { decision: 'not_a_member' | 'forbidden' };

/** Teacher: makes the board read-only for students (their drags in progress are broken). */
export async function setBoardLocked(db: Db, clock: Clock, actor: EditActor, locked: boolean): Promise<BoardLockResult> {
  return db.transaction(async (tx) => {
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth) return { decision: 'not_a_member' as const };
    if (auth.role !== 'teacher') return { decision: 'forbidden' as const };
    const changed = await rows<{ id: string }>(
      tx,
      sql`UPDATE rooms SET board_locked = ${locked} WHERE id = ${actor.roomId}::uuid AND board_locked <> ${locked} RETURNING id`,
    );
    if (changed.length === 0) return { decision: 'already_applied' as const, locked };
    const events: RoomEvent[] = [];
    if (locked) {
      const broken = await rows<{ id: string; lock_generation: unknown }>(
        tx,
        sql`UPDATE elements e SET ${FREE_LOCK}
            FROM memberships m
            WHERE e.room_id = ${actor.roomId}::uuid AND e.lock_session_id IS NOT NULL
              AND m.room_id = e.room_id AND m.user_id = e.lock_user_id AND m.role = 'student'
            RETURNING e.id, e.lock_generation`,
      );
      for (const b of broken) events.push(await releasedEvent(tx, clock, actor.roomId, b.id, int(b.lock_generation), 'broken'));
    }
    const roomRevision = await nextRoomRevision(tx, actor.roomId);
    events.push(await appendRoomEvent(tx, clock, actor.roomId, 'board.locked', { roomRevision }, { locked, by: actor.userId }));
    return { decision: 'applied' as const, locked, events };
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
