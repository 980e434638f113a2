/**
 * Idempotent requests: a request a client retries (same session, same requestId) gets the answer
 * it got the first time instead of being applied twice. The first application stores its result
 * in `applied_requests` inside its own transaction; the garbage collector drops rows after a while
 * (elements.ts `pruneAppliedRequests`), long past any client's retry window.
 */
import { sql } from 'drizzle-orm';
import type { Clock } from './clock.ts';
import type { EditActor } from './editRights.ts';
import { rows, type Tx } from './sql.ts';

/** The result this session's request already got, or null when it was never applied. */
export async function priorResult<T>(tx: Tx, actor: EditActor, requestId: string): Promise<T | null> {
  const [row] = await rows<{ result: unknown }>(
    tx,
    sql`SELECT result FROM applied_requests WHERE session_id = ${actor.sessionId}::uuid AND request_id = ${requestId}`,
  );
  if (!row) return null;
  return (typeof row.result === 'string' ? JSON.parse(row.result) : row.result) as T;
}

/** Records that this session's request was applied, with the answer a retry gets back. */
export async function rememberResult(tx: Tx, clock: Clock, actor: EditActor, requestId: string, result: unknown): Promise<void> {
  await tx.execute(
    sql`INSERT INTO applied_requests (session_id, request_id, room_id, result, at)
        VALUES (${actor.sessionId}::uuid, ${requestId}, ${actor.roomId}::uuid, ${JSON.stringify(result)}::jsonb, ${clock.now()})
        ON CONFLICT DO NOTHING`,
  );
}
