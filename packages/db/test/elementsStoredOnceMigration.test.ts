/**
 * Migration 0015 (the stroke stored once, issue 19; docs/store.md "One copy of an element's
 * content") on a database that already holds elements, versions and events: each database is first
 * migrated up to 0011 only and given a board the way that schema stored it (the shape in the
 * element row, in every version and in every element event), read the way the 0011 code read it,
 * then opened by the product (`openDatabase`), which applies 0015. Replay (every event, with its
 * element's shape), the snapshot's elements and the history are the same before and after; the
 * only new history entry is the one an element with no row at its current version gets. Then the
 * history's pruning keeps every version the elements and the log still read.
 * On PGlite (a data directory, as the laptop server keeps it) and on real Postgres.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql, type SQL } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import type { Element, HistoryEntry, RoomEvent } from '@wb/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import { migrationsFolder, openDatabase, type Database } from '../src/database.ts';
import { toElement, type ElementRow } from '../src/elementRows.ts';
import { listHistory } from '../src/history.ts';
import { int, rows, type Executor } from '../src/sql.ts';
import { createStore, type Store } from '../src/store.ts';
import { ScratchDatabase } from '../src/testing.ts';
import { CLOCK_START, storeDatabaseKinds } from './fixtures.ts';

/** The last migration before the stroke stored once. */
const BEFORE = '0011_private_boards';

interface Journal {
  entries: { tag: string }[];
}

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

const pen = (x: number, n: number) => ({
  kind: 'pen',
  x,
  y: 20.5,
  color: '#2563eb',
  width: 3,
  points: Array.from({ length: n }, (_, i) => [i * 3.25, (i % 5) * 1.5, 0.5]),
});

/** A board as the 0011 schema stored it; ids are fresh per database. */
function oldBoard() {
  const roomId = randomUUID();
  const by = randomUUID();
  const [a, b, c, d, e] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const shape = { a1: pen(10, 65), a2: { ...pen(10, 65), x: 90 }, b1: pen(200, 30), c2: pen(300, 12), d2: pen(400, 8), d3: pen(410, 8), e1: pen(500, 20) };
  const el = (id: string, s: object, version: number, z: number, pinned = false) => ({
    id,
    shape: s,
    version,
    pinned,
    createdBy: by,
    updatedBy: by,
    z,
    lock: null,
  });
  // [id, kind, shape, version, deleted, pinned, z]
  const elements: Array<[string, object, number, boolean, boolean, number]> = [
    [a, shape.a2, 3, false, true, 1], // created, moved, pinned
    [b, shape.b1, 2, true, false, 4], // created, deleted
    [c, shape.c2, 2, false, false, 6], // from before 0007: no version rows at all
    [d, shape.d3, 3, false, false, 7], // its older versions pruned by the sweeper
    [e, shape.e1, 3, false, false, 8], // created, deleted, restored by the teacher
  ];
  // [element, version, shape, deleted, action]
  const versions: Array<[string, number, object, boolean, string]> = [
    [a, 1, shape.a1, false, 'created'],
    [a, 2, shape.a2, false, 'moved'],
    [a, 3, shape.a2, false, 'pinned'],
    [b, 1, shape.b1, false, 'created'],
    [b, 2, shape.b1, true, 'deleted'],
    [d, 3, shape.d3, false, 'moved'],
    [e, 1, shape.e1, false, 'created'],
    [e, 2, shape.e1, true, 'deleted'],
    [e, 3, shape.e1, false, 'restored'],
  ];
  const events: Array<[string, string, object]> = [
    ['element.created', `element.created:${roomId}:${a}`, { element: el(a, shape.a1, 1, 1) }],
    ['element.updated', `element.updated:${roomId}:${a}:2`, { element: el(a, shape.a2, 2, 1) }],
    ['element.updated', `element.updated:${roomId}:${a}:3`, { element: el(a, shape.a2, 3, 1, true) }],
    ['element.created', `element.created:${roomId}:${b}`, { element: el(b, shape.b1, 1, 4) }],
    ['element.deleted', `element.deleted:${roomId}:${b}:2`, { elementId: b, version: 2, by }],
    ['element.updated', `element:${c}:2`, { element: el(c, shape.c2, 2, 6) }],
    // Its version row is gone: the event keeps its shape inline.
    ['element.updated', `element.updated:${roomId}:${d}:2`, { element: el(d, shape.d2, 2, 7) }],
    ['element.updated', `element.updated:${roomId}:${d}:3`, { element: el(d, shape.d3, 3, 7) }],
    ['element.created', `element.created:${roomId}:${e}`, { element: el(e, shape.e1, 1, 8) }],
    ['element.deleted', `element.deleted:${roomId}:${e}:2`, { elementId: e, version: 2, by }],
    ['element.restored', `element.restored:${roomId}:${e}:3`, { element: el(e, shape.e1, 3, 8) }],
    ['room.updated', `room.updated:${roomId}:12`, { room: { id: roomId, title: 'Renamed' } }],
  ];
  const at = (i: number) => new Date(CLOCK_START.getTime() + i * 1_000).toISOString();
  const statements: SQL[] = [
    sql`INSERT INTO rooms (id, code, title, revision) VALUES (${roomId}::uuid, ${`OLD${roomId.slice(0, 5)}`}, 'Before 0015', ${events.length}::int8)`,
    ...elements.map(
      ([id, s, version, deleted, pinned, z]) =>
        sql`INSERT INTO elements (room_id, id, kind, data, version, deleted, pinned, created_by, updated_by, created_at, updated_at, z)
            VALUES (${roomId}::uuid, ${id}::uuid, 'pen', ${JSON.stringify(s)}::jsonb, ${version}::int8, ${deleted}, ${pinned},
                    ${by}::uuid, ${by}::uuid, ${at(0)}, ${at(z)}, ${z}::int8)`,
    ),
    ...versions.map(
      ([id, version, s, deleted, action], i) =>
        sql`INSERT INTO element_versions (room_id, element_id, version, data, deleted, action, by, at)
            VALUES (${roomId}::uuid, ${id}::uuid, ${version}::int8, ${JSON.stringify(s)}::jsonb, ${deleted}, ${action}, ${by}::uuid, ${at(i + 1)})`,
    ),
    ...events.map(
      ([kind, eventId, payload], i) =>
        sql`INSERT INTO room_events (room_id, revision, event_id, kind, payload, at)
            VALUES (${roomId}::uuid, ${i + 1}::int8, ${eventId}, ${kind}, ${JSON.stringify(payload)}::jsonb, ${at(i + 1)})`,
    ),
  ];
  return { roomId, ids: { a, b, c, d, e }, statements, eventCount: events.length };
}

