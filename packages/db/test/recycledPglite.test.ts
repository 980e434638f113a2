import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rows } from '../src/sql.ts';
import { openTestDatabase } from '../src/testing.ts';

/**
 * openTestDatabase('pglite') hands a file an engine another file of the same process used before
 * (database.ts, openRecycledPglite): what the file gets must be indistinguishable from a fresh
 * start, an empty migrated database with no session state left behind.
 */
describe('a recycled in-memory PGlite is an empty, migrated database', () => {
  const count = async (db: Awaited<ReturnType<typeof openTestDatabase>>, table: string) =>
    (await rows<{ n: number }>(db.database.db, sql.raw(`SELECT count(*)::int AS n FROM ${table}`)))[0]!.n;

  it('rows, sequences and session settings of the previous user are gone', async () => {
    const first = await openTestDatabase('pglite');
    await first.database.db.execute(sql`INSERT INTO rooms (id, code, title) VALUES (gen_random_uuid(), 'RCYCLE', 'left behind')`);
    await first.database.db.execute(
      sql`INSERT INTO retention_purges (scope, room_id, reason, attendance_rows, rows) VALUES ('room', gen_random_uuid(), 'test', 0, 0)`,
    );
    // The purge's switch around attendance's append-only guard, set for the session.
    await first.database.db.execute(sql`SET wb.retention_purge = 'on'`);
    await first.database.db.execute(sql`BEGIN`);
    await first.database.db.execute(sql`INSERT INTO rooms (id, code, title) VALUES (gen_random_uuid(), 'OPENTX', 'never committed')`);
    await first.drop();

    const second = await openTestDatabase('pglite');
    try {
      expect(await count(second, 'rooms')).toBe(0);
      expect(await count(second, 'retention_purges')).toBe(0);
      const setting = await rows<{ value: string | null }>(second.database.db, sql`SELECT current_setting('wb.retention_purge', true) AS value`);
      expect(setting[0]!.value ?? '').toBe('');
      // The append-only audit's guard still holds, and its identity starts again at 1.
      await expect(second.database.db.execute(sql`TRUNCATE retention_purges`)).rejects.toThrow();
      const inserted = await rows<{ id: string }>(
        second.database.db,
        sql`INSERT INTO retention_purges (scope, room_id, reason, attendance_rows, rows) VALUES ('room', gen_random_uuid(), 'test', 0, 0) RETURNING id::text`,
      );
      expect(inserted[0]!.id).toBe('1');
    } finally {
      await second.drop();
    }
  });

  it('a database whose schema was changed is never handed out again', async () => {
    const first = await openTestDatabase('pglite');
    await first.database.db.execute(sql`CREATE TABLE recycled_extra (id int)`);
    await first.database.db.execute(sql`ALTER TABLE attendance DISABLE TRIGGER USER`);
    await first.drop();

    const second = await openTestDatabase('pglite');
    try {
      const extra = await rows<{ n: number }>(second.database.db, sql`SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'recycled_extra'`);
      expect(extra[0]!.n).toBe(0);
      const disabled = await rows<{ n: number }>(
        second.database.db,
        sql`SELECT count(*)::int AS n FROM pg_trigger WHERE tgrelid = 'attendance'::regclass AND tgenabled = 'D'`,
      );
      expect(disabled[0]!.n).toBe(0);
    } finally {
      await second.drop();
    }
  });
});
