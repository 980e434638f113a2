/**
 * Migration 0016 (the cap on elements per board, docs/store.md "The element cap") on a database
 * that already holds boards: each database is first migrated up to 0015, given three rooms with
 * live and deleted elements (one empty), then migrated to the end. Every room's
 * live element count starts from its real count, so the cap holds from the first create after it.
 * On PGlite and on real Postgres.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { migrationsFolder } from '../src/database.ts';
import { int, rows, type Executor } from '../src/sql.ts';
import { ScratchDatabase } from '../src/testing.ts';
import { CLOCK_START, storeDatabaseKinds } from './fixtures.ts';

const BEFORE = '0015_elements_stored_once';

function migrationsUpTo(lastTag: string): { folder: string; remove(): void } {
  const folder = mkdtempSync(join(tmpdir(), 'wb-migrations-'));
  const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta/_journal.json'), 'utf8')) as { entries: { tag: string }[] };
  const last = journal.entries.findIndex((e) => e.tag === lastTag);
  if (last < 0) throw new Error(`no migration ${lastTag}`);
  const entries = journal.entries.slice(0, last + 1);
  mkdirSync(join(folder, 'meta'));
  writeFileSync(join(folder, 'meta/_journal.json'), JSON.stringify({ ...journal, entries }));
  for (const { tag } of entries) copyFileSync(join(migrationsFolder, `${tag}.sql`), join(folder, `${tag}.sql`));
  return { folder, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

/** A room with 3 live and 2 deleted elements, one with 1 live, and an empty one. */
async function boardsBefore(executor: Executor) {
  const [lesson, board, empty, by] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const at = CLOCK_START.toISOString();
  await executor.execute(sql`INSERT INTO rooms (id, code, title) VALUES (${lesson}::uuid, ${`L${lesson.slice(0, 8)}`}, 'Lesson'),
    (${board}::uuid, ${`B${board.slice(0, 8)}`}, 'Other'), (${empty}::uuid, ${`E${empty.slice(0, 8)}`}, 'Empty')`);
  const elements: Array<[string, boolean]> = [
    [lesson, false],
    [lesson, false],
    [lesson, true],
    [lesson, false],
    [lesson, true],
    [board, false],
  ];
  for (const [i, [roomId, deleted]] of elements.entries()) {
    await executor.execute(
      sql`INSERT INTO elements (room_id, id, kind, version, deleted, created_by, updated_by, created_at, updated_at, z)
          VALUES (${roomId}::uuid, ${randomUUID()}::uuid, 'rect', 1, ${deleted}, ${by}::uuid, ${by}::uuid, ${at}, ${at}, ${i + 1}::int8)`,
    );
  }
  return { lesson, board, empty };
}

async function liveCounts(executor: Executor, ids: string[]): Promise<number[]> {
  const found = await rows<{ id: string; live_elements: unknown }>(executor, sql`SELECT id, live_elements FROM rooms`);
  return ids.map((id) => int(found.find((r) => r.id === id)!.live_elements));
}

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`migration 0016 on ${kind}${skip ? ` (${skip})` : ''}`, () => {
    test('every board\'s live element count starts from its real count (deleted ones not counted)', async () => {
      const upTo = migrationsUpTo(BEFORE);
      try {
        if (kind === 'pglite') {
          const engine = new PGlite();
          const db = drizzlePglite(engine);
          await migratePglite(db, { migrationsFolder: upTo.folder });
          const rooms = await boardsBefore(db as unknown as Executor);
          await migratePglite(db, { migrationsFolder });
          expect(await liveCounts(db as unknown as Executor, [rooms.lesson, rooms.board, rooms.empty])).toEqual([3, 1, 0]);
          await engine.close();
        } else {
          const scratch = new ScratchDatabase(process.env.TEST_DATABASE_URL!);
          await scratch.create();
          const pool = new pg.Pool({ connectionString: scratch.url(), max: 1 });
          try {
            const db = drizzleNodePg(pool);
            await migrateNodePg(db, { migrationsFolder: upTo.folder });
            const rooms = await boardsBefore(db as unknown as Executor);
            await migrateNodePg(db, { migrationsFolder });
            expect(await liveCounts(db as unknown as Executor, [rooms.lesson, rooms.board, rooms.empty])).toEqual([3, 1, 0]);
          } finally {
            await pool.end();
            await scratch.drop();
          }
        }
      } finally {
        upTo.remove();
      }
    }, 120_000);
  });
}
