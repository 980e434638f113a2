import { sql } from 'drizzle-orm';
import type { RoomEvent, RoomEventKind } from '@wb/protocol';
import type { Clock } from './clock.ts';
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
 */
export async function appendRoomEvent<K extends RoomEventKind>(
  tx: Tx,
  clock: Clock,
  roomId: string,
  kind: K,
  key: EventKey<K>,
  payload: PayloadOf<K>,
  editedUnder?: Authorized,
): Promise<RoomEvent> {
  const [bumped] = await rows<{ revision: unknown }>(
    tx,
    sql`UPDATE rooms SET revision = revision + 1 WHERE id = ${roomId}::uuid AND ${stillHeld(editedUnder)} RETURNING revision`,
  );
  if (!bumped) {
    if (editedUnder && editedUnder.role !== 'teacher') throw new RightsChanged(roomId);
    throw new Error(`room ${roomId} does not exist`);
  }
  const revision = int(bumped.revision);
  // An id named by its room revision must name the one it got, or it could name another event's.
  if ('roomRevision' in key && key.roomRevision !== revision) {
    throw new Error(`${kind} keyed by room revision ${String(key.roomRevision)} was appended at ${revision}`);
  }
  const id = eventId(kind, roomId, key);
  const inserted = await rows<{ event_id: string }>(
    tx,
    sql`INSERT INTO room_events (room_id, revision, event_id, kind, payload, at)
        VALUES (${roomId}::uuid, ${revision}::int8, ${id}, ${kind}, ${JSON.stringify(payload)}::jsonb, ${clock.now()})
        ON CONFLICT (event_id) DO NOTHING
        RETURNING event_id`,
  );
  if (inserted.length === 0) throw new AlreadyApplied(id);
  return { roomId, revision, eventId: id, kind, payload } as RoomEvent;
}

interface EventRow {
  room_id: string;
  revision: unknown;
  event_id: string;
  kind: RoomEventKind;
  payload: unknown;
}

function toEvent(row: EventRow): RoomEvent {
  return {
    roomId: row.room_id,
    revision: int(row.revision),
    eventId: row.event_id,
    kind: row.kind,
    payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload,
  } as RoomEvent;
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
  const events = (
    await rows<EventRow>(
      executor,
      sql`SELECT room_id, revision, event_id, kind, payload FROM room_events
          WHERE room_id = ${roomId}::uuid AND revision > ${afterRevision}::int8 AND revision <= ${current}::int8
          ORDER BY revision`,
    )
  ).map(toEvent);
  // Complete only when every revision in (afterRevision, current] is still in the log.
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
    sql`SELECT room_id, revision, event_id, kind, payload FROM room_events WHERE event_id = ${eventId}`,
  );
  return row ? toEvent(row) : null;
}
