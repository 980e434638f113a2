/**
 * Many element creates written together (issue 19: strokes at scale; issue 22: a class drawing on
 * its private boards). The server collects the creates of a lesson (its class board and its
 * students' boards) that arrive while its previous batch is being written; each batch is one
 * statement, a call of the database function `wb_create_batch` (migration 0017), however many
 * strokes and boards it holds. Its steps are the statements the batch's transaction ran before,
 * each with a snapshot of its own, in the same order:
 *
 *   1. authorise every (room, acting session): `authorizeEdit`'s statement for all of them, with
 *      the same rows and locks (lesson row and board row FOR KEY SHARE, membership FOR SHARE), so
 *      a revocation, a policy change or an activity's freeze racing the batch is serialised
 *      exactly as it is against a single edit (I11); in board order, so the lesson row is taken
 *      first and the boards after it by id, the order freezing an activity takes them in;
 *   2. refuse what `drawingRefusal` refuses, and a picture the lesson lacks (`image_unknown`);
 *   3. take the rooms' rows (FOR NO KEY UPDATE, as every revision bump does, by id): writers of
 *      these rooms wait here, so the next step sees every element already in them; a room whose
 *      policy or status is no longer the one step 1 read sends the batch one by one (I11,
 *      editRights.ts), and so does a batch that might take a board past its cap on elements
 *      (elementCap.ts): near the cap each create is decided on its own, in order, the last ones
 *      refused `board_full`;
 *   4. one statement inserts the elements, their first versions (the one copy of each shape) and
 *      their events (which name that version), and moves each room's revision and its live
 *      element count once, by the number of elements created in it (revisions stay gap-free and
 *      in request order per room: the i-th stroke applied to a room is at its revision + i).
 *
 * One statement is one round trip: the five of the transaction each waited for the server's event
 * loop to read the answer, the longest part of a stroke's wait on a busy server (BENCHMARKS.md,
 * "What limits each figure"). Each request gets the decision `createElement` would have given it:
 * refused by its member's rights, `already_applied` for its creator's retry, `conflict` for another
 * member reusing the id, `not_found` for a deleted element, `image_unknown` for a picture the
 * lesson lacks. An id twice in one batch is decided after the batch, one by one.
 */
import { sql } from 'drizzle-orm';
import type { ElementShape, RoomEvent } from '@wb/protocol';
import type { Clock } from './clock.ts';
import type { EditActor } from './editRights.ts';
import { toElement, type ElementRow } from './elementRows.ts';
import type { ElementCaps } from './elementCap.ts';
import { createElement, type ElementResult } from './elements.ts';
import { eventId } from './eventIds.ts';
import { int, rows, type Db } from './sql.ts';

export interface CreateRequest {
  actor: EditActor;
  id: string;
  shape: ElementShape;
}

/** The function's SQLSTATE where the transaction used to roll back and go one by one. */
const BATCH_RACED = 'WB409';

/** What `wb_create_batch` answers. */
interface BatchAnswer {
  refused: { ord: number; decision: ElementResult['decision'] }[];
  rows: (ElementRow & { ord: number; event_revision: unknown; found: boolean })[];
}

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
  const results: ElementResult[] = new Array(requests.length);
  const payload = first.map((at) => {
    const { actor, id, shape } = requests[at]!;
    return {
      ord: at,
      room_id: actor.roomId,
      session_id: actor.sessionId,
      user_id: actor.userId,
      id,
      kind: shape.kind,
      data: shape,
      event_id: eventId('element.created', actor.roomId, { elementId: id }),
    };
  });
  try {
    const [answer] = await rows<{ batch: unknown }>(
      db,
      sql`SELECT wb_create_batch(${JSON.stringify(payload)}::jsonb, ${clock.now()}, ${caps.maxPerBoard}::int8) AS batch`,
      'wb_create_batch',
    );
    const batch = (typeof answer!.batch === 'string' ? JSON.parse(answer!.batch) : answer!.batch) as BatchAnswer;
    for (const { ord, decision } of batch.refused) results[ord] = { decision } as ElementResult;
    for (const row of batch.rows) {
      const { actor } = requests[row.ord]!;
      if (row.found) {
        const element = toElement(row);
        const event = { roomId: actor.roomId, revision: int(row.event_revision), eventId: eventId('element.created', actor.roomId, { elementId: element.id }), kind: 'element.created', payload: { element } } as RoomEvent;
        results[row.ord] = { decision: 'applied', element, events: [event] };
      } else if (row.deleted) {
        // A deleted element stays deleted: a late retry of its create must not bring it back.
        results[row.ord] = { decision: 'not_found' };
      } else if (row.created_by === actor.userId) {
        results[row.ord] = { decision: 'already_applied', element: toElement(row) };
      } else {
        results[row.ord] = { decision: 'conflict' };
      }
    }
    if (first.some((at) => results[at] === undefined)) throw new Error('a create is missing from its batch answer');
  } catch (error) {
    if (sqlState(error) !== BATCH_RACED) throw error;
    for (const at of first) results[at] = await createElement(db, clock, requests[at]!.actor, requests[at]!, caps);
  }
  for (const at of later) results[at] = await createElement(db, clock, requests[at]!.actor, requests[at]!, caps);
  return results;
}

/** The SQLSTATE of a database error, through drizzle's wrapper. */
function sqlState(error: unknown): string | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}
