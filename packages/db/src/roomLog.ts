import { sql } from 'drizzle-orm';
import type { Element, RoomEvent, RoomEventKind } from '@wb/protocol';
import type { Clock } from './clock.ts';
import { BoardFull, liveDelta } from './elementCap.ts';
import { RightsChanged, stillHeld, type Authorized } from './editRights.ts';
import { eventId, type EventKey } from './eventIds.ts';
import { AlreadyApplied, int, rows, type Executor, type Tx } from './sql.ts';

type PayloadOf<K extends RoomEventKind> = Extract<RoomEvent, { kind: K }>['payload'];

/**
 * Bumps the room's revision and appends one event at it, inside the caller's transaction (I1).
 * The room row's lock orders concurrent writers, so revisions are gap-free per room. The event's
 * id is built from its kind and `key` (eventIds.ts), so it always agrees with the kind. An id seen
 * before rolls the whole transaction back with `AlreadyApplied`. An edit passes the rights it was
 * authorised under (`editedUnder`): the bump then matches only while they hold (I11, editRights.ts)
 * and throws `RightsChanged` otherwise.
 *
 * An event that makes an element live or deleted moves the room's live element count in the same
 * UPDATE (elementCap.ts); with `elementCap`, one that makes an element live matches only while the
 * board holds fewer than that many, and throws `BoardFull` at the cap (the caller's transaction
 * rolls back: nothing of the element is stored).
 */
export async function appendRoomEvent<K extends RoomEventKind>(
  tx: Tx,
  clock: Clock,
  roomId: string,
  kind: K,
  key: EventKey<K>,
  payload: PayloadOf<K>,
  editedUnder?: Authorized,
  elementCap?: number,
): Promise<RoomEvent> {
  const delta = liveDelta(kind);
  const capped = delta > 0 && elementCap !== undefined;
  const [bumped] = await rows<{ revision: unknown }>(
    tx,
    sql`UPDATE rooms SET revision = revision + 1${delta === 0 ? sql.empty() : sql`, live_elements = live_elements + ${delta}::int`}
        WHERE id = ${roomId}::uuid AND ${stillHeld(editedUnder)}${capped ? sql` AND live_elements < ${elementCap}::int` : sql.empty()}
        RETURNING revision`,
  );
  if (!bumped) {
    // Only a refused bump asks why: the rights changed (run again), or the board is full.
    const [room] = await rows<{ held: boolean; live_elements: unknown }>(
      tx,
      sql`SELECT ${stillHeld(editedUnder)} AS held, live_elements FROM rooms WHERE id = ${roomId}::uuid`,
    );
    if (!room) throw new Error(`room ${roomId} does not exist`);
    if (!room.held && editedUnder && editedUnder.role !== 'teacher') throw new RightsChanged(roomId);
    if (capped && int(room.live_elements) >= elementCap) throw new BoardFull(roomId, elementCap);
    throw new Error(`the revision bump of room ${roomId} matched nothing`);
  }
  const revision = int(bumped.revision);
  // An id named by its room revision must name the one it got, or it could name another event's.
  if ('roomRevision' in key && key.roomRevision !== revision) {
    throw new Error(`${kind} keyed by room revision ${String(key.roomRevision)} was appended at ${revision}`);
  }
  const id = eventId(kind, roomId, key);
  const stored = storedPayload(kind, payload);
  const inserted = await rows<{ event_id: string }>(
    tx,
    sql`INSERT INTO room_events (room_id, revision, event_id, kind, payload, at, element_id, element_version)
        VALUES (${roomId}::uuid, ${revision}::int8, ${id}, ${kind}, ${JSON.stringify(stored.payload)}::jsonb, ${clock.now()},
                ${stored.elementId}::uuid, ${stored.elementVersion}::int8)
        ON CONFLICT (event_id) DO NOTHING
        RETURNING event_id`,
  );
  if (inserted.length === 0) throw new AlreadyApplied(id);
  return { roomId, revision, eventId: id, kind, payload } as RoomEvent;
}

/** The kinds whose payload is `{ element }` with the element's full shape (docs/store.md). */
export const ELEMENT_EVENT_KINDS: readonly RoomEventKind[] = ['element.created', 'element.updated', 'element.restored'];

/**
 * What the log stores of an event: an element event's element without its shape, and a reference
 * to the version row that holds the shape (written by the same transaction, before or after).
 */
function storedPayload(kind: RoomEventKind, payload: unknown): { payload: unknown; elementId: string | null; elementVersion: number | null } {
  if (!ELEMENT_EVENT_KINDS.includes(kind)) return { payload, elementId: null, elementVersion: null };
  const { element } = payload as { element: Element };
  const { shape: _shape, ...rest } = element;
  return { payload: { ...(payload as object), element: rest }, elementId: element.id, elementVersion: element.version };
}

