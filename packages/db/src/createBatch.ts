/**
 * Many element creates written together (issue 19: strokes at scale; issue 22: a class drawing on
 * its private boards). The server collects the creates of a lesson (its class board and its
 * students' boards) that arrive while its previous batch is being written; each batch is one
 * transaction of a fixed number of statements, however many strokes and boards it holds:
 *
 *   BEGIN
 *   1. authorise every (room, acting session): `authorizeEdit`'s statement for all of them, with
 *      the same rows and locks (lesson row and board row FOR KEY SHARE, membership FOR SHARE), so
 *      a revocation, a policy change or an activity's freeze racing the batch is serialised
 *      exactly as it is against a single edit (I11); in board order, so the lesson row is taken
 *      first and the boards after it by id, the order freezing an activity takes them in;
 *   2. take the rooms' rows (FOR NO KEY UPDATE, as every revision bump does, by id): writers of
 *      these rooms wait here, so the next statement sees every element already in them; a room
 *      whose policy or status is no longer the one step 1 read sends the batch one by one (I11,
 *      editRights.ts), and so does a batch that might take a board past its cap on elements
 *      (elementCap.ts): near the cap each create is decided on its own, in order, the last ones
 *      refused `board_full`;
 *   3. one statement inserts the elements, their first versions (the one copy of each shape) and
 *      their events (which name that version), and moves each room's revision and its live
 *      element count once, by the number of elements created in it (revisions stay gap-free and
 *      in request order per room: the i-th stroke applied to a room is at its revision + i);
 *   COMMIT
 *
 * Each request gets the decision `createElement` would have given it: refused by its member's
 * rights, `already_applied` for its creator's retry, `conflict` for another member reusing the id,
 * `not_found` for a deleted element, `image_unknown` for a picture the lesson lacks (asked in one
 * more statement per room, only when the batch holds an image). An id twice in one batch is decided after
 * the batch, one by one.
 */
import { sql } from 'drizzle-orm';
import type { ElementShape, EditPolicy, RoomEvent, Role } from '@wb/protocol';
import type { Clock } from './clock.ts';
import { drawingRefusal, type Authorized, type EditActor } from './editRights.ts';
import { ELEMENT_DATA, ELEMENT_STORED_COLUMNS, toElement, type ElementRow } from './elementRows.ts';
import { imageHashes, imagesNotInLesson, type ElementCaps } from './elementCap.ts';
import { createElement, type ElementResult } from './elements.ts';
import { eventId } from './eventIds.ts';
import { int, rows, type Db } from './sql.ts';

export interface CreateRequest {
  actor: EditActor;
  id: string;
  shape: ElementShape;
}

/** Thrown inside the batch's transaction when its write did not match what it read, or near the cap: rolled back, then one by one. */
class BatchRaced extends Error {}

