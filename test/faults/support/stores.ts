/**
 * The two stores every fault suite that can runs on: real Postgres (a school's deployment,
 * TEST_DATABASE_URL; CI fails without it) and embedded PGlite (what `pnpm start` gives a teacher).
 * A suite loops over STORES and opens its server's database with `databaseOn`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScratchDatabase, postgresSkipReason, type ServerProcessOptions } from './serverProcess.ts';

export type StoreKind = 'postgres' | 'pglite';

export interface StoreUnderTest {
  kind: StoreKind;
  /** For test names: "Postgres" or "PGlite". */
  label: string;
  /** Why this store cannot run here (Postgres without TEST_DATABASE_URL off CI), or null. */
  skip: string | null;
}

export const STORES: readonly StoreUnderTest[] = [
  { kind: 'postgres', label: 'Postgres', skip: postgresSkipReason() },
  { kind: 'pglite', label: 'PGlite', skip: null },
];

/** " (skipped: why)" for a skipped store's test name, else "". */
export const skipNote = (store: StoreUnderTest): string => (store.skip ? ` (skipped: ${store.skip})` : '');

/**
 * A fresh database of the store for one server: a scratch Postgres database, or a new PGlite
 * directory (started from the migrated template). Its removal is pushed onto `cleanups`.
 */
export async function databaseOn(
  store: StoreUnderTest,
  cleanups: (() => Promise<void> | void)[],
): Promise<Pick<ServerProcessOptions, 'databaseUrl' | 'pgliteDir'>> {
  if (store.kind === 'postgres') {
    const db = await createScratchDatabase();
    cleanups.push(db.drop);
    return { databaseUrl: db.url };
  }
  const dir = mkdtempSync(join(tmpdir(), 'wb-fault-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return { pgliteDir: join(dir, 'pglite') };
}