type Board = ReturnType<typeof oldBoard>;

interface Picture {
  replay: RoomEvent[];
  elements: Element[];
  history: HistoryEntry[];
}

const parsed = (v: unknown): unknown => (typeof v === 'string' ? JSON.parse(v) : v);

/** What the 0011 code read: the log's payloads as stored, elements with their data column, the history. */
async function pictureBefore(executor: Executor, roomId: string): Promise<Picture> {
  const replay = (
    await rows<{ room_id: string; revision: unknown; event_id: string; kind: RoomEvent['kind']; payload: unknown }>(
      executor,
      sql`SELECT room_id, revision, event_id, kind, payload FROM room_events WHERE room_id = ${roomId}::uuid ORDER BY revision`,
    )
  ).map((r) => ({ roomId: r.room_id, revision: int(r.revision), eventId: r.event_id, kind: r.kind, payload: parsed(r.payload) }) as RoomEvent);
  const elements = (
    await rows<ElementRow>(
      executor,
      sql`SELECT room_id, id, kind, data, version, deleted, pinned, created_by, updated_by, z, lock_generation, lock_session_id,
                 lock_user_id, lock_expires_at, lock_request_id
          FROM elements WHERE room_id = ${roomId}::uuid AND NOT deleted ORDER BY z, id`,
    )
  ).map(toElement);
  return { replay, elements, history: await listHistory(executor, roomId, { limit: 100 }) };
}

