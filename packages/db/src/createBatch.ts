/**
 * Many element creates of one room written together (issue 19: strokes at scale). The server
 * collects the creates of a room that arrive while its previous batch is being written; each batch
 * is one transaction of a fixed number of statements, however many strokes it holds:
 *
 *   BEGIN
 *   1. authorise every acting session: the same rows and locks as `authorizeEdit` (membership FOR
 *      SHARE, room FOR KEY SHARE), so a revocation or a policy change racing the batch is
 *      serialised exactly as it is against a single edit (I11);
 *   2. take the room row (FOR NO KEY UPDATE, as every revision bump does): writers of this room
 *      wait here, so the next statement sees every element already in it; a room whose policy or
 *      status is no longer the one step 1 read sends the batch one by one (I11, editRights.ts), and
 *      so does a batch that might take the board past its cap on elements (elementCap.ts): near
 *      the cap each create is decided on its own, in order, the last ones refused `board_full`;
 *   3. one statement inserts the elements, their first versions (the one copy of each shape) and
 *      their events (which name that version), and moves the
 *      room's revision and its live element count once, by the number of elements created
 *      (revisions stay gap-free and in request order: the i-th stroke applied is at revision + i);
 *   COMMIT
 *
 * Each request gets the decision `createElement` would have given it: refused by its member's
 * rights, `already_applied` for its creator's retry, `conflict` for another member reusing the id,
 * `not_found` for a deleted element, `image_unknown` for a picture the lesson lacks (asked in one
 * more statement, only when the batch holds an image). An id twice in one batch is decided after
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

/** Creates the elements of one room's batch; the i-th result answers the i-th request. */
export async function createElements(db: Db, clock: Clock, requests: readonly CreateRequest[], caps: ElementCaps): Promise<ElementResult[]> {
  if (requests.length === 0) return [];
  const roomId = requests[0]!.actor.roomId;
  if (requests.some((r) => r.actor.roomId !== roomId)) throw new Error('a create batch holds the creates of one room');
  // An id named twice is decided after the batch: the first creates it, the later ones see it.
  const seen = new Set<string>();
  const first: number[] = [];
  const later: number[] = [];
  requests.forEach((request, at) => {
    (seen.has(request.id) ? later : first).push(at);
    seen.add(request.id);
  });
  const results: ElementResult[] = new Array(requests.length);
  try {
    const decided = await db.transaction(async (tx) => {
      const out = new Map<number, ElementResult>();
      const sessions = [...new Map(first.map((at) => [requests[at]!.actor.sessionId, requests[at]!.actor.userId])).entries()];
      const auth = await rows<{ session_id: string; role: Role; edit_policy: EditPolicy; pen_muted: boolean; status: 'open' | 'ended' }>(
        tx,
        sql`SELECT s.id AS session_id, m.role, m.pen_muted, r.edit_policy, r.status
            FROM jsonb_to_recordset(${JSON.stringify(sessions.map(([session_id, user_id]) => ({ session_id, user_id })))}::jsonb)
                 AS q(session_id uuid, user_id uuid)
            JOIN sessions s ON s.id = q.session_id AND s.user_id = q.user_id
            JOIN memberships m ON m.room_id = s.room_id AND m.user_id = s.user_id
            JOIN rooms r ON r.id = s.room_id
            WHERE s.room_id = ${roomId}::uuid AND s.status = 'open' AND s.expires_at > ${clock.now()} AND m.status = 'active'
              AND (r.status = 'open' OR (r.status = 'ended' AND m.role = 'teacher'))
            FOR KEY SHARE OF r FOR SHARE OF m`,
      );
      const rights = new Map<string, Authorized>(
        auth.map((a) => [a.session_id, { role: a.role, editPolicy: a.edit_policy, penMuted: a.pen_muted, roomStatus: a.status }]),
      );
      const writing: number[] = [];
      for (const at of first) {
        const granted = rights.get(requests[at]!.actor.sessionId);
        if (!granted) out.set(at, { decision: 'not_a_member' });
        else {
          const refused = drawingRefusal(granted);
          if (refused) out.set(at, { decision: refused });
          else writing.push(at);
        }
      }
      const unknown = await imagesNotInLesson(tx, roomId, imageHashes(writing.map((at) => requests[at]!.shape)));
      if (unknown.size > 0) {
        for (const at of writing.filter((at) => unknown.has((requests[at]!.shape as { sha256?: string }).sha256 ?? ''))) {
          out.set(at, { decision: 'image_unknown' });
          writing.splice(writing.indexOf(at), 1);
        }
      }
      if (writing.length === 0) return out;

      const [room] = await rows<{ revision: unknown; edit_policy: EditPolicy; status: string; live_elements: unknown }>(
        tx,
        sql`SELECT revision, edit_policy, status, live_elements FROM rooms WHERE id = ${roomId}::uuid FOR NO KEY UPDATE`,
      );
      if (!room) throw new Error(`room ${roomId} does not exist`);
      // Near the cap the creates are decided one by one (the last ones refused), never all together.
      if (int(room.live_elements) + writing.length > caps.maxPerBoard) throw new BatchRaced();
      // The rights read in step 1 must still be the room's as its revision moves (I11).
      const changed = writing.some((at) => {
        const granted = rights.get(requests[at]!.actor.sessionId)!;
        return granted.role !== 'teacher' && (granted.editPolicy !== room.edit_policy || granted.roomStatus !== room.status);
      });
      if (changed) throw new BatchRaced();
      const payload = writing.map((at, ord) => {
        const { actor, id, shape } = requests[at]!;
        return { ord, id, user_id: actor.userId, kind: shape.kind, data: shape, event_id: eventId('element.created', roomId, { elementId: id }) };
      });
      const now = clock.now();
      const written = await rows<ElementRow & { ord: number; event_revision: unknown; found: boolean }>(
        tx,
        sql`WITH req AS (
              SELECT * FROM jsonb_to_recordset(${JSON.stringify(payload)}::jsonb)
                AS q(ord int, id uuid, user_id uuid, kind text, data jsonb, event_id text)
            ),
            existing AS (
              SELECT ${ELEMENT_STORED_COLUMNS}, ${ELEMENT_DATA} AS data
              FROM elements WHERE room_id = ${roomId}::uuid AND id IN (SELECT id FROM req)
            ),
            fresh AS (
              SELECT req.*, ${int(room.revision)}::int8 + row_number() OVER (ORDER BY req.ord) AS revision
              FROM req WHERE req.id NOT IN (SELECT id FROM existing)
            ),
            ins AS (
              INSERT INTO elements (room_id, id, kind, version, created_by, updated_by, created_at, updated_at, z)
              SELECT ${roomId}::uuid, id, kind, 1, user_id, user_id, ${now}, ${now}, revision FROM fresh
              ON CONFLICT (room_id, id) DO NOTHING
              RETURNING ${ELEMENT_STORED_COLUMNS}
            ),
            -- The shape is written once, as the first version; the element and its event name it.
            ver AS (
              INSERT INTO element_versions (room_id, element_id, version, data, deleted, action, by, at, batch_id)
              SELECT ins.room_id, ins.id, 1, fresh.data, false, 'created', ins.created_by, ${now}, NULL
              FROM ins JOIN fresh ON fresh.id = ins.id
              ON CONFLICT DO NOTHING
            ),
            ev AS (
              INSERT INTO room_events (room_id, revision, event_id, kind, payload, at, element_id, element_version)
              SELECT ${roomId}::uuid, fresh.revision, fresh.event_id, 'element.created',
                     jsonb_build_object('element', jsonb_build_object(
                       'id', ins.id, 'version', 1, 'pinned', false,
                       'createdBy', ins.created_by, 'updatedBy', ins.updated_by, 'z', fresh.revision, 'lock', NULL)),
                     ${now}, ins.id, 1
              FROM fresh JOIN ins ON ins.id = fresh.id
              ON CONFLICT (event_id) DO NOTHING
              RETURNING event_id
            ),
            bump AS (
              UPDATE rooms SET revision = revision + (SELECT count(*) FROM ins), live_elements = live_elements + (SELECT count(*) FROM ins)
              WHERE id = ${roomId}::uuid
              RETURNING revision
            )
            SELECT ins.*, fresh.data, fresh.ord, fresh.revision AS event_revision, true AS found,
                   (SELECT count(*) FROM ev) AS events, (SELECT revision FROM bump) AS room_revision
            FROM ins JOIN fresh ON fresh.id = ins.id
            UNION ALL
            SELECT existing.*, req.ord, NULL, false, NULL, NULL
            FROM existing JOIN req ON req.id = existing.id
            ORDER BY ord`,
      );
      const created = written.filter((w) => w.found);
      const expected = int(room.revision) + created.length;
      const meta = created[0] as unknown as { events: unknown; room_revision: unknown } | undefined;
      // With the room row held, only a writer that skipped it could make these disagree: start over one by one.
      if (created.length > 0 && (int(meta!.events) !== created.length || int(meta!.room_revision) !== expected)) throw new BatchRaced();
      if (written.length !== writing.length) throw new BatchRaced();
      for (const row of written) {
        const at = writing[row.ord]!;
        const { actor } = requests[at]!;
        if (row.found) {
          const element = toElement(row);
          const event = { roomId, revision: int(row.event_revision), eventId: payload[row.ord]!.event_id, kind: 'element.created', payload: { element } } as RoomEvent;
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