interface EventRow {
  room_id: string;
  revision: unknown;
  event_id: string;
  kind: RoomEventKind;
  payload: unknown;
  element_version: unknown;
  /** The referenced version's content (null when the event carries no reference, or it is gone). */
  shape: unknown;
}

/** The columns `toEvent` reads, from `room_events e` joined to its element version `v`. */
const EVENT_COLUMNS = sql`e.room_id, e.revision, e.event_id, e.kind, e.payload, e.element_version, v.data AS shape`;
const EVENT_VERSION_JOIN = sql`LEFT JOIN element_versions v
  ON v.room_id = e.room_id AND v.element_id = e.element_id AND v.version = e.element_version`;

const json = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);

/** The event as the write returned it: an element event gets its shape back from its version. Null if that version is gone. */
function toEvent(row: EventRow): RoomEvent | null {
  let payload = json(row.payload) as Record<string, unknown>;
  if (row.element_version !== null && row.element_version !== undefined) {
    if (row.shape === null || row.shape === undefined) return null;
    const { id, ...rest } = payload.element as Omit<Element, 'shape'>;
    payload = { ...payload, element: { id, shape: json(row.shape), ...rest } };
  }
  return { roomId: row.room_id, revision: int(row.revision), eventId: row.event_id, kind: row.kind, payload } as RoomEvent;
}

/**
 * The revision the room's next event will get, for an event id named by it: the room row stays
 * locked until the caller's transaction ends, so no other writer can take that revision first.
 */
export async function nextRoomRevision(tx: Tx, roomId: string): Promise<number> {
  const [room] = await rows<{ revision: unknown }>(tx, sql`SELECT revision FROM rooms WHERE id = ${roomId}::uuid FOR UPDATE`);
  if (!room) throw new Error(`room ${roomId} does not exist`);
  return int(room.revision) + 1;
}

export type EventsAfter =
  | { kind: 'replay'; events: RoomEvent[]; revision: number }
  /** The log no longer holds every event after the asked revision: send a snapshot instead. */
  | { kind: 'pruned'; revision: number }
  /** The client claims a revision the room never reached (another database, a forged value). */
  | { kind: 'ahead'; revision: number };

/**
 * The events strictly after `afterRevision`, in order, if the bounded log still holds all of
 * them and there are at most `limit`; otherwise a decision to fall back to a snapshot.
 */
export async function eventsAfter(
  executor: Executor,
  roomId: string,
  afterRevision: number,
  limit: number,
): Promise<EventsAfter> {
  const [room] = await rows<{ revision: unknown }>(
    executor,
    sql`SELECT revision FROM rooms WHERE id = ${roomId}::uuid`,
  );
  if (!room) return { kind: 'pruned', revision: 0 };
  const current = int(room.revision);
  if (afterRevision > current) return { kind: 'ahead', revision: current };
  if (current - afterRevision > limit) return { kind: 'pruned', revision: current };
  const found = (
    await rows<EventRow>(
      executor,
      sql`SELECT ${EVENT_COLUMNS} FROM room_events e ${EVENT_VERSION_JOIN}
          WHERE e.room_id = ${roomId}::uuid AND e.revision > ${afterRevision}::int8 AND e.revision <= ${current}::int8
          ORDER BY e.revision`,
    )
  ).map(toEvent);
  // Complete only when every revision in (afterRevision, current] is still in the log, each with
  // its element's shape (a version the history no longer holds: take a snapshot, never half an event).
  const events = found.filter((e): e is RoomEvent => e !== null);
  if (events.length !== current - afterRevision) return { kind: 'pruned', revision: current };
  return { kind: 'replay', events, revision: current };
}

/** Keeps the newest `keepPerRoom` events of every room (I10). Returns how many rows went. */
export async function pruneRoomLog(executor: Executor, keepPerRoom: number): Promise<number> {
  const deleted = await rows<{ n: unknown }>(
    executor,
    sql`WITH gone AS (
          DELETE FROM room_events e USING rooms r
          WHERE e.room_id = r.id AND e.revision <= r.revision - ${keepPerRoom}::int8
          RETURNING 1)
        SELECT count(*) AS n FROM gone`,
  );
  return int(deleted[0]?.n ?? 0);
}

/** One logged event by its id, or null when it was never logged or has been pruned. */
export async function findRoomEvent(executor: Executor, eventId: string): Promise<RoomEvent | null> {
  const [row] = await rows<EventRow>(
    executor,
    sql`SELECT ${EVENT_COLUMNS} FROM room_events e ${EVENT_VERSION_JOIN} WHERE e.event_id = ${eventId}`,
  );
  return row ? toEvent(row) : null;
}
