import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import type pg from 'pg';
import { expect, test } from 'vitest';
import { rows } from '../src/sql.ts';
import { openTestDatabase } from '../src/testing.ts';

const script = fileURLToPath(new URL('./workerStatements.mjs', import.meta.url));

test(
  'the embedded database keeps nothing per statement: its worker heap is flat over 20,000 statements',
  async () => {
    // A child process, because measuring live memory needs --expose-gc (a full collection first).
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', script, '20000'], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
    });
    const { statements, before, after } = JSON.parse(stdout.trim().split('\n').pop()!) as { statements: number; before: number; after: number };
    expect(statements).toBe(20_000);
    // Keeping every reply (PGlite's execProtocolRaw did) grew the live heap by 150-500 bytes a
    // statement: 3-10 MB here. Flat means well under one megabyte.
    expect(after - before).toBeLessThan(1 * 2 ** 20);
  },
  120_000,
);

test('a named statement still runs after the embedded connection is replaced (the bridge drops its prepared statements)', async () => {
  // The pool closes an idle or failed connection and opens another to the same one backend; the
  // new driver parses its named statements again, which fails while the backend still holds them.
  const { database, drop } = await openTestDatabase('pglite');
  try {
    const answer = sql`SELECT ${41}::int + 1 AS n`;
    expect(await rows(database.db, answer, 'wb_test_answer')).toEqual([{ n: 42 }]);
    const pool = (database.db as unknown as { $client: pg.Pool }).$client;
    const client = await pool.connect();
    client.release(true); // destroyed, not returned: the next statement comes on a new connection
    expect(await rows(database.db, answer, 'wb_test_answer')).toEqual([{ n: 42 }]);
    expect(pool.totalCount).toBe(1);
  } finally {
    await drop();
  }
}, 60_000);
