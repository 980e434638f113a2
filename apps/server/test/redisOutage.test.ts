import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { openDatabase, type Database } from '@wb/db';
import { openTestDatabase, postgresUnavailableReason, type TestDatabase } from '@wb/db/testing';
import { ClientEvent, type RoomEvent, cursorPosition } from '@wb/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { TestClient, createRoom, joinAs, startTestServer } from './support.ts';

// A Redis of this test's own (the machine's shared one must keep serving other suites), stopped
// and started again to play an outage between two nodes.
const redisServer = spawnSync('sh', ['-c', 'command -v redis-server']).stdout.toString().trim();

function unavailableReason(): string | null {
  const pg = postgresUnavailableReason();
  if (pg) return pg;
  if (redisServer) return null;
  if (process.env.CI) throw new Error('CI is set but redis-server is not installed: the Redis outage suite must run on CI.');
  return 'redis-server is not installed';
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(redisServer, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Ready to accept connections')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
}

const skip = unavailableReason();

describe.skipIf(skip !== null)(`Redis down between two nodes${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let testDb: TestDatabase;
  let secondDb: Database;
  let redis: ChildProcess | null = null;
  let port = 0;
  let nodeA: App;
  let nodeB: App;
  const clients: TestClient[] = [];
  const client = (...args: ConstructorParameters<typeof TestClient>) => {
    const c = new TestClient(...args);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
    testDb = await openTestDatabase('postgres');
    secondDb = await openDatabase({ kind: 'postgres', url: testDb.url!, poolSize: 4 });
    const env = { REDIS_URL: `redis://127.0.0.1:${port}` };
    nodeA = await startTestServer(testDb.database, { env });
    nodeB = await startTestServer(secondDb, { env });
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });
  afterAll(async () => {
    await nodeA?.close();
    await nodeB?.close();
    await secondDb?.close();
    await testDb?.drop();
    redis?.kill('SIGKILL');
  });

  test('each node keeps serving its own clients while Redis is down, and clients catch up by revision afterwards', async () => {
    const teacher = await createRoom(nodeA);
    const onA = await joinAs(nodeA, teacher.room.code, 'Ana');
    const onB = await joinAs(nodeB, teacher.room.code, 'Ben');
    const t = client(nodeA, teacher.token);
    const a = client(nodeA, onA.token);
    const b = client(nodeB, onB.token);
    const [tw, , bw] = await Promise.all([t.ready(), a.ready(), b.ready()]);

    redis!.kill('SIGKILL');
    await new Promise<void>((resolve) => redis!.once('exit', () => resolve()));
    redis = null;

    // Node B goes on serving Ben: his edit is stored and acknowledged; nobody's process dies.
    const shape = { kind: 'rect', x: 1, y: 2, w: 3, h: 4, stroke: '#000000', fill: 'transparent', strokeWidth: 1 } as const;
    const created = await b.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_CREATE, {
      requestId: `req-${randomUUID()}`,
      id: randomUUID(),
      shape,
    });
    if (!created.ok) throw new Error(`create on node B: ${JSON.stringify(created)}`);
    // Node A goes on serving its own clients too: the teacher sees Ana's cursor.
    a.socket.emit(ClientEvent.CURSOR, { x: 5, y: 6 });
    await t.until(() => t.received.cursors.flatMap((c) => c.cursors.map(cursorPosition)).find((c) => c.sessionId === onA.sessionId), 'Ana on node A');
    expect(t.eventsOfKind('element.created')).toHaveLength(0);

    // Even before Redis is back, the renewal answer carries the room's revision from the database:
    // the teacher's client learns it is behind and replays what it missed.
    const renewed = await t.renew(tw.welcome.leaseRevision + 1, 'renew-during-outage');
    if (!renewed.ok) throw new Error('renewal failed');
    const applied = tw.sync.kind === 'snapshot' ? tw.sync.snapshot.revision : 0;
    expect(renewed.roomRevision).toBeGreaterThan(applied);
    const replay = await t.socket.timeout(10_000).emitWithAck(ClientEvent.SYNC_REQUEST, { lastRevision: applied });
    if (!replay.ok) throw new Error(`sync.request refused: ${JSON.stringify(replay)}`);
    const sync = replay.sync;
    if (sync.kind !== 'replay') throw new Error(`expected a replay, got a ${sync.kind}`);
    expect(sync.events.map((e: RoomEvent) => e.kind)).toContain('element.created');

    // Redis returns on the same port: cross-node delivery resumes.
    redis = await startRedis(port);
    await expect
      .poll(
        async () => {
          b.socket.emit(ClientEvent.CURSOR, { x: 9, y: 9 });
          await new Promise((resolve) => setTimeout(resolve, 200));
          return t.received.cursors.flatMap((c) => c.cursors.map(cursorPosition)).some((c) => c.sessionId === onB.sessionId);
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    expect(bw.welcome.sessionId).toBe(onB.sessionId);
  });
});
