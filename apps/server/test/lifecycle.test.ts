import { FrozenClock } from '@wb/db';
import { openTestDatabase, postgresUnavailableReason, type TestDatabase, type TestDatabaseKind } from '@wb/db/testing';
import { randomUUID } from 'node:crypto';
import { ClientEvent, ErrorCode } from '@wb/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { TestClient, createRoom, joinAs, startTestServer } from './support.ts';

const LEASE_TTL_MS = 120_000;

const kinds: { kind: TestDatabaseKind; skip: string | null }[] = [
  { kind: 'pglite', skip: null },
  { kind: 'postgres', skip: postgresUnavailableReason() },
];

for (const { kind, skip } of kinds) {
  describe.skipIf(skip !== null)(`server lifecycle on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
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

    test('I8: after a graceful restart that outlasted the term, clients resume their sessions and nobody is expired', async () => {
      const clock = new FrozenClock(new Date('2030-03-02T10:00:00Z'));
      const first = await startTestServer(testDb.database, { clock });
      await first.sweeper.pass();
      const teacher = await createRoom(first);
      const student = await joinAs(first, teacher.room.code, 'Grace');
      const s = client(first, student.token);
      const before = await s.ready();

      await first.close();
      const notice = await s.until(() => s.received.notice.find((n) => n.code === ErrorCode.SERVER_RESTARTING), 'restart notice');
      expect(notice.message).toMatch(/restarting/);
      await s.until(() => s.socket.disconnected, 'the disconnect');
      expect(s.received['session.ended']).toHaveLength(0);

      // The server was away longer than a whole lease term.
      clock.advance(LEASE_TTL_MS * 2);
      const second = await startTestServer(testDb.database, { clock });
      try {
        await second.sweeper.pass(); // grace first (I8)
        await second.sweeper.pass(); // then a real sweep: nothing has expired
        expect(await second.store.listPresence(teacher.room.id)).toHaveLength(1);
        const back = client(second, student.token, { lastRevision: before.sync.kind === 'snapshot' ? before.sync.snapshot.revision : 0 });
        const again = await back.ready();
        expect(again.welcome.sessionId).toBe(student.sessionId);
        const facts = await second.store.listAttendance(teacher.room.id);
        expect(facts.filter((f) => f.sessionId === student.sessionId).map((f) => f.kind)).toEqual(['joined']);
      } finally {
        await second.close();
      }
    });

    test('I8: a drag in flight when the server restarts keeps its lock through the grace and then commits', async () => {
      const clock = new FrozenClock(new Date('2030-03-05T10:00:00Z'));
      const env = { LOCK_FIRST_TERM_MS: '2000', LOCK_TTL_MS: '5000' };
      const first = await startTestServer(testDb.database, { clock, env });
      await first.sweeper.pass();
      const teacher = await createRoom(first);
      const student = await joinAs(first, teacher.room.code, 'Drag');
      const s = client(first, student.token);
      await s.ready();
      const shape = { kind: 'rect', x: 0, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 } as const;
      const created = await s.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_CREATE, {
        requestId: `req-${randomUUID()}`,
        id: randomUUID(),
        shape,
      });
      if (!created.ok) throw new Error('create failed');
      const grant = await s.socket.timeout(10_000).emitWithAck(ClientEvent.LOCK_ACQUIRE, {
        requestId: `req-${randomUUID()}`,
        elementId: created.element.id,
      });
      if (!grant.ok) throw new Error('acquire failed');

      await first.close();
      clock.advance(60_000); // far past the lock's term: the server, not the holder, was away
      const second = await startTestServer(testDb.database, { clock, env });
      try {
        await second.sweeper.pass(); // grace (I8) for leases and locks
        await second.sweeper.pass(); // a real sweep: nothing in flight has expired
        const held = (await second.store.loadRoomSnapshot(teacher.room.id))!.elements[0]!;
        expect(held.lock).toMatchObject({ sessionId: student.sessionId, generation: grant.grant.generation });
        const back = client(second, student.token);
        await back.ready();
        const committed = await back.socket.timeout(10_000).emitWithAck(ClientEvent.LOCK_RELEASE, {
          requestId: `req-${randomUUID()}`,
          elementId: created.element.id,
          generation: grant.grant.generation,
          shape: { ...shape, x: 40, y: 30 },
        });
        expect(committed).toMatchObject({ ok: true, element: { version: 2, shape: { x: 40, y: 30 }, lock: null } });
      } finally {
        await second.close();
      }
    });

    test('/healthz is the process: 503 until the sweeper loop ticked once, 200 after; /readyz checks the database', async () => {
      const app = await startTestServer(testDb.database);
      try {
        const unhealthy = await fetch(`${app.url}/healthz`);
        expect(unhealthy.status).toBe(503);
        await app.sweeper.pass();
        const healthy = await fetch(`${app.url}/healthz`);
        expect(healthy.status).toBe(200);
        expect(await healthy.json()).toMatchObject({ ok: true, sweeperLeader: true });
        const ready = await fetch(`${app.url}/readyz`);
        expect(await ready.json()).toEqual({ ok: true, database: kind, databaseOk: true, adapterOk: null, draining: false });
        const metrics = await (await fetch(`${app.url}/metrics`)).text();
        expect(metrics).toMatch(/^wb_connected_sockets /m);
        expect(metrics).toMatch(/^wb_nodejs_eventloop_lag_p99_seconds /m);
        // The embedded database's thread reports its own memory; an external Postgres has none here.
        const wasm = /^wb_embedded_db_memory_bytes\{kind="wasm"\} (\d+)/m.exec(metrics);
        if (kind === 'pglite') expect(Number(wasm?.[1])).toBeGreaterThan(16 * 2 ** 20);
        else expect(wasm).toBeNull();
      } finally {
        await app.close();
      }
    });

    test('HTTP edge: a foreign origin, an oversize body and a malformed body get typed errors; security headers are set', async () => {
      const app = await startTestServer(testDb.database);
      try {
        const foreign = await fetch(`${app.url}/api/rooms`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
          body: '{}',
        });
        expect(foreign.status).toBe(403);
        expect(await foreign.json()).toMatchObject({ error: { code: ErrorCode.ORIGIN_NOT_ALLOWED } });

        const huge = await fetch(`${app.url}/api/rooms`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ teacherName: 'x'.repeat(2 * 1024 * 1024) }),
        });
        expect(huge.status).toBe(413);
        expect(await huge.json()).toMatchObject({ error: { code: ErrorCode.PAYLOAD_TOO_LARGE } });

        const broken = await fetch(`${app.url}/api/rooms`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"teacherName": ',
        });
        expect(broken.status).toBe(400);
        expect(await broken.json()).toMatchObject({ error: { code: ErrorCode.BAD_REQUEST } });

        const wrongTypes = await fetch(`${app.url}/api/rooms`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ teacherName: 42, memberKey: 'k' }),
        });
        expect(await wrongTypes.json()).toMatchObject({ error: { code: ErrorCode.BAD_REQUEST, message: expect.stringMatching(/teacherName/) } });

        const page = await fetch(`${app.url}/api/rooms/NOPE22`);
        expect(page.status).toBe(404);
        expect(page.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
        expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      } finally {
        await app.close();
      }
    });
  });
}