/** Creates the elements of one batch (one room, or several boards of a lesson); the i-th result answers the i-th request. */
export async function createElements(db: Db, clock: Clock, requests: readonly CreateRequest[], caps: ElementCaps): Promise<ElementResult[]> {
  if (requests.length === 0) return [];
  // An id named twice is decided after the batch: the first creates it, the later ones see it.
  const seen = new Set<string>();
  const first: number[] = [];
  const later: number[] = [];
  requests.forEach((request, at) => {
    (seen.has(request.id) ? later : first).push(at);
    seen.add(request.id);
  });
  const rightsKey = (actor: EditActor) => `${actor.roomId}/${actor.sessionId}`;
  const results: ElementResult[] = new Array(requests.length);
  try {
    const decided = await db.transaction(async (tx) => {
      const out = new Map<number, ElementResult>();
      const asked = [...new Map(first.map((at) => {
        const { roomId, sessionId, userId } = requests[at]!.actor;
        return [rightsKey(requests[at]!.actor), { room_id: roomId, session_id: sessionId, user_id: userId }];
      })).values()];
      // authorizeEdit's statement for every (room, session) of the batch. In board order, so the
      // lesson row is locked first and the boards after it by id, as freezing an activity does.
      const auth = await rows<{ room_id: string; session_id: string; role: Role; edit_policy: EditPolicy; pen_muted: boolean; status: 'open' | 'ended' }>(
        tx,
        sql`SELECT b.id AS room_id, s.id AS session_id, m.role, m.pen_muted, b.edit_policy, b.status
            FROM jsonb_to_recordset(${JSON.stringify(asked)}::jsonb) AS q(room_id uuid, session_id uuid, user_id uuid)
            JOIN rooms b ON b.id = q.room_id
            JOIN rooms r ON r.id = coalesce(b.parent_id, b.id)
            JOIN sessions s ON s.id = q.session_id AND s.user_id = q.user_id AND s.room_id = r.id
            JOIN memberships m ON m.room_id = s.room_id AND m.user_id = s.user_id
            WHERE s.status = 'open' AND s.expires_at > ${clock.now()} AND m.status = 'active'
              AND (r.status = 'open' OR (r.status = 'ended' AND m.role = 'teacher'))
              AND (b.parent_id IS NULL OR m.role = 'teacher' OR b.owner_user_id = s.user_id)
            ORDER BY b.id
            FOR KEY SHARE OF r, b FOR SHARE OF m`,
        'wb_create_batch_rights',
      );
      const rights = new Map<string, Authorized>(
        auth.map((a) => [`${a.room_id}/${a.session_id}`, { role: a.role, editPolicy: a.edit_policy, penMuted: a.pen_muted, roomStatus: a.status }]),
      );
      let writing: number[] = [];
      for (const at of first) {
        const granted = rights.get(rightsKey(requests[at]!.actor));
        if (!granted) out.set(at, { decision: 'not_a_member' });
        else {
          const refused = drawingRefusal(granted);
          if (refused) out.set(at, { decision: refused });
          else writing.push(at);
        }
      }
      // Pictures are asked about per board (its lesson's pictures), only when the batch holds one.
      for (const roomId of new Set(writing.map((at) => requests[at]!.actor.roomId))) {
        const ofRoom = writing.filter((at) => requests[at]!.actor.roomId === roomId);
        const unknown = await imagesNotInLesson(tx, roomId, imageHashes(ofRoom.map((at) => requests[at]!.shape)));
        for (const at of ofRoom.filter((at) => unknown.has((requests[at]!.shape as { sha256?: string }).sha256 ?? ''))) out.set(at, { decision: 'image_unknown' });
      }
      writing = writing.filter((at) => !out.has(at));
      if (writing.length === 0) return out;

      const roomIds = [...new Set(writing.map((at) => requests[at]!.actor.roomId))].sort();
      const locked = await rows<{ id: string; revision: unknown; edit_policy: EditPolicy; status: string; live_elements: unknown }>(
        tx,
        sql`SELECT id, revision, edit_policy, status, live_elements FROM rooms
            WHERE id = ANY(${`{${roomIds.join(',')}}`}::uuid[]) ORDER BY id FOR NO KEY UPDATE`,
        'wb_create_batch_rooms',
      );
      const roomOf = new Map(locked.map((room) => [room.id, room]));
      for (const roomId of roomIds) {
        const room = roomOf.get(roomId);
        if (!room) throw new Error(`room ${roomId} does not exist`);
        // Near the cap the creates are decided one by one (the last ones refused), never all together.
        if (int(room.live_elements) + writing.filter((at) => requests[at]!.actor.roomId === roomId).length > caps.maxPerBoard) throw new BatchRaced();
      }
      // The rights read in step 1 must still be each room's as its revision moves (I11).
      const changed = writing.some((at) => {
        const { actor } = requests[at]!;
        const granted = rights.get(rightsKey(actor))!;
        const room = roomOf.get(actor.roomId)!;
        return granted.role !== 'teacher' && (granted.editPolicy !== room.edit_policy || granted.roomStatus !== room.status);
      });
      if (changed) throw new BatchRaced();
      const payload = writing.map((at, ord) => {
        const { actor, id, shape } = requests[at]!;
        return {
          ord,
          room_id: actor.roomId,
          base: int(roomOf.get(actor.roomId)!.revision),
          id,
          user_id: actor.userId,
          kind: shape.kind,
          data: shape,
          event_id: eventId('element.created', actor.roomId, { elementId: id }),
        };
      });
      const now = clock.now();
      const written = await rows<ElementRow & { ord: number; event_revision: unknown; found: boolean }>(
        tx,
        sql`WITH req AS (
              SELECT * FROM jsonb_to_recordset(${JSON.stringify(payload)}::jsonb)
                AS q(ord int, room_id uuid, base int8, id uuid, user_id uuid, kind text, data jsonb, event_id text)
            ),
            existing AS (
              SELECT ${ELEMENT_STORED_COLUMNS}, ${ELEMENT_DATA} AS data
              FROM elements WHERE (room_id, id) IN (SELECT room_id, id FROM req)
            ),
            fresh AS (
              SELECT req.*, req.base + row_number() OVER (PARTITION BY req.room_id ORDER BY req.ord) AS revision
              FROM req WHERE (req.room_id, req.id) NOT IN (SELECT room_id, id FROM existing)
            ),
            ins AS (
              INSERT INTO elements (room_id, id, kind, version, created_by, updated_by, created_at, updated_at, z)
              SELECT room_id, id, kind, 1, user_id, user_id, ${now}, ${now}, revision FROM fresh
              ON CONFLICT (room_id, id) DO NOTHING
              RETURNING ${ELEMENT_STORED_COLUMNS}
            ),
            -- The shape is written once, as the first version; the element and its event name it.
            ver AS (
              INSERT INTO element_versions (room_id, element_id, version, data, deleted, action, by, at, batch_id)
              SELECT ins.room_id, ins.id, 1, fresh.data, false, 'created', ins.created_by, ${now}, NULL
              FROM ins JOIN fresh ON fresh.room_id = ins.room_id AND fresh.id = ins.id
              ON CONFLICT DO NOTHING
            ),
            ev AS (
              INSERT INTO room_events (room_id, revision, event_id, kind, payload, at, element_id, element_version)
              SELECT fresh.room_id, fresh.revision, fresh.event_id, 'element.created',
                     jsonb_build_object('element', jsonb_build_object(
                       'id', ins.id, 'version', 1, 'pinned', false,
                       'createdBy', ins.created_by, 'updatedBy', ins.updated_by, 'z', fresh.revision, 'lock', NULL)),
                     ${now}, ins.id, 1
              FROM fresh JOIN ins ON ins.room_id = fresh.room_id AND ins.id = fresh.id
              ON CONFLICT (event_id) DO NOTHING
              RETURNING event_id
            ),
            counts AS (SELECT room_id, count(*) AS n FROM ins GROUP BY room_id),
            bump AS (
              UPDATE rooms SET revision = rooms.revision + counts.n, live_elements = rooms.live_elements + counts.n
              FROM counts WHERE rooms.id = counts.room_id
              RETURNING rooms.id, rooms.revision
            )
            SELECT ins.*, fresh.data, fresh.ord, fresh.revision AS event_revision, true AS found,
                   (SELECT count(*) FROM ev) AS events, (SELECT jsonb_object_agg(id, revision) FROM bump) AS room_revisions
            FROM ins JOIN fresh ON fresh.room_id = ins.room_id AND fresh.id = ins.id
            UNION ALL
            SELECT existing.*, req.ord, NULL, false, NULL, NULL
            FROM existing JOIN req ON req.room_id = existing.room_id AND req.id = existing.id
            ORDER BY ord`,
        'wb_create_batch_write',
      );
      const created = written.filter((w) => w.found);
      const meta = created[0] as unknown as { events: unknown; room_revisions: unknown } | undefined;
      if (created.length > 0) {
        const moved = (typeof meta!.room_revisions === 'string' ? JSON.parse(meta!.room_revisions) : meta!.room_revisions) as Record<string, unknown>;
        // With the room rows held, only a writer that skipped them could make these disagree: start over one by one.
        if (int(meta!.events) !== created.length) throw new BatchRaced();
        for (const room of locked) {
          const inRoom = created.filter((w) => w.room_id === room.id).length;
          if (inRoom > 0 && int(moved[room.id]) !== int(room.revision) + inRoom) throw new BatchRaced();
        }
      }
      if (written.length !== writing.length) throw new BatchRaced();
      for (const row of written) {
        const at = writing[row.ord]!;
        const { actor } = requests[at]!;
        if (row.found) {
          const element = toElement(row);
          const event = { roomId: actor.roomId, revision: int(row.event_revision), eventId: payload[row.ord]!.event_id, kind: 'element.created', payload: { element } } as RoomEvent;
          out.set(at, { decision: 'applied', element, events: [event] });
        } else if (row.deleted) {
          // A deleted element stays deleted: a late retry of its create must not bring it back.
          out.set(at, { decision: 'not_found' });
        } else if (row.created_by === actor.userId) {
          out.set(at, { decision: 'already_applied', element: toElement(row) });
        } else {
          out.set(at, { decision: 'conflict' });
        }
      }
      return out;
    });
    for (const [at, result] of decided) results[at] = result;
  } catch (error) {
    if (!(error instanceof BatchRaced)) throw error;
    for (const at of first) results[at] = await createElement(db, clock, requests[at]!.actor, requests[at]!, caps);
  }
  for (const at of later) results[at] = await createElement(db, clock, requests[at]!.actor, requests[at]!, caps);
  return results;
}
