/**
 * Every accepted version of an element, written in the transaction of the change that made it:
 * the teacher's history panel and restore read it (history.ts). Since migration 0015 it is also
 * the one copy of each version's shape: an element reads its current version's, an element event
 * the version it names (docs/store.md, "One copy of an element's content"). Bounded per room
 * (I10): the sweeper keeps the newest `keepPerRoom` versions of each room, and every version that
 * is still an element's current one or is named by an event still in the log.
 */
import { sql } from 'drizzle-orm';
import type { ElementShape, HistoryAction } from '@wb/protocol';
import type { Clock } from './clock.ts';
import { shapeOf, type ElementRow } from './elementRows.ts';
import { int, rows, type Executor, type Tx } from './sql.ts';

/** What a shape change was: a move when only the position changed, else a restyle. */
export function shapeChangeAction(before: unknown, after: ElementShape): 'moved' | 'restyled' {
  const { x: _bx, y: _by, ...restBefore } = shapeOf(before) as ElementShape & Record<string, unknown>;
  const { x: _ax, y: _ay, ...restAfter } = after as ElementShape & Record<string, unknown>;
  return canonical(restBefore) === canonical(restAfter) ? 'moved' : 'restyled';
}

/** JSON with keys sorted: jsonb hands keys back in its own order, not the order they were sent in. */
function canonical(value: Record<string, unknown>): string {
  return JSON.stringify(Object.keys(value).sort().map((key) => [key, value[key]]));
}

/** Records the version `row` now holds. */
export async function recordVersion(
  tx: Tx,
  clock: Clock,
  row: ElementRow,
  action: HistoryAction,
  by: string,
  batchId: string | null = null,
): Promise<void> {
  await tx.execute(
    sql`INSERT INTO element_versions (room_id, element_id, version, data, deleted, action, by, at, batch_id)
        VALUES (${row.room_id}::uuid, ${row.id}::uuid, ${int(row.version)}::int8, ${JSON.stringify(shapeOf(row.data))}::jsonb,
                ${row.deleted}, ${action}, ${by}::uuid, ${clock.now()}, ${batchId}::uuid)
        ON CONFLICT DO NOTHING`,
  );
}

/**
 * Keeps the newest `keepPerRoom` versions of every room (I10), and any older one still read: the
 * current version of its element, or one an event in the log names (each an index probe: the
 * elements' primary key, `room_events_element_version`). Returns how many rows went.
 */
export async function pruneElementVersions(executor: Executor, keepPerRoom: number): Promise<number> {
  const deleted = await rows<{ n: unknown }>(
    executor,
    // The candidates are computed once (MATERIALIZED): inlined, the window was rescanned for each
    // row the planner expected to be few (50 s for 500 rows of 3,000 on PGlite).
    sql`WITH candidates AS MATERIALIZED (
          SELECT r.room_id, r.element_id, r.version
          FROM (SELECT room_id, element_id, version,
                       row_number() OVER (PARTITION BY room_id ORDER BY at DESC, version DESC) AS nth
                FROM element_versions) r
          WHERE r.nth > ${keepPerRoom}::int8
            AND NOT EXISTS (SELECT 1 FROM elements c WHERE c.room_id = r.room_id AND c.id = r.element_id AND c.version = r.version)
            AND NOT EXISTS (SELECT 1 FROM room_events e
                            WHERE e.room_id = r.room_id AND e.element_id = r.element_id AND e.element_version = r.version)),
        gone AS (
          DELETE FROM element_versions v USING candidates c
          WHERE v.room_id = c.room_id AND v.element_id = c.element_id AND v.version = c.version
          RETURNING 1)
        SELECT count(*) AS n FROM gone`,
  );
  return int(deleted[0]?.n ?? 0);
}
