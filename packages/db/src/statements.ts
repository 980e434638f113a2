import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';

/**
 * Statements sent to the database, counted by the store operation that sent them, so `/metrics`
 * can tell what the database spends its round trips on (per stroke, per renewal tick, per
 * handshake, per sweep). Every statement counts, BEGIN and COMMIT included: each is one round
 * trip, and on the embedded database one turn of its single connection.
 *
 * The operation is carried by an AsyncLocalStorage scope the store opens around each of its
 * operations (`inOperation`); the count is taken where node-postgres sends the statement.
 */
const currentOperation = new AsyncLocalStorage<string>();

/** Statements outside any store operation (migrations, health pings of the raw pool). */
export const UNSCOPED_OPERATION = 'other';

export class StatementCounter {
  private readonly counts = new Map<string, number>();

  /** Statements sent so far, by store operation name. */
  snapshot(): ReadonlyMap<string, number> {
    return this.counts;
  }

  note(): void {
    const operation = currentOperation.getStore() ?? UNSCOPED_OPERATION;
    this.counts.set(operation, (this.counts.get(operation) ?? 0) + 1);
  }
}

/** Runs `fn` with its statements counted under `operation`. */
export function inOperation<T>(operation: string, fn: () => T): T {
  return currentOperation.run(operation, fn);
}

/** Counts every statement of every client the pool opens (the pool's own `query` uses them too). */
export function countStatements(pool: pg.Pool, counter: StatementCounter): void {
  pool.on('connect', (client) => {
    const send = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      counter.note();
      return send(...args);
    };
  });
}
