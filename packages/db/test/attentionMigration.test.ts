/**
 * Migration 0009 (the attention kit's lesson settings, issue 21) on a database that already holds
 * lessons: each database is first migrated up to 0008 only and given a lesson the way that schema
 * stored it, then opened by the product (`openDatabase`), which applies 0009 onward. Documented
 * outcome (docs/store.md P1, docs/protocol.md "LessonSettings"): a lesson made before 0009 keeps showing
 * students everyone's cursor (`everyone`) and keeps the laser the teacher's (`laserAllowed`
 * false); a lesson made after it shows students only the teacher's cursor (`teacher`).
 * On PGlite (a data directory, as the laptop server keeps it) and on real Postgres.
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
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import { migrationsFolder, openDatabase, type Database } from '../src/database.ts';
import { createStore, type Store } from '../src/store.ts';
import { ScratchDatabase } from '../src/testing.ts';
import { CLOCK_START, newRoom, storeDatabaseKinds } from './fixtures.ts';

/** The last migration before the attention settings. */
const BEFORE = '0008_retention';

interface Journal {
  entries: { tag: string }[];
}

/** A migrations folder holding the product's migrations up to and including `lastTag`. */
function migrationsUpTo(lastTag: string): { folder: string; remove(): void } {
  const folder = mkdtempSync(join(tmpdir(), 'wb-migrations-'));
  const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta/_journal.json'), 'utf8')) as Journal;
  const last = journal.entries.findIndex((e) => e.tag === lastTag);
  if (last < 0) throw new Error(`no migration ${lastTag}`);
  const entries = journal.entries.slice(0, last + 1);
  mkdirSync(join(folder, 'meta'));
  writeFileSync(join(folder, 'meta/_journal.json'), JSON.stringify({ ...journal, entries }));
  for (const { tag } of entries) copyFileSync(join(migrationsFolder, `${tag}.sql`), join(folder, `${tag}.sql`));
  return { folder, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

/** A lesson as the 0008 schema stored it: every column it had then left to its default. */
const OLD_LESSON = (id: string) => sql`INSERT INTO rooms (id, code, title) VALUES (${id}::uuid, ${`OLD${id.slice(0, 5)}`}, 'Before the attention kit')`;

/** Migrates a fresh database to 0008, stores an old lesson in it, and opens it with the product. */
async function databaseWithOldLesson(kind: 'pglite' | 'postgres', oldLessonId: string): Promise<{ database: Database; cleanUp(): Promise<void> }> {
  const upTo = migrationsUpTo(BEFORE);
  try {
    if (kind === 'pglite') {
      const dataDir = mkdtempSync(join(tmpdir(), 'wb-pglite-0009-'));
      const old = new PGlite(dataDir);
      const oldDb = drizzlePglite(old);
      await migratePglite(oldDb, { migrationsFolder: upTo.folder });
      await oldDb.execute(OLD_LESSON(oldLessonId));
      await old.close();
      const database = await openDatabase({ kind: 'pglite', dataDir });
      return {
        database,
        cleanUp: async () => {
          await database.close();
          rmSync(dataDir, { recursive: true, force: true });
        },
      };
    }
    const adminUrl = process.env.TEST_DATABASE_URL;
    if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
    const scratch = new ScratchDatabase(adminUrl);
    await scratch.create();
    const old = new pg.Client({ connectionString: scratch.url() });
    await old.connect();
    try {
      const oldDb = drizzleNodePg(old);
      await migrateNodePg(oldDb, { migrationsFolder: upTo.folder });
      await oldDb.execute(OLD_LESSON(oldLessonId));
    } finally {
      await old.end();
    }
    const database = await scratch.open();
    return { database, cleanUp: () => scratch.drop() };
  } finally {
    upTo.remove();
  }
}

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`migration 0009 on a database with lessons, on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    const oldLessonId = randomUUID();
    let opened: { database: Database; cleanUp(): Promise<void> } | undefined;
    let store: Store;

    beforeAll(async () => {
      opened = await databaseWithOldLesson(kind, oldLessonId);
      store = createStore(opened.database, new FrozenClock(CLOCK_START));
    });
    afterAll(async () => {
      await opened?.cleanUp();
    });

    test("a lesson made before 0009 keeps students seeing everyone's cursor and the laser the teacher's", async () => {
      const old = await store.findRoomById(oldLessonId);
      expect(old?.settings).toMatchObject({ cursorVisibility: 'everyone', laserAllowed: false });
      // The ephemeral path reads the same settings (what the server filters cursors and laser by).
      expect(await store.readDrawRights(oldLessonId)).toMatchObject({ cursorVisibility: 'everyone', laserAllowed: false });
    });

    test("a lesson made after 0009 shows students only the teacher's cursor, by the column's default too", async () => {
      const made = await newRoom(store);
      expect((await store.findRoomById(made.roomId))?.settings).toMatchObject({ cursorVisibility: 'teacher', laserAllowed: false });
      const raw = randomUUID();
      await opened!.database.db.execute(sql`INSERT INTO rooms (id, code, title) VALUES (${raw}::uuid, ${`NEW${raw.slice(0, 5)}`}, 'After')`);
      expect(await store.readDrawRights(raw)).toMatchObject({ cursorVisibility: 'teacher', laserAllowed: false });
    });

    test('the database refuses a cursor visibility outside everyone, teacher, none', async () => {
      await expect(opened!.database.db.execute(sql`UPDATE rooms SET cursor_visibility = 'some' WHERE id = ${oldLessonId}::uuid`)).rejects.toThrow();
    });
  });
}
