/**
 * Replays of edits a student's device kept across a reload (apps/web/src/offline/deviceStore.ts):
 * the same request ids sent again, possibly after the server restarted and possibly after the
 * student was removed. On PGlite (a data directory closed and opened again) and on real Postgres
 * (the pool closed and opened again), the idempotency the client relies on is the database's, so
 * a restart forgets none of it:
 * - R1: an edit applied before the restart, sent again after it, is answered as applied and not
 *   applied twice (create: by element id; update: by the session's request id; delete: by the
 *   tombstone); the room's revision and log do not move.
 * - R2: an edit never sent before the restart is applied once; its own replay is answered.
 * - R3: after a revocation every kept edit is refused (`not_a_member`), whether new or a replay,
 *   and nothing is applied: revision, log and elements stay as they were.
 * - R4: a kept update made stale meanwhile (someone else changed the element) is refused as a
 *   conflict, as any stale edit is: never a silent overwrite.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ElementShape } from '@wb/protocol';
import { afterAll, describe, expect, test } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import { openDatabase, type Database } from '../src/database.ts';
import { listElements, type EditActor, type ElementResult } from '../src/elements.ts';
import { createStore, type Store } from '../src/store.ts';
import { ScratchDatabase, type TestDatabaseKind } from '../src/testing.ts';
import { CLOCK_START, newRoom, requestId, roomRevision, seatStudent, SESSION_TTL_MS, storeDatabaseKinds } from './fixtures.ts';

/**
 * A test's budget: databases opened and reopened. 4-7 s on an idle machine; two CI runs of
 * 2026-12-03 (load average ~20, this lane at nice 10) took the PGlite one past 120 s, every other
 * test passing: starvation, not a hang. 300 s still fails a real hang.
 */
const RESTART_TEST_MS = 300_000;

const stroke = (x: number): ElementShape => ({ kind: 'rect', x, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 });

/** A database that can be closed and opened again on the same data: a server restart. */
interface Restartable {
  open(): Promise<Database>;
  remove(): Promise<void>;
}

function restartable(kind: TestDatabaseKind): Restartable {
  if (kind === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'wb-replay-'));
    const dataDir = join(dir, 'pglite');
    return {
      open: async () => {
        // A new directory starts from the migrated template (as test servers' do), not initdb.
        const before = process.env.WB_PGLITE_TEMPLATE_DISK;
        process.env.WB_PGLITE_TEMPLATE_DISK = 'on';
        try {
          return await openDatabase({ kind: 'pglite', dataDir });
        } finally {
          if (before === undefined) delete process.env.WB_PGLITE_TEMPLATE_DISK;
          else process.env.WB_PGLITE_TEMPLATE_DISK = before;
        }
      },
      remove: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
  const scratch = new ScratchDatabase(adminUrl);
  let created = false;
  return {
    open: async () => {
      if (!created) await scratch.create({ migrated: true });
      created = true;
      return scratch.open({ poolSize: 4 });
    },
    remove: () => scratch.drop(),
  };
}

const decision = (result: ElementResult) => result.decision;

