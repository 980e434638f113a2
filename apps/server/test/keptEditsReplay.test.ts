/**
 * Edits a student's device kept across a reload (apps/web/src/offline/deviceStore.ts) reach a
 * server that restarted meanwhile: sent again over a new socket with their own request ids, they
 * get the answers they got the first time and nothing is applied twice; after a revocation the
 * student cannot come back, and an edit sent on a socket still open is refused with nothing applied.
 * On PGlite and Postgres (the store's own rules: packages/db/test/persistedReplay.store.test.ts).
 */
import { FrozenClock } from '@wb/db';
import { openTestDatabase, postgresUnavailableReason, type TestDatabase, type TestDatabaseKind } from '@wb/db/testing';
import { randomUUID } from 'node:crypto';
import { ClientEvent, ErrorCode, type ElementShape } from '@wb/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { TestClient, createRoom, joinAs, post, startTestServer } from './support.ts';

const kinds: { kind: TestDatabaseKind; skip: string | null }[] = [
  { kind: 'pglite', skip: null },
  { kind: 'postgres', skip: postgresUnavailableReason() },
];

const square = (x: number): ElementShape => ({ kind: 'rect', x, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 });

for (const { kind, skip } of kinds) {
  describe.skipIf(skip !== null)(`kept edits replayed to the server on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    let testDb: TestDatabase;
    const clients: TestClient[] = [];
    const client = (...args: ConstructorParameters<typeof TestClient>) => {
      const c = new TestClient(...args);
      clients.push(c);
      return c;
    };

    beforeAll(async () => {
      testDb = await openTestDatabase(kind);
    });
    afterEach(() => {
      for (const c of clients.splice(0)) c.close();
    });
    afterAll(async () => {
      await testDb?.drop();
    });

    test('after a server restart, replays are answered as the first time and applied once; after a revocation refused, nothing applied', async () => {
      const clock = new FrozenClock(new Date('2030-04-02T10:00:00Z'));
      const first = await startTestServer(testDb.database, { clock });
      await first.sweeper.pass();
      const teacher = await createRoom(first);
      const student = await joinAs(first, teacher.room.code, 'Kept');
      const s = client(first, student.token);
      await s.ready();
      const id = randomUUID();
      const kept = { create: `req-${randomUUID()}`, move: `req-${randomUUID()}` };
      const created = await s.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_CREATE, { requestId: kept.create, id, shape: square(0) });
      const moved = await s.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_UPDATE, { requestId: kept.move, id, baseVersion: 1, shape: square(5) });
      expect(moved).toMatchObject({ ok: true, element: { version: 2 } });
      expect(created.ok).toBe(true);
      const revision = (await first.store.loadRoomSnapshot(teacher.room.id))!.revision;

      await first.close();
      const second = await startTestServer(testDb.database, { clock });
      try {
        await second.sweeper.pass();
        // The page reloaded: the same session, its kept edits sent again with their request ids.
        const back = client(second, student.token, { lastRevision: revision });
        await back.ready();
        const again = await back.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_CREATE, { requestId: kept.create, id, shape: square(0) });
        expect(again).toMatchObject({ ok: true, element: { id } });
        const moveAgain = await back.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_UPDATE, { requestId: kept.move, id, baseVersion: 1, shape: square(5) });
        expect(moveAgain).toMatchObject({ ok: true, element: { version: 2, shape: { x: 5 } } });
        expect((await second.store.loadRoomSnapshot(teacher.room.id))!.revision).toBe(revision);
        expect(back.eventsOfKind('element.created')).toHaveLength(0);
        expect(back.eventsOfKind('element.updated')).toHaveLength(0);

        // The teacher removes the student; an edit still sent on the open socket changes nothing.
        const revoked = await post(`${second.url}/api/rooms/${teacher.room.code}/members/${student.userId}/revoke`, {}, teacher.token);
        expect(revoked.status).toBe(200);
        const afterRevoke = (await second.store.loadRoomSnapshot(teacher.room.id))!;
        const refused = await back.socket
          .timeout(10_000)
          .emitWithAck(ClientEvent.ELEMENT_UPDATE, { requestId: `req-${randomUUID()}`, id, baseVersion: 2, shape: square(9) })
          .catch(() => ({ ok: false as const, error: { code: 'no answer' } }));
        expect(refused).toMatchObject({ ok: false });
        // And a reload after it cannot come back to send its kept edits at all.
        const returning = client(second, student.token, { lastRevision: revision });
        await expect(returning.ready()).rejects.toThrow(new RegExp(ErrorCode.MEMBERSHIP_REVOKED));
        const now = (await second.store.loadRoomSnapshot(teacher.room.id))!;
        expect(now.revision).toBe(afterRevoke.revision);
        expect(now.elements.find((e) => e.id === id)).toMatchObject({ version: 2, shape: { x: 5 } });
      } finally {
        await second.close();
      }
    });
  });
}
