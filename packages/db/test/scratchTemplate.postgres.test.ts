/**
 * openTestDatabase's Postgres databases are copies of a migrated template (testing.ts): a copy
 * must be a faithful, empty, migrated database, and no two copies may share rows.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationsFolder } from '../src/database.ts';
import { rows } from '../src/sql.ts';
import { createStore } from '../src/store.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { FrozenClock } from '../src/clock.ts';
import { CLOCK_START, seatStudent } from './fixtures.ts';
import { testDatabaseUrl } from './postgresHarness.ts';

const target = testDatabaseUrl();
const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta/_journal.json'), 'utf8')) as { entries: unknown[] };

if ('skip' in target) {
  describe(`scratch databases from the migrated template (real Postgres): ${target.skip}`, () => {
    it.skip('runs when TEST_DATABASE_URL points at a Postgres server', () => {});
  });
} else {
  describe('scratch databases from the migrated template (real Postgres)', () => {
    const opened: TestDatabase[] = [];
    afterAll(async () => {
      for (const t of opened) await t.drop().catch(() => {});
    });
    const open = async () => {
      const t = await openTestDatabase('postgres');
      opened.push(t);
      return t;
    };
    const count = async (t: TestDatabase, query: ReturnType<typeof sql>) => (await rows<{ n: number }>(t.database.db, query))[0]!.n;

    it('a copy has every migration applied, no rows, and commits without waiting for the disk', async () => {
      const first = await open();
      expect(await count(first, sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`)).toBe(journal.entries.length);
      expect(await count(first, sql`SELECT count(*)::int AS n FROM rooms`)).toBe(0);
      expect(await count(first, sql`SELECT count(*)::int AS n FROM memberships`)).toBe(0);
      const setting = await rows<{ v: string }>(first.database.db, sql`SELECT current_setting('synchronous_commit') AS v`);
      expect(setting[0]!.v).toBe('off');
    });

    it('copies share no rows, and the template itself is left empty and unconnected', async () => {
      const a = await open();
      const b = await open();
      await seatStudent(createStore(a.database, new FrozenClock(CLOCK_START)));
      expect(await count(a, sql`SELECT count(*)::int AS n FROM rooms`)).toBe(1);
      expect(await count(b, sql`SELECT count(*)::int AS n FROM rooms`)).toBe(0);
      const c = await open();
      expect(await count(c, sql`SELECT count(*)::int AS n FROM rooms`)).toBe(0);

      const admin = new pg.Client({ connectionString: target.url });
      await admin.connect();
      try {
        const templates = await admin.query<{ datname: string; connected: number }>(
          `SELECT d.datname, (SELECT count(*)::int FROM pg_stat_activity a WHERE a.datname = d.datname) AS connected
             FROM pg_database d WHERE d.datname LIKE 'wb\\_template\\_%' AND d.datname NOT LIKE '%\\_building\\_%'`,
        );
        expect(templates.rows.length).toBeGreaterThan(0);
        expect(templates.rows.every((t) => t.connected === 0)).toBe(true);
      } finally {
        await admin.end();
      }
    });
  });
}
