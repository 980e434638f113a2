import type { ExtractTablesWithRelations, SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
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
 *
 * `prepareAs` names the statement: each connection parses and plans it once and then only binds
 * and runs it (the server keeps a plan per connection, generic after a few runs). For the hot
 * statements of the realtime path, whose text never changes (every variable part a parameter):
 * on the embedded database, planning the create batch's statements took about 60 % of its time
 * (bench/HISTORY.md, 2026-12-02). One name, one text: node-postgres refuses a name reused with
 * another text on the same connection.
 */
export async function rows<T>(executor: Executor, query: SQL, prepareAs?: string): Promise<T[]> {
  if (prepareAs === undefined) {
    const result = (await executor.execute(query)) as unknown as { rows: T[] };
    return result.rows;
  }
  const prepared = executor._.session.prepareQuery(dialect.sqlToQuery(query), undefined, prepareAs, false);
  const result = (await prepared.execute()) as unknown as { rows: T[] };
  return result.rows;
}

/** Turns drizzle's `sql` into text and parameters for a named statement (no casing rules are used). */
const dialect = new PgDialect();

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