/** The room's event log after `revision` (what a replay to a client would carry). */
async function logAfter(store: Store, roomId: string, revision: number) {
  const after = await store.eventsAfter(roomId, revision, 1_000);
  if (after.kind !== 'replay') throw new Error(`no replay after ${revision}: ${after.kind}`);
  return after.events.map((e) => `${e.revision}:${e.kind}`);
}

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`kept edits replayed on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    const databases: Restartable[] = [];
    const open: Database[] = [];
    afterAll(async () => {
      for (const database of open.splice(0)) await database.close().catch(() => {});
      for (const database of databases) await database.remove();
    });

    async function start(where: Restartable): Promise<{ database: Database; store: Store }> {
      const database = await where.open();
      open.push(database);
      return { database, store: createStore(database, new FrozenClock(CLOCK_START)) };
    }

    async function restart(where: Restartable, database: Database): Promise<{ database: Database; store: Store }> {
      await database.close();
      open.splice(open.indexOf(database), 1);
      return start(where);
    }

    test('R1, R2, R4: replays after a server restart are answered, not applied twice; a stale one is refused', { timeout: RESTART_TEST_MS }, async () => {
      const where = restartable(kind);
      databases.push(where);
      let { database, store } = await start(where);
      const room = await newRoom(store);
      const seat = await seatStudent(store, room);
      const ana: EditActor = { roomId: seat.roomId, sessionId: seat.sessionId, userId: seat.userId };
      const teacherSession = randomUUID();
      await store.openSession({ id: teacherSession, roomId: room.roomId, userId: room.teacherId, tokenHash: randomUUID(), ttlMs: SESSION_TTL_MS });
      const teacher: EditActor = { roomId: room.roomId, sessionId: teacherSession, userId: room.teacherId };

      // Ana's device keeps these until it sees them acknowledged; the answers are "lost".
      const kept = { a: randomUUID(), b: randomUUID(), move: requestId('move') };
      const [created] = await store.createElements([{ actor: ana, id: kept.a, shape: stroke(0) }]);
      expect(created?.decision).toBe('applied');
      expect(decision(await store.createElement(ana, { id: kept.b, shape: stroke(20) }))).toBe('applied');
      expect(decision(await store.updateElement(ana, { id: kept.a, baseVersion: 1, shape: stroke(5), requestId: kept.move }))).toBe('applied');
      expect(decision(await store.deleteElement(ana, { id: kept.b }))).toBe('applied');
      const revision = await roomRevision(database, room.roomId);

      ({ database, store } = await restart(where, database));
      expect(await roomRevision(database, room.roomId)).toBe(revision);

      // R1: every acknowledged-but-unknown edit, sent again with its own request id.
      const [again] = await store.createElements([{ actor: ana, id: kept.a, shape: stroke(0) }]);
      expect(again?.decision).toBe('already_applied');
      expect(decision(await store.createElement(ana, { id: kept.a, shape: stroke(0) }))).toBe('already_applied');
      const moved = await store.updateElement(ana, { id: kept.a, baseVersion: 1, shape: stroke(5), requestId: kept.move });
      expect(moved).toMatchObject({ decision: 'already_applied', element: { id: kept.a, version: 2, shape: { x: 5 } } });
      expect(decision(await store.deleteElement(ana, { id: kept.b }))).toBe('already_applied');
      // A create of the deleted element does not bring it back.
      expect(decision(await store.createElement(ana, { id: kept.b, shape: stroke(20) }))).toBe('not_found');
      expect(await roomRevision(database, room.roomId)).toBe(revision);
      expect(await logAfter(store, room.roomId, revision)).toEqual([]);

      // R2: an edit made offline and never sent is applied once after the restart; its replay is answered.
      const offline = requestId('offline');
      expect(decision(await store.updateElement(ana, { id: kept.a, baseVersion: 2, shape: stroke(9), requestId: offline }))).toBe('applied');
      ({ database, store } = await restart(where, database));
      expect(decision(await store.updateElement(ana, { id: kept.a, baseVersion: 2, shape: stroke(9), requestId: offline }))).toBe('already_applied');
      expect(await logAfter(store, room.roomId, revision)).toEqual([`${revision + 1}:element.updated`]);

      // R4: the teacher changed Ana's element (version 3) before her device's next edit of it came: refused, not overwritten.
      expect(decision(await store.updateElement(teacher, { id: kept.a, baseVersion: 3, shape: stroke(60), requestId: requestId('t') }))).toBe('applied');
      expect(decision(await store.updateElement(ana, { id: kept.a, baseVersion: 3, shape: stroke(45), requestId: requestId('stale') }))).toBe('conflict');
      const elements = await listElements(database.db, room.roomId);
      expect(elements.find((e) => e.id === kept.a)).toMatchObject({ version: 4, shape: { x: 60 } });
    });

    test('R3: after a revocation, kept edits (new or replays) are refused and nothing is applied, across a restart too', { timeout: RESTART_TEST_MS }, async () => {
      const where = restartable(kind);
      databases.push(where);
      let { database, store } = await start(where);
      const room = await newRoom(store);
      const seat = await seatStudent(store, room);
      const ana: EditActor = { roomId: seat.roomId, sessionId: seat.sessionId, userId: seat.userId };
      const mine = randomUUID();
      const move = requestId('move');
      expect(decision(await store.createElement(ana, { id: mine, shape: stroke(0) }))).toBe('applied');
      expect(decision(await store.updateElement(ana, { id: mine, baseVersion: 1, shape: stroke(5), requestId: move }))).toBe('applied');
      const revoked = await store.revokeMember({ roomId: room.roomId, userId: seat.userId, by: room.teacherId, reason: null, requestId: requestId('revoke') });
      expect(revoked.decision).toBe('revoked');
      const revision = await roomRevision(database, room.roomId);
      const before = await listElements(database.db, room.roomId);

      ({ database, store } = await restart(where, database));
      const fresh = randomUUID();
      const [batched] = await store.createElements([{ actor: ana, id: fresh, shape: stroke(30) }]);
      expect(batched?.decision).toBe('not_a_member');
      expect(decision(await store.createElement(ana, { id: fresh, shape: stroke(30) }))).toBe('not_a_member');
      expect(decision(await store.updateElement(ana, { id: mine, baseVersion: 2, shape: stroke(9), requestId: requestId('new') }))).toBe('not_a_member');
      // Even the replay of an edit applied before the revocation is refused: the member is gone.
      expect(decision(await store.updateElement(ana, { id: mine, baseVersion: 1, shape: stroke(5), requestId: move }))).toBe('not_a_member');
      expect(decision(await store.deleteElement(ana, { id: mine }))).toBe('not_a_member');

      expect(await roomRevision(database, room.roomId)).toBe(revision);
      expect(await logAfter(store, room.roomId, revision)).toEqual([]);
      expect(await listElements(database.db, room.roomId)).toEqual(before);
    });
  });
}
