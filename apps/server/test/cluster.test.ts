import { randomUUID } from 'node:crypto';
import { FrozenClock, openDatabase, type Database } from '@wb/db';
import { openTestDatabase, postgresUnavailableReason, type TestDatabase } from '@wb/db/testing';
import { ClientEvent, cursorPosition, type ClientFeature } from '@wb/protocol';
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
const randomId = () => randomUUID().replaceAll('-', '');

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

  test("Follow (issue 21): a student joining on node B while the teacher on node A presents follows at once, from the teacher's latest view", async () => {
    const teacher = await createRoom(nodeA);
    const t = client(nodeA, teacher.token);
    await t.ready();
    const view = (cx: number) => ({ cx, cy: 40, w: 1280, h: 800 });
    expect(await t.socket.timeout(10_000).emitWithAck(ClientEvent.FOLLOW_PRESENT, { requestId: randomId(), presenting: true, view: view(10) })).toMatchObject({ ok: true });
    t.socket.emit(ClientEvent.VIEWPORT, view(640));
    // The socket's packets are handled in order: the viewport has landed by the answer to the bring after it.
    expect(await t.socket.timeout(10_000).emitWithAck(ClientEvent.FOLLOW_BRING, { requestId: randomId(), view: view(640) })).toEqual({ ok: true });
    const s = client(nodeB, (await joinAs(nodeB, teacher.room.code, 'Noor')).token);
    await s.ready();
    const told = await s.until(() => s.received.follow.find((f) => f.kind === 'presenting'), 'presenting, told on node B');
    expect(told).toEqual({ kind: 'presenting', presenting: true, view: view(640) });
  });

  test('Follow: after a student on node B stops following, the teacher on node A hears the count drop to 0', async () => {
    const teacher = await createRoom(nodeA);
    const t = client(nodeA, teacher.token);
    await t.ready();
    const s = client(nodeB, (await joinAs(nodeB, teacher.room.code, 'Noor')).token);
    await s.ready();
    const lastCount = () => t.received.follow.filter((f) => f.kind === 'followers').at(-1) as { count: number } | undefined;
    const follow = (following: boolean) => s.socket.timeout(10_000).emitWithAck(ClientEvent.FOLLOW_SET, { requestId: randomId(), following });
    for (let round = 0; round < 3; round++) {
      expect(await follow(true)).toEqual({ ok: true, following: true });
      await t.until(() => lastCount()?.count === 1, `round ${round}: one follower, counted across nodes`);
      expect(await follow(false)).toEqual({ ok: true, following: false });
      // The count told after the answer is the last one: it must be 0, not the count from before the leave.
      await t.until(() => t.received.follow.filter((f) => f.kind === 'followers').length >= 2 * round + 2, `round ${round}: the count after the leave`);
      expect(lastCount()?.count).toBe(0);
    }
    // A follower on node B whose connection closes no longer counts either.
    expect(await follow(true)).toEqual({ ok: true, following: true });
    await t.until(() => lastCount()?.count === 1, 'following again');
    const told = t.received.follow.filter((f) => f.kind === 'followers').length;
    s.close();
    await t.until(() => t.received.follow.filter((f) => f.kind === 'followers').length > told, 'the count after the close');
    expect(lastCount()?.count).toBe(0);
  });

  test('Follow: when the teacher on node A stops presenting, the students following on node B stop and the count drops to 0', async () => {
    const teacher = await createRoom(nodeA);
    const t = client(nodeA, teacher.token);
    await t.ready();
    const s = client(nodeB, (await joinAs(nodeB, teacher.room.code, 'Noor')).token);
    await s.ready();
    const lastCount = () => t.received.follow.filter((f) => f.kind === 'followers').at(-1) as { count: number } | undefined;
    const present = (presenting: boolean) =>
      t.socket.timeout(10_000).emitWithAck(ClientEvent.FOLLOW_PRESENT, { requestId: randomId(), presenting, view: { cx: 0, cy: 0, w: 1280, h: 800 } });
    for (let round = 0; round < 3; round++) {
      expect(await present(true)).toMatchObject({ ok: true });
      expect(await s.socket.timeout(10_000).emitWithAck(ClientEvent.FOLLOW_SET, { requestId: randomId(), following: true })).toEqual({ ok: true, following: true });
      await t.until(() => lastCount()?.count === 1, `round ${round}: one follower on node B`);
      const told = t.received.follow.filter((f) => f.kind === 'followers').length;
      expect(await present(false)).toMatchObject({ ok: true });
      await t.until(() => t.received.follow.filter((f) => f.kind === 'followers').length > told, `round ${round}: the count after presenting ends`);
      expect(lastCount()?.count).toBe(0);
    }
  });

  type Drawer = { s: TestClient; boardId: string; strokeId: string };
  const ROUNDS = 8;
  const ask = (c: TestClient, event: string, packet: unknown) =>
    c.socket.timeout(10_000).emitWithAck(event as typeof ClientEvent.BOARD_MINE, packet as never) as unknown as Promise<{ ok: boolean; board: { id: string } }>;

  /**
   * A teacher on node A starts an activity; each student (name, node) opens and syncs their board;
   * then every student inks ROUNDS packets of one point on their board, all in the same turn each
   * round, so most rounds share a board tick.
   */
  async function classInking(students: readonly (readonly [string, App])[], features: ClientFeature[] = []): Promise<{ t: TestClient; drawers: Drawer[] }> {
    const options = features.length > 0 ? { features } : {};
    const teacher = await createRoom(nodeA);
    const t = client(nodeA, teacher.token, options);
    await t.ready();
    const sockets: TestClient[] = [];
    for (const [name, node] of students) sockets.push(client(node, (await joinAs(node, teacher.room.code, name)).token, options));
    for (const s of sockets) await s.ready();
    expect(await ask(t, ClientEvent.ACTIVITY_START, { activityId: randomUUID(), title: 'Grid', start: { kind: 'blank' } })).toMatchObject({ ok: true });
    const drawers: Drawer[] = [];
    for (const s of sockets) {
      await s.until(() => s.eventsOfKind('activity.updated').length > 0, 'the activity');
      const { board } = await ask(s, ClientEvent.BOARD_MINE, {});
      expect(await ask(s, ClientEvent.BOARD_SYNC, { boardId: board.id })).toMatchObject({ ok: true });
      drawers.push({ s, boardId: board.id, strokeId: randomUUID() });
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const d of drawers) {
        d.s.socket.emit(ClientEvent.INK, { boardId: d.boardId, strokeId: d.strokeId, from: round, points: [[round, round, 0.5]], stroke: '#1e1e1e', strokeWidth: 3 });
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { t, drawers };
  }

  test("issue 22: a teacher on node A following three boards whose students draw on node B in the same ticks gets every board's ink", async () => {
    const { t, drawers } = await classInking([['Ana', nodeB], ['Ben', nodeB], ['Cleo', nodeB]]);
    const pointsAtTeacher = (d: Drawer) =>
      t.received['board.pointers'].filter((p) => p.boardId === d.boardId).flatMap((p) => (p.ink ?? []).filter((e) => e.strokeId === d.strokeId)).flatMap((e) => e.points).length;
    for (const d of drawers) await t.until(() => pointsAtTeacher(d) === ROUNDS, `every point of ${d.boardId}, from node B at node A`, 2_000);
  });

  test("issue 22: a teacher on node A who reads boards.pointers, following boards drawn on both nodes, gets every point once: node A's boards grouped, node B's as board.pointers", async () => {
    const { t, drawers } = await classInking([['Ana', nodeA], ['Ben', nodeA], ['Cleo', nodeB], ['Dev', nodeB]], ['boards.pointers']);
    const inkOf = (c: TestClient, d: Drawer) =>
      [...c.received['boards.pointers'].flatMap((m) => m.batches), ...c.received['board.pointers']]
        .filter((p) => p.boardId === d.boardId)
        .flatMap((p) => (p.ink ?? []).filter((e) => e.strokeId === d.strokeId))
        .flatMap((e) => e.points).length;
    for (const d of drawers) await t.until(() => inkOf(t, d) === ROUNDS, `every point of ${d.boardId} at the teacher`, 2_000);
    for (const d of drawers) await d.s.until(() => inkOf(d.s, d) === ROUNDS, 'every point of their own board', 2_000);
    // Node A's two boards came grouped; node B's only one by one (the grouping is per node).
    const [ana, ben, cleo, dev] = drawers as [Drawer, Drawer, Drawer, Drawer];
    const grouped = new Set(t.received['boards.pointers'].flatMap((m) => m.batches.map((b) => b.boardId)));
    expect(grouped.has(ana.boardId) && grouped.has(ben.boardId)).toBe(true);
    expect(grouped.has(cleo.boardId) || grouped.has(dev.boardId)).toBe(false);
    // A round trip after two more board ticks: nothing arrived twice, and no student got another's board.
    await new Promise((resolve) => setTimeout(resolve, 150));
    for (const d of drawers) {
      await ask(d.s, ClientEvent.BOARD_MINE, {});
      expect(inkOf(t, d)).toBe(ROUNDS);
      expect(d.s.received['boards.pointers']).toEqual([]);
      expect(new Set(d.s.received['board.pointers'].map((p) => p.boardId))).toEqual(new Set([d.boardId]));
    }
  });

  test("I12: on a page, a student on node B receives the teacher's pointer made on node A but not a classmate's, under students-see-the-teacher's-cursor", async () => {
    const teacher = await createRoom(nodeA, 'Ms Rivera', { cursorVisibility: 'teacher' });
    const t = client(nodeA, teacher.token);
    await t.ready();
    const two = randomUUID();
    expect(await ask(t, ClientEvent.PAGE_ADD, { pageId: two, afterPageId: teacher.room.id })).toMatchObject({ ok: true });
    expect(await ask(t, ClientEvent.PAGE_GOTO, { pageId: two })).toMatchObject({ ok: true });
    const ben = await joinAs(nodeA, teacher.room.code, 'Ben');
    const b = client(nodeA, ben.token);
    const a = client(nodeB, (await joinAs(nodeB, teacher.room.code, 'Ana')).token);
    for (const c of [a, b]) await c.ready();
    for (const c of [t, a, b]) expect(await ask(c, ClientEvent.PAGE_SYNC, { pageId: two })).toMatchObject({ ok: true });
    const pointersOf = (c: TestClient, sessionId: string) => c.received['board.pointers'].filter((p) => p.boardId === two).flatMap((p) => p.pointers).filter(([s]) => s === sessionId);
    // Both batches are made on node A; Ana's students' batch crosses to node B without Ben's pointer.
    b.socket.emit(ClientEvent.BOARD_POINTER, { boardId: two, x: 20, y: 2 });
    t.socket.emit(ClientEvent.BOARD_POINTER, { boardId: two, x: 10, y: 1 });
    await t.until(() => pointersOf(t, ben.sessionId).length > 0, "Ben's pointer at the teacher");
    await a.until(() => pointersOf(a, teacher.sessionId).length > 0, "the teacher's pointer from node A at node B");
    const strokeId = randomUUID();
    b.socket.emit(ClientEvent.INK, { boardId: two, strokeId, from: 0, points: [[1, 1, 0.5]], stroke: '#1e1e1e', strokeWidth: 3 });
    await a.until(() => a.received['board.pointers'].some((p) => (p.ink ?? []).some((e) => e.strokeId === strokeId)), "Ben's ink at node B");
    expect(pointersOf(a, ben.sessionId)).toEqual([]);
  });

  test('I5/I9: leases swept by both nodes at once, the leader lock held by neither, are each expired exactly once, everywhere', async () => {
    const teacher = await createRoom(nodeA);
    const t = client(nodeA, teacher.token);
    const { welcome } = await t.ready();
    const watcher = client(nodeB, (await joinAs(nodeB, teacher.room.code, 'Watcher')).token);
    const w = await watcher.ready();
    // Six students whose lids close, half connected to each node.
    const students = [];
    for (let i = 0; i < 6; i++) {
      const node = i % 2 === 0 ? nodeA : nodeB;
      const grant = await joinAs(node, teacher.room.code, `Lid ${i}`);
      await client(node, grant.token).ready();
      students.push(grant);
    }
    clock.advance(LEASE_TTL_MS / 2);
    await t.renew(welcome.leaseRevision + 1, 'teacher-keeps-renewing');
    await watcher.renew(w.welcome.leaseRevision + 1, 'watcher-keeps-renewing');
    clock.advance(LEASE_TTL_MS / 2 + 1);
    // Both nodes sweep at once through the test hook, which skips the leader lock entirely.
    const [a, b] = await Promise.all([nodeA.sweeper.sweepWithoutLeaderLock(), nodeB.sweeper.sweepWithoutLeaderLock()]);
    // The sweeps overlapped: some leases were found by both nodes, and the second delete lost.
    // (lost is found minus won by construction; at most one winner per lease is checked below,
    // in the attendance rows and the expiries each client received.)
    expect(a.lost + b.lost).toBeGreaterThan(0);
    expect(a.expired + b.expired).toBeGreaterThanOrEqual(students.length);
    for (const c of [t, watcher]) {
      for (const student of students) {
        await c.until(() => c.eventsOfKind('presence.expired').find((e) => e.payload.sessionId === student.sessionId), 'the expiry');
      }
    }
    // Again, both at once: nothing is left to expire, nothing more is published.
    const again = await Promise.all([nodeA.sweeper.sweepWithoutLeaderLock(), nodeB.sweeper.sweepWithoutLeaderLock()]);
    expect(again.map((r) => r.expired)).toEqual([0, 0]);
    // A later event from each node has arrived everywhere: any duplicate expiry would have too.
    await t.renew(welcome.leaseRevision + 2, 'teacher-later');
    for (const node of [nodeA, nodeB]) {
      const marker = await joinAs(node, teacher.room.code, `Marker ${node === nodeA ? 'A' : 'B'}`);
      await client(node, marker.token).ready();
      for (const c of [t, watcher]) {
        await c.until(() => c.eventsOfKind('presence.opened').find((e) => e.payload.sessionId === marker.sessionId), 'the marker');
      }
    }
    const facts = await nodeA.store.listAttendance(teacher.room.id);
    for (const student of students) {
      expect(facts.filter((f) => f.kind === 'lease_expired' && f.sessionId === student.sessionId)).toHaveLength(1);
      // The server published it once: each client received exactly one presence.expired per lease.
      for (const c of [t, watcher]) {
        expect(c.eventsOfKind('presence.expired').filter((e) => e.payload.sessionId === student.sessionId)).toHaveLength(1);
      }
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

  test('I9: at most one node leads at a time, across the leader\'s crash: the other takes over, never both', async () => {
    const leaders = () => [nodeA.sweeper.leader, nodeB.sweeper.leader];
    const round = async () => {
      await Promise.all([nodeA.sweeper.pass(), nodeB.sweeper.pass()]);
      return leaders();
    };
    const leaderBackends = () =>
      testDb.database.db
        .execute(
          "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        )
        .then((r) => (r as unknown as { rows: { pid: number }[] }).rows.map((row) => row.pid));
    // Whoever leads now, the one advisory lock is held on one connection.
    let before = await round();
    for (let i = 0; i < 3; i++) before = await round();
    expect(before.filter(Boolean)).toHaveLength(1);
    const [first, second] = before[0] ? [nodeA, nodeB] : [nodeB, nodeA];
    const pids = await leaderBackends();
    expect(pids).toHaveLength(1);

    // The leader's pinned connection dies (as with a crashed node or a cut network).
    await testDb.database.db.execute(`SELECT pg_terminate_backend(${pids[0]})`);
    // pg_terminate_backend only signals: the lock is free once that backend has exited.
    for (let i = 0; i < 100 && (await leaderBackends()).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    // The other node's next pass takes over...
    await second.sweeper.pass();
    expect(second.sweeper.leader).toBe(true);
    // ...and from then on, pass after pass on both nodes at once, only it leads.
    for (let i = 0; i < 10; i++) {
      const now = await round();
      expect(now.filter(Boolean), `round ${i}: leaders ${JSON.stringify(now)}`).toHaveLength(1);
      expect(second.sweeper.leader).toBe(true);
      expect(first.sweeper.leader).toBe(false);
    }
    expect(await leaderBackends()).toHaveLength(1);
  });
  test('P6: one poll answer per student under 50 concurrent attempts from two nodes; the teacher on node A hears answers given on node B', async () => {
    const teacher = await createRoom(nodeA);
    const student = await joinAs(nodeB, teacher.room.code, 'Noor');
    const t = client(nodeA, teacher.token);
    await t.ready();
    // The same student on both nodes (two tabs), 25 attempts from each at once.
    const onA = client(nodeA, student.token);
    const onB = client(nodeB, student.token);
    await onA.ready();
    await onB.ready();
    const pollId = randomUUID();
    const opened = await t.socket.timeout(10_000).emitWithAck(ClientEvent.POLL_OPEN, { requestId: randomId(), pollId, question: 'Which?', kind: 'abcd' });
    expect(opened).toMatchObject({ ok: true });
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 === 0 ? onA : onB).socket.timeout(20_000).emitWithAck(ClientEvent.POLL_ANSWER, { requestId: randomId(), pollId, choice: i % 4 }),
      ),
    );
    expect(replies.every((r) => r.ok)).toBe(true);
    const view = await t.socket.timeout(10_000).emitWithAck(ClientEvent.POLL_GET, {});
    if (!view.ok) throw new Error(view.error.code);
    expect(view.answers.map((a: { userId: string }) => a.userId)).toEqual([student.userId]);
    expect(view.poll?.answered).toBe(1);
    // An answer given through node B reaches the teacher's socket on node A (the adapter's teachers' channel).
    const other = await joinAs(nodeB, teacher.room.code, 'Ola');
    const onlyB = client(nodeB, other.token);
    await onlyB.ready();
    expect(await onlyB.socket.timeout(10_000).emitWithAck(ClientEvent.POLL_ANSWER, { requestId: randomId(), pollId, choice: 2 })).toMatchObject({ ok: true });
    const heard = await t.until(
      () => t.received['poll.answers'].map((p) => p.answers[0]!).find((a) => a.userId === other.userId),
      'the answer from node B at the teacher on node A',
    );
    expect(heard.choice).toBe(2);
  });
});

/**
 * The classic Redis adapter (REDIS_ADAPTER's default) leaves a room across nodes by publishing the
 * leave and applying it, on every node including its own, when the message comes back: counting
 * right after `socketsLeave` counted this node's sockets as if they had not left.
 */
describe.skipIf(skip !== null)(`two server nodes with the classic Redis adapter${skip ? ` (skipped: ${skip})` : ''}`, () => {
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
    secondDb = await openDatabase({ kind: 'postgres', url: testDb.url!, poolSize: 5 });
    const env = { REDIS_URL: process.env.TEST_REDIS_URL!, REDIS_ADAPTER: 'classic', REDIS_PREFIX: `classic-${randomId().slice(0, 8)}` };
    nodeA = await startTestServer(testDb.database, { clock, env });
    nodeB = await startTestServer(secondDb, { clock, env });
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

  test('Follow: when the teacher on node A stops presenting, her count drops to 0 with followers on her own node and on node B', async () => {
    const teacher = await createRoom(nodeA);
    const t = client(nodeA, teacher.token);
    await t.ready();
    const students = [client(nodeA, (await joinAs(nodeA, teacher.room.code, 'Noor')).token), client(nodeB, (await joinAs(nodeB, teacher.room.code, 'Omar')).token)];
    for (const s of students) await s.ready();
    const counts = () => t.received.follow.filter((f) => f.kind === 'followers') as Array<{ count: number }>;
    const present = (presenting: boolean) =>
      t.socket.timeout(10_000).emitWithAck(ClientEvent.FOLLOW_PRESENT, { requestId: randomId(), presenting, view: { cx: 0, cy: 0, w: 1280, h: 800 } });
    for (let round = 0; round < 3; round++) {
      expect(await present(true)).toMatchObject({ ok: true });
      for (const s of students) expect(await s.socket.timeout(10_000).emitWithAck(ClientEvent.FOLLOW_SET, { requestId: randomId(), following: true })).toEqual({ ok: true, following: true });
      await t.until(() => counts().at(-1)?.count === 2, `round ${round}: two followers, one per node`);
      const told = counts().length;
      // The count told with the answer is the one after everyone stopped following.
      expect(await present(false)).toMatchObject({ ok: true });
      await t.until(() => counts().length > told, `round ${round}: the count after presenting ends`);
      expect(counts().at(-1)?.count).toBe(0);
    }
  });

  test('Follow: after students on both nodes stop following, the teacher on node A hears the count drop to 0', async () => {
    const teacher = await createRoom(nodeA);
    const t = client(nodeA, teacher.token);
    await t.ready();
    const students = [client(nodeA, (await joinAs(nodeA, teacher.room.code, 'Noor')).token), client(nodeB, (await joinAs(nodeB, teacher.room.code, 'Omar')).token)];
    for (const s of students) await s.ready();
    const counts = () => t.received.follow.filter((f) => f.kind === 'followers') as Array<{ count: number }>;
    const follow = (s: TestClient, following: boolean) => s.socket.timeout(10_000).emitWithAck(ClientEvent.FOLLOW_SET, { requestId: randomId(), following });
    for (let round = 0; round < 3; round++) {
      for (const s of students) expect(await follow(s, true)).toEqual({ ok: true, following: true });
      await t.until(() => counts().at(-1)?.count === 2, `round ${round}: two followers`);
      for (const s of students) expect(await follow(s, false)).toEqual({ ok: true, following: false });
      await t.until(() => counts().at(-1)?.count === 0, `round ${round}: none after both stopped`);
    }
  });
});
