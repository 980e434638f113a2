/**
 * The teacher's board history and restore, over `element_versions` (elementVersions.ts):
 *   listHistory                      newest changes first, optionally one member's
 *   restoreElementVersion(v)         the element takes version v's shape again, undeleted if it was
 *                                    deleted (`element.restored`) or as a change (`element.updated`)
 *   clearBoard(of?)                  deletes every live element (or one member's) under one batch id
 *   restoreBatch(batch)              brings back the batch's elements that are still as it left them
 * Teacher only, each one transaction of conditional writes; restoring keeps the original author
 * (`created_by` never changes) and bumps the version, so every client applies it as newer (I1).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Element, HistoryAction, HistoryEntry, RoomEvent } from '@wb/protocol';
import type { Clock } from './clock.ts';
import { authorizeEdit, type EditActor } from './editRights.ts';
import { refusedWhenFull, type ElementCaps } from './elementCap.ts';
import { ELEMENT_COLUMNS, readElementForUpdate, toElement, withShape, type ElementRow } from './elementRows.ts';
import { deletedEvent, type ElementResult } from './elements.ts';
import { recordVersion } from './elementVersions.ts';
import { FREE_LOCK, releasedEvent } from './lockRelease.ts';
import { appendRoomEvent } from './roomLog.ts';
import { date, int, rows, type Db, type Executor, type Tx } from './sql.ts';

interface VersionRow {
  element_id: string;
  version: unknown;
  previous_version: unknown;
  action: HistoryAction;
  by: string;
  at: unknown;
  kind: string;
  batch_id: string | null;
  deleted_now: boolean;
}

/** The newest `limit` changes of the room, optionally only those `by` one member. */
export async function listHistory(
  executor: Executor,
  roomId: string,
  input: { by?: string | undefined; limit: number },
): Promise<HistoryEntry[]> {
  const found = await rows<VersionRow>(
    executor,
    sql`SELECT v.element_id, v.version, v.action, v.by, v.at, v.batch_id, e.kind, e.deleted AS deleted_now,
               (SELECT max(p.version) FROM element_versions p
                WHERE p.room_id = v.room_id AND p.element_id = v.element_id AND p.version < v.version) AS previous_version
        FROM element_versions v JOIN elements e ON e.room_id = v.room_id AND e.id = v.element_id
        WHERE v.room_id = ${roomId}::uuid ${input.by ? sql`AND v.by = ${input.by}::uuid` : sql.empty()}
        ORDER BY v.at DESC, v.version DESC, v.element_id
        LIMIT ${input.limit}::int`,
  );
  return found.map((r) => ({
    elementId: r.element_id,
    version: int(r.version),
    previousVersion: r.previous_version === null ? null : int(r.previous_version),
    action: r.action,
    by: r.by,
    at: date(r.at).toISOString(),
    kind: r.kind,
    batchId: r.batch_id,
    deletedNow: r.deleted_now,
  }));
}

type TeacherCheck = { decision: 'not_a_member' | 'forbidden' } | null;

async function teacherOnly(tx: Tx, clock: Clock, actor: EditActor): Promise<TeacherCheck> {
  const auth = await authorizeEdit(tx, clock, actor);
  if (!auth) return { decision: 'not_a_member' };
  if (auth.role !== 'teacher') return { decision: 'forbidden' };
  return null;
}

/**
 * Writes a kept shape back onto a locked element row as its next version, undeleting it and
 * ending any drag on it (the teacher's restore wins over a drag in progress).
 */
async function writeBack(
  tx: Tx,
  clock: Clock,
  actor: EditActor,
  current: ElementRow,
  data: unknown,
  batchId: string | null,
  caps: ElementCaps,
): Promise<{ element: Element; events: RoomEvent[] }> {
  const [written] = await rows<ElementRow>(
    tx,
    sql`UPDATE elements SET deleted = false,
                            version = version + 1, updated_by = ${actor.userId}::uuid, updated_at = ${clock.now()}, ${FREE_LOCK}
        WHERE room_id = ${actor.roomId}::uuid AND id = ${current.id}::uuid AND version = ${int(current.version)}::int8
        RETURNING ${ELEMENT_COLUMNS}`,
  );
  if (!written) throw new Error('element changed under its own row lock');
  // The kept shape becomes the new version's (written once, by recordVersion below).
  const restored = withShape(written, data);
  const element = toElement(restored);
  const events: RoomEvent[] = [];
  if (current.lock_session_id !== null) {
    events.push(await releasedEvent(tx, clock, actor.roomId, element.id, int(current.lock_generation), 'broken'));
  }
  await recordVersion(tx, clock, restored, 'restored', actor.userId, batchId);
  const kind = current.deleted ? 'element.restored' : 'element.updated';
  // Bringing a deleted element back counts against the board's cap like a create (elementCap.ts).
  events.push(
    await appendRoomEvent(tx, clock, actor.roomId, kind, { elementId: element.id, version: element.version }, { element }, undefined, caps.maxPerBoard),
  );
  return { element, events };
}

