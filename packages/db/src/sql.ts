import type { ExtractTablesWithRelations, SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type * as schema from './schema.ts';

/** A drizzle database over either driver (PGlite or node-postgres). */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = PgTransaction<PgQueryResultHKT, typeof schema, ExtractTablesWithRelations<typeof schema>>;
/** Anything a statement can run on: the database or an open transaction. */
export type Executor = Db | Tx;

/**
 * Runs one raw statement and returns its rows. Both drivers answer with `{ rows }`; this is the
 * one place that relies on it.
 */
export async function rows<T>(executor: Executor, query: SQL): Promise<T[]> {
  const result = (await executor.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

/** int8 columns arrive as strings from node-postgres and numbers from PGlite. */
export function int(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`expected a safe integer, got ${String(value)}`);
  return n;
}

export function date(value: unknown): Date {
  return value instanceof Date ? value : new Date(String(value));
}

/** Thrown inside a transaction to roll it back when its event id was already applied (I1). */
export class AlreadyApplied extends Error {
  constructor(readonly eventId: string) {
    super(`event ${eventId} was already applied`);
  }
}
