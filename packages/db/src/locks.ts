/**
 * Element drag locks: server-granted leases with a fencing generation, replacing the naive
 * "earliest client timestamp wins" lock. Lifecycle, each transition one conditional statement:
 *   free --acquireLock--> held(g + 1, short first term, unconfirmed)
 *   held(g) --extendLock(g) (a move arrived)--> held(g), confirmed, full term
 *   held(g) --releaseLock(g) [+ final shape]--> free      (a stale g is refused: I4)
 *   held(g) --expireLockIfGeneration(g) after its term--> free  (only the winner publishes: I5)
 *   held(g) --breakLock / holder's lease expires / sign-out / revocation--> free
 * The generation only grows, so a former holder's late move or commit can never apply. Every way
 * to free a lock (these, and a pin or the board lock in elements.ts) clears the same columns and
 * appends the same `lock.released`: lockRelease.ts.
 */
import { sql } from 'drizzle-orm';
import type { Element, ElementShape, RoomEvent } from '@wb/protocol';
import { msFromNow, type Clock } from './clock.ts';
import { authorizeEdit, drawingRefusal, editTransaction, mayChangeCondition, ownershipRefusal, type EditActor, type PolicyRefusal } from './editRights.ts';
import { ELEMENT_COLUMNS, ELEMENT_DATA, toElement, withShape, type ElementRow } from './elementRows.ts';
import { changeNamesUnknownImage } from './elementCap.ts';
import { recordVersion, shapeChangeAction } from './elementVersions.ts';
import type { ElementResult } from './elements.ts';
import { FREE_LOCK, releasedEvent } from './lockRelease.ts';
import { appendRoomEvent } from './roomLog.ts';
import { AlreadyApplied, int, rows, type Db, type Executor, type Tx } from './sql.ts';

export type AcquireLockResult =
  | { decision: 'granted'; element: Element; generation: number; expiresInMs: number; events: RoomEvent[] }
  /** The same request retried: the same grant, not a second one. */
  | { decision: 'already_applied'; element: Element; generation: number; expiresInMs: number }
  | { decision: 'locked'; element: Element }
  | { decision: 'not_a_member' | PolicyRefusal | 'not_found' | 'pinned' };

/**
 * Grants the element's drag lock when it is free or its lock has expired, with a short first
 * term that the holder's first move extends. Every grant increments the generation (I4).
 */
export async function acquireLock(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { elementId: string; requestId: string; firstTermMs: number },
): Promise<AcquireLockResult> {
  return editTransaction(db, async (tx) => {
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth) return { decision: 'not_a_member' as const };
    const refused = drawingRefusal(auth);
    if (refused) return { decision: refused };
    const [current] = await rows<ElementRow & { remaining_ms: unknown; lock_live: boolean }>(
      tx,
      sql`SELECT ${ELEMENT_COLUMNS},
                 (lock_session_id IS NOT NULL AND lock_expires_at > ${clock.now()}) AS lock_live,
                 greatest(0, floor(extract(epoch FROM (lock_expires_at - ${clock.now()})) * 1000)) AS remaining_ms
          FROM elements WHERE room_id = ${actor.roomId}::uuid AND id = ${input.elementId}::uuid FOR UPDATE`,
    );
    if (!current || current.deleted) return { decision: 'not_found' as const };
    if (current.lock_session_id === actor.sessionId && current.lock_request_id === input.requestId && current.lock_live) {
      return {
        decision: 'already_applied' as const,
        element: toElement(current),
        generation: int(current.lock_generation),
        expiresInMs: Math.max(1, int(current.remaining_ms ?? 0)),
      };
    }
    // The policy (I11): under `own` a student may hold only their own elements. The membership and
    // room rows read by authorizeEdit stay locked, so the policy cannot change before this commits.
    const ownership = ownershipRefusal(auth, actor, current.created_by);
    if (ownership) return { decision: ownership };
    if (current.pinned && auth.role !== 'teacher') return { decision: 'pinned' as const };
    if (current.lock_live && current.lock_session_id !== actor.sessionId) {
      return { decision: 'locked' as const, element: toElement(current) };
    }
    const [granted] = await rows<ElementRow>(
      tx,
      sql`UPDATE elements SET lock_generation = lock_generation + 1, lock_session_id = ${actor.sessionId}::uuid,
                              lock_user_id = ${actor.userId}::uuid, lock_expires_at = ${msFromNow(clock, input.firstTermMs)},
                              lock_request_id = ${input.requestId}, lock_confirmed = false
          WHERE room_id = ${actor.roomId}::uuid AND id = ${input.elementId}::uuid AND NOT deleted
            AND lock_generation = ${int(current.lock_generation)}::int8
          RETURNING ${ELEMENT_COLUMNS}`,
    );
    if (!granted) return { decision: 'locked' as const, element: toElement(current) };
    const element = toElement(granted);
    const generation = int(granted.lock_generation);
    const event = await appendRoomEvent(
      tx,
      clock,
      actor.roomId,
      'lock.granted',
      { elementId: element.id, generation },
      { elementId: element.id, generation, sessionId: actor.sessionId, userId: actor.userId },
      auth,
    );
    return { decision: 'granted' as const, element, generation, expiresInMs: input.firstTermMs, events: [event] };
  });
}