/** Migrates a fresh database to 0011, stores the board, reads it the old way, and opens it with the product. */
async function upgraded(kind: 'pglite' | 'postgres', board: Board): Promise<{ database: Database; before: Picture; cleanUp(): Promise<void> }> {
  const upTo = migrationsUpTo(BEFORE);
  try {
    if (kind === 'pglite') {
      const dataDir = mkdtempSync(join(tmpdir(), 'wb-pglite-0015-'));
      const old = new PGlite(dataDir);
      const oldDb = drizzlePglite(old);
      await migratePglite(oldDb, { migrationsFolder: upTo.folder });
      for (const statement of board.statements) await oldDb.execute(statement);
      const before = await pictureBefore(oldDb as unknown as Executor, board.roomId);
      await old.close();
      const database = await openDatabase({ kind: 'pglite', dataDir });
      return {
        database,
        before,
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
    let before: Picture;
    try {
      const oldDb = drizzleNodePg(old);
      await migrateNodePg(oldDb, { migrationsFolder: upTo.folder });
      for (const statement of board.statements) await oldDb.execute(statement);
      before = await pictureBefore(oldDb as unknown as Executor, board.roomId);
    } finally {
      await old.end();
    }
    const database = await scratch.open();
    return { database, before, cleanUp: () => scratch.drop() };
  } finally {
    upTo.remove();
  }
}

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`migration 0015 (the stroke stored once) on a board with history, on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    const board = oldBoard();
    let opened: Awaited<ReturnType<typeof upgraded>> | undefined;
    let store: Store;
    const count = async (query: SQL) => int((await rows<{ n: unknown }>(opened!.database.db, query))[0]!.n);

    // Two database starts on disk and fifteen migrations: 17 s on a quiet machine, over 120 s in a
    // CI run that kept two cores at a run queue of 10-30.
    beforeAll(async () => {
      opened = await upgraded(kind, board);
      store = createStore(opened.database, new FrozenClock(new Date(CLOCK_START.getTime() + 3_600_000)));
    }, 360_000);
    afterAll(async () => {
      await opened?.cleanUp();
    });

    test('I1: replay after the upgrade hands back every event exactly as before, each element event with its shape', async () => {
      const { before } = opened!;
      expect(before.replay).toHaveLength(board.eventCount);
      const replay = await store.eventsAfter(board.roomId, 0, 100);
      expect(replay).toEqual({ kind: 'replay', events: before.replay, revision: board.eventCount });
      for (const event of before.replay) expect(await store.findRoomEvent(event.eventId)).toEqual(event);
    });

    test('the snapshot after the upgrade holds the same elements, in the same order', async () => {
      const snapshot = await store.loadRoomSnapshot(board.roomId);
      expect(snapshot?.elements).toEqual(opened!.before.elements);
    });

    test('the history after the upgrade is the same, plus a version row for the element that had none at its current version', async () => {
      const after = await store.listHistory(board.roomId, { limit: 100 });
      const added = after.filter((h) => !opened!.before.history.some((b) => b.elementId === h.elementId && b.version === h.version));
      expect(added).toEqual([expect.objectContaining({ elementId: board.ids.c, version: 2, action: 'restyled', previousVersion: null })]);
      expect(after.filter((h) => h !== added[0])).toEqual(opened!.before.history);
    });

    test('the content is stored once: no element row holds it, and every element event but the one whose version is gone names its version', async () => {
      expect(await count(sql`SELECT count(*) AS n FROM information_schema.columns WHERE table_name = 'elements' AND column_name = 'data'`)).toBe(0);
      expect(
        await count(sql`SELECT count(*) AS n FROM room_events WHERE room_id = ${board.roomId}::uuid AND payload::text LIKE '%points%'`),
      ).toBe(1);
      expect(
        await count(sql`SELECT count(*) AS n FROM room_events WHERE room_id = ${board.roomId}::uuid AND element_id IS NOT NULL`),
      ).toBe(8);
    });

    test('pruning the history keeps every version an element stands at or an event in the log names, so replay and snapshot stay whole', async () => {
      const versionsBefore = await count(sql`SELECT count(*) AS n FROM element_versions WHERE room_id = ${board.roomId}::uuid`);
      await store.pruneElementVersions(0);
      // One went: the deleted version of the restored element, which no event names (a deletion
      // carries no shape) and no element stands at. Every other is current or named by the log.
      expect(versionsBefore).toBe(10);
      expect(await count(sql`SELECT count(*) AS n FROM element_versions WHERE room_id = ${board.roomId}::uuid`)).toBe(9);
      expect(
        await count(sql`SELECT count(*) AS n FROM element_versions WHERE room_id = ${board.roomId}::uuid AND element_id = ${board.ids.e}::uuid AND version = 2`),
      ).toBe(0);
      expect(await store.eventsAfter(board.roomId, 0, 100)).toEqual({ kind: 'replay', events: opened!.before.replay, revision: board.eventCount });
      // Once the log has moved past them, only the current versions stay: the snapshot is whole, the old replay is `pruned`.
      await store.pruneRoomLog(0);
      await store.pruneElementVersions(0);
      expect(await count(sql`SELECT count(*) AS n FROM element_versions WHERE room_id = ${board.roomId}::uuid`)).toBe(5);
      expect((await store.loadRoomSnapshot(board.roomId))?.elements).toEqual(opened!.before.elements);
      expect((await store.eventsAfter(board.roomId, 0, 100)).kind).toBe('pruned');
    });
  });
}