/** Teacher: the element takes the shape it had at `version` again, as a new version. */
export async function restoreElementVersion(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { elementId: string; version: number },
  caps: ElementCaps,
): Promise<ElementResult> {
  return refusedWhenFull(() => db.transaction(async (tx) => {
    const refused = await teacherOnly(tx, clock, actor);
    if (refused) return refused;
    const current = await readElementForUpdate(tx, actor.roomId, input.elementId);
    const [kept] = await rows<{ data: unknown }>(
      tx,
      sql`SELECT data FROM element_versions
          WHERE room_id = ${actor.roomId}::uuid AND element_id = ${input.elementId}::uuid AND version = ${input.version}::int8`,
    );
    if (!current || !kept) return { decision: 'not_found' as const };
    const { element, events } = await writeBack(tx, clock, actor, current, kept.data, null, caps);
    return { decision: 'applied' as const, element, events };
  }));
}

export type ClearBoardResult =
  | { decision: 'applied'; batchId: string | null; count: number; events: RoomEvent[] }
  | { decision: 'not_a_member' | 'forbidden' };

/** Teacher: deletes every live element, or every one `of` a member drew, as one restorable batch. */
export async function clearBoard(db: Db, clock: Clock, actor: EditActor, input: { of?: string | undefined }): Promise<ClearBoardResult> {
  return db.transaction(async (tx) => {
    const refused = await teacherOnly(tx, clock, actor);
    if (refused) return refused;
    const batchId = randomUUID();
    const cleared = await rows<ElementRow>(
      tx,
      sql`UPDATE elements SET deleted = true, version = version + 1, updated_by = ${actor.userId}::uuid,
                              updated_at = ${clock.now()}, ${FREE_LOCK}
          WHERE room_id = ${actor.roomId}::uuid AND NOT deleted ${input.of ? sql`AND created_by = ${input.of}::uuid` : sql.empty()}
          RETURNING ${ELEMENT_COLUMNS}`,
    );
    if (cleared.length === 0) return { decision: 'applied' as const, batchId: null, count: 0, events: [] };
    const events: RoomEvent[] = [];
    for (const row of cleared.sort((a, b) => int(a.z) - int(b.z))) {
      await recordVersion(tx, clock, row, 'deleted', actor.userId, batchId);
      events.push(await deletedEvent(tx, clock, actor.roomId, toElement(row), actor.userId));
    }
    return { decision: 'applied' as const, batchId, count: cleared.length, events };
  });
}

export type RestoreBatchResult =
  | { decision: 'applied'; count: number; events: RoomEvent[] }
  | { decision: 'not_a_member' | 'forbidden' | 'not_found' | 'board_full' };

/**
 * Teacher: undoes one clear. Each element comes back only while it is still the version the clear
 * left (deleted, unchanged since): restoring twice, or after a later restore, brings nothing twice.
 * All or nothing: a batch that would take the board past its cap brings nothing back (`board_full`).
 */
export async function restoreBatch(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { batchId: string },
  caps: ElementCaps,
): Promise<RestoreBatchResult> {
  return refusedWhenFull(() => db.transaction(async (tx) => {
    const refused = await teacherOnly(tx, clock, actor);
    if (refused) return refused;
    const batch = await rows<{ element_id: string; version: unknown; data: unknown }>(
      tx,
      sql`SELECT element_id, version, data FROM element_versions
          WHERE room_id = ${actor.roomId}::uuid AND batch_id = ${input.batchId}::uuid AND action = 'deleted'
          ORDER BY element_id`,
    );
    if (batch.length === 0) return { decision: 'not_found' as const };
    const events: RoomEvent[] = [];
    let count = 0;
    for (const entry of batch) {
      const current = await readElementForUpdate(tx, actor.roomId, entry.element_id);
      if (!current || !current.deleted || int(current.version) !== int(entry.version)) continue;
      events.push(...(await writeBack(tx, clock, actor, current, entry.data, null, caps)).events);
      count++;
    }
    return { decision: 'applied' as const, count, events };
  }));
}