/**
 * The holder is still dragging: extends the lock a full term and marks the grant confirmed.
 * Not a room-visible change (no event). False when the generation is no longer current.
 */
export async function extendLock(
  executor: Executor,
  clock: Clock,
  input: { roomId: string; elementId: string; sessionId: string; generation: number; ttlMs: number },
): Promise<boolean> {
  const extended = await rows<{ id: string }>(
    executor,
    sql`UPDATE elements SET lock_expires_at = greatest(lock_expires_at, ${msFromNow(clock, input.ttlMs)}), lock_confirmed = true
        WHERE room_id = ${input.roomId}::uuid AND id = ${input.elementId}::uuid
          AND lock_session_id = ${input.sessionId}::uuid AND lock_generation = ${input.generation}::int8
          AND lock_expires_at > ${clock.now()}
        RETURNING id`,
  );
  return extended.length > 0;
}

/**
 * Pointer-up: releases the lock and writes the final shape in one statement, only where the
 * generation still holds (a former holder's late commit is `stale_generation`, I4). As with a
 * lease renewal, a commit arriving after the term but before anyone swept or took the lock still
 * wins: the generation decides, and exactly one of commit and compare-and-release can succeed.
 */
export async function releaseLock(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { elementId: string; generation: number; shape: ElementShape | undefined; requestId: string },
): Promise<ElementResult> {
  try {
    return await editTransaction(db, async (tx) => {
      const auth = await authorizeEdit(tx, clock, actor);
      if (!auth) return { decision: 'not_a_member' as const };
      const shape = input.shape ?? null;
      const [before] = await rows<{ data: unknown }>(
        tx,
        sql`SELECT ${ELEMENT_DATA} AS data FROM elements WHERE room_id = ${actor.roomId}::uuid AND id = ${input.elementId}::uuid FOR UPDATE`,
      );
      // A commit cannot swap an image for a picture its lesson lacks (the lock stays held).
      if (input.shape && before && (await changeNamesUnknownImage(tx, actor.roomId, input.shape, before.data))) {
        return { decision: 'image_unknown' as const };
      }
      // A reduction of this member's rights ends their lock in its own transaction, so a commit
      // under a generation that still holds is within their rights; the condition repeats it.
      const [written] = await rows<ElementRow>(
        tx,
        sql`UPDATE elements SET version = version + ${shape === null ? 0 : 1}::int8,
                                updated_by = ${actor.userId}::uuid, updated_at = ${clock.now()}, ${FREE_LOCK}
            WHERE room_id = ${actor.roomId}::uuid AND id = ${input.elementId}::uuid AND NOT deleted
              AND lock_session_id = ${actor.sessionId}::uuid AND lock_generation = ${input.generation}::int8
              AND (${input.shape?.kind ?? null}::text IS NULL OR kind = ${input.shape?.kind ?? null}::text)
              AND (${shape === null} OR (${drawingRefusal(auth) === null} AND ${mayChangeCondition(auth, actor)}))
            RETURNING ${ELEMENT_COLUMNS}`,
      );
      if (!written) {
        const [row] = await rows<ElementRow>(
          tx,
          sql`SELECT ${ELEMENT_COLUMNS} FROM elements WHERE room_id = ${actor.roomId}::uuid AND id = ${input.elementId}::uuid`,
        );
        if (!row || row.deleted) return { decision: 'not_found' as const };
        return { decision: 'stale_generation' as const, element: toElement(row) };
      }
      // A commit with a shape makes it the new version's (written once, by recordVersion below).
      const released = input.shape ? withShape(written, input.shape) : written;
      const element = toElement(released);
      const events: RoomEvent[] = [];
      if (shape !== null && input.shape && before) {
        await recordVersion(tx, clock, released, shapeChangeAction(before.data, input.shape), actor.userId);
        events.push(
          await appendRoomEvent(
            tx,
            clock,
            actor.roomId,
            'element.updated',
            { elementId: element.id, version: element.version },
            { element },
            auth,
          ),
        );
      }
      events.push(await releasedEvent(tx, clock, actor.roomId, element.id, input.generation, 'released'));
      return { decision: 'applied' as const, element, events };
    });
  } catch (error) {
    if (error instanceof AlreadyApplied) return { decision: 'stale_generation' };
    throw error;
  }
}

