import { FrozenClock, openDatabase, type Database } from '@wb/db';
import { openTestDatabase, postgresUnavailableReason, type TestDatabase } from '@wb/db/testing';
import { ClientEvent, cursorPosition } from '@wb/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { TestClient, createRoom, joinAs, startTestServer } from './support.ts';

/** Several server processes share Postgres and Redis; these need both for real. */
function clusterUnavailableReason(): string | null {
  const pg = postgresUnavailableReason();
  if (pg) return pg;
  if (process.env.TEST_REDIS_URL) return null;
  if (process.env.CI) throw new Error('CI is set but TEST_REDIS_URL is not: the multi-node suite must run on CI.');
  return 'TEST_REDIS_URL is not set';
}

const skip = clusterUnavailableReason();
const LEASE_TTL_MS = 120_000;

describe.skipIf(skip !== null)(`two server nodes on one Postgres and Redis${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let testDb: TestDatabase;
  let secondDb: Database;
  let nodeA: App;
  let nodeB: App;
  const clock = new FrozenClock(new Date('2030-02-03T09:00:00Z'));
  const clients: TestClient[] = [];
  const client = (...args: ConstructorParameters<typeof TestClient>) => {
    const c = new TestClient(...args);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    testDb = await openTestDatabase('postgres');
    // Each node has its own pool, as separate processes would.
    secondDb = await openDatabase({ kind: 'postgres', url: testDb.url!, poolSize: 5 });
    const env = { REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_ADAPTER: 'sharded' };
    nodeA = await startTestServer(testDb.database, { clock, env });
    nodeB = await startTestServer(secondDb, { clock, env });
    // The first passes grant restart grace (I8).
    await nodeA.sweeper.pass();
    await nodeB.sweeper.pass();
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });
  afterAll(async () => {
    await nodeA?.close();
    await nodeB?.close();
    await secondDb?.close();
    await testDb?.drop();
  });

  test('clients on different nodes see each other\'s presence events and cursors', async () => {
    const teacher = await createRoom(nodeA);
    const student = await joinAs(nodeB, teacher.room.code, 'Noor');
    const t = client(nodeA, teacher.token);
    await t.ready();
    const s = client(nodeB, student.token);
    await s.ready();
    await t.until(
      () => t.eventsOfKind('presence.opened').find((e) => e.payload.sessionId === student.sessionId),
      'the student on node B opening its lease, seen on node A',
    );
    s.socket.emit(ClientEvent.CURSOR, { x: 7, y: 8 });
    const cursor = await t.until(
      () => t.received.cursors.flatMap((b) => b.cursors.map(cursorPosition)).find((c) => c.sessionId === student.sessionId),
      'the cursor from node B at node A',
    );
    expect(cursor).toMatchObject({ x: 7, y: 8 });
    t.socket.emit(ClientEvent.CURSOR, { x: 1, y: 2 });
    await s.until(
      () => s.received.cursors.flatMap((b) => b.cursors.map(cursorPosition)).find((c) => c.sessionId === teacher.sessionId),
      'the cursor from node A at node B',
    );
  });

  test('I5/I9: a lease swept by both nodes at once is expired exactly once, everywhere', async () => {
    const teacher = await createRoom(nodeA);
    const student = await joinAs(nodeA, teacher.room.code, 'Lid');
    const t = client(nodeA, teacher.token);
    const { welcome } = await t.ready();
    const watcher = client(nodeB, (await joinAs(nodeB, teacher.room.code, 'Watcher')).token);
    const w = await watcher.ready();
    const s = client(nodeB, student.token);
    await s.ready();
    clock.advance(LEASE_TTL_MS / 2);
    await t.renew(welcome.leaseRevision + 1, 'teacher-keeps-renewing');
    await watcher.renew(w.welcome.leaseRevision + 1, 'watcher-keeps-renewing');
    clock.advance(LEASE_TTL_MS / 2 + 1);
    // Both nodes sweep at once, as if the advisory lock had been lost.
    await Promise.all([nodeA.sweeper.pass(), nodeB.sweeper.pass()]);
    for (const c of [t, watcher]) {
      await c.until(
        () => c.eventsOfKind('presence.expired').find((e) => e.payload.sessionId === student.sessionId),
        'the expiry',
      );
    }
    await Promise.all([nodeA.sweeper.pass(), nodeB.sweeper.pass()]);
    const facts = await nodeA.store.listAttendance(teacher.room.id);
    expect(facts.filter((f) => f.kind === 'lease_expired' && f.sessionId === student.sessionId)).toHaveLength(1);
    // A revision seen twice by a client is deduplicated by the client; the server sent it once.
    for (const c of [t, watcher]) {
      expect(c.eventsOfKind('presence.expired').filter((e) => e.payload.sessionId === student.sessionId)).toHaveLength(1);
    }
  });

  test('a revocation on node A ends the student\'s socket on node B', async () => {
    const teacher = await createRoom(nodeA);
    const student = await joinAs(nodeB, teacher.room.code, 'Rev');
    const s = client(nodeB, student.token);
    await s.ready();
    const response = await fetch(`${nodeA.url}/api/rooms/${teacher.room.code}/members/${student.userId}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${teacher.token}` },
      body: '{}',
    });
    expect(response.status).toBe(200);
    const ended = await s.until(() => s.received['session.ended'][0], 'session.ended on node B');
    expect(ended.code).toBe('membership_revoked');
    await s.until(() => s.socket.disconnected, 'the disconnect');
  });
});