/** Teacher: frees any lock at once. */
export async function breakLock(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { elementId: string },
): Promise<ElementResult> {
  return db.transaction(async (tx) => {
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth) return { decision: 'not_a_member' as const };
    if (auth.role !== 'teacher') return { decision: 'forbidden' as const };
    const [broken] = await rows<ElementRow>(
      tx,
      sql`UPDATE elements SET ${FREE_LOCK}
          WHERE room_id = ${actor.roomId}::uuid AND id = ${input.elementId}::uuid AND NOT deleted AND lock_session_id IS NOT NULL
          RETURNING ${ELEMENT_COLUMNS}`,
    );
    if (!broken) {
      const [row] = await rows<ElementRow>(
        tx,
        sql`SELECT ${ELEMENT_COLUMNS} FROM elements WHERE room_id = ${actor.roomId}::uuid AND id = ${input.elementId}::uuid`,
      );
      if (!row || row.deleted) return { decision: 'not_found' as const };
      return { decision: 'already_applied' as const, element: toElement(row) };
    }
    const element = toElement(broken);
    const event = await releasedEvent(tx, clock, actor.roomId, element.id, int(broken.lock_generation), 'broken');
    return { decision: 'applied' as const, element, events: [event] };
  });
}

/**
 * Frees every lock a session holds, inside the transaction that ends its presence (lease expiry,
 * sign-out, revocation). The elements stay where their last accepted commit left them.
 */
export async function releaseLocksOfSessions(tx: Tx, clock: Clock, sessionIds: readonly string[]): Promise<RoomEvent[]> {
  if (sessionIds.length === 0) return [];
  const freed = await rows<{ room_id: string; id: string; lock_generation: unknown }>(
    tx,
    sql`UPDATE elements SET ${FREE_LOCK}
        WHERE lock_session_id = ANY(${`{${sessionIds.join(',')}}`}::uuid[])
        RETURNING room_id, id, lock_generation`,
  );
  const events: RoomEvent[] = [];
  for (const f of freed) {
    events.push(await releasedEvent(tx, clock, f.room_id, f.id, int(f.lock_generation), 'holder_gone'));
  }
  return events;
}

export interface HeldLock {
  roomId: string;
  elementId: string;
  generation: number;
}

/** Locks whose term has passed by the clock (holder alive but silent, or a lost grant). */
export async function findExpiredLocks(executor: Executor, clock: Clock, limit: number): Promise<HeldLock[]> {
  const found = await rows<{ room_id: string; id: string; lock_generation: unknown }>(
    executor,
    sql`SELECT room_id, id, lock_generation FROM elements
        WHERE lock_session_id IS NOT NULL AND lock_expires_at <= ${clock.now()}
        ORDER BY lock_expires_at LIMIT ${limit}::int`,
  );
  return found.map((f) => ({ roomId: f.room_id, elementId: f.id, generation: int(f.lock_generation) }));
}

/** Compare-and-release of one expired lock on its exact generation; only the winner publishes. */
export async function expireLockIfGeneration(
  db: Db,
  clock: Clock,
  lock: HeldLock,
): Promise<{ won: true; events: RoomEvent[] } | { won: false }> {
  try {
    return await db.transaction(async (tx) => {
      const freed = await rows<{ id: string }>(
        tx,
        sql`UPDATE elements SET ${FREE_LOCK}
            WHERE room_id = ${lock.roomId}::uuid AND id = ${lock.elementId}::uuid
              AND lock_generation = ${lock.generation}::int8 AND lock_session_id IS NOT NULL
              AND lock_expires_at <= ${clock.now()}
            RETURNING id`,
      );
      if (freed.length === 0) return { won: false as const };
      return { won: true as const, events: [await releasedEvent(tx, clock, lock.roomId, lock.elementId, lock.generation, 'expired')] };
    });
  } catch (error) {
    if (error instanceof AlreadyApplied) return { won: false };
    throw error;
  }
}

/** Restart grace for locks (I8): a drag in flight when the server went away gets a full term. */
export async function graceLocks(executor: Executor, clock: Clock, ttlMs: number): Promise<number> {
  const graced = await rows<{ n: unknown }>(
    executor,
    sql`WITH g AS (
          UPDATE elements SET lock_expires_at = greatest(lock_expires_at, ${msFromNow(clock, ttlMs)})
          WHERE lock_session_id IS NOT NULL RETURNING 1)
        SELECT count(*) AS n FROM g`,
  );
  return int(graced[0]?.n ?? 0);
}

/** The current lock of an element, for a node's move filter after a restart. */
export async function readLock(
  executor: Executor,
  roomId: string,
  elementId: string,
): Promise<{ sessionId: string | null; generation: number } | null> {
  const [row] = await rows<{ lock_session_id: string | null; lock_generation: unknown; deleted: boolean }>(
    executor,
    sql`SELECT lock_session_id, lock_generation, deleted FROM elements WHERE room_id = ${roomId}::uuid AND id = ${elementId}::uuid`,
  );
  if (!row || row.deleted) return null;
  return { sessionId: row.lock_session_id, generation: int(row.lock_generation) };
}
