import { randomUUID } from 'node:crypto';
import { ClientEvent, ErrorCode, type BoardInfo, type DragEntry, type EditPolicy, type ElementShape } from '@wb/protocol';
import { beforeAll, describe, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { TestClient, createRoom, describeOnEachDatabase, joinAs, post } from './support.ts';

const LOCK_FIRST_TERM_MS = 2_000;
const LOCK_TTL_MS = 5_000;
const rect = (x: number, y: number): ElementShape => ({
  kind: 'rect',
  x,
  y,
  w: 100,
  h: 60,
  stroke: '#1f2937',
  fill: 'transparent',
  strokeWidth: 2,
});
const rid = () => `req-${randomUUID()}`;

// Test hooks on: the in-flight test holds a student's packets at the server's door.
const env = { LOCK_FIRST_TERM_MS: String(LOCK_FIRST_TERM_MS), LOCK_TTL_MS: String(LOCK_TTL_MS), WB_TEST_HOOKS: '1' };

describeOnEachDatabase('elements and drag locks', { start: new Date('2030-04-01T09:00:00Z'), env }, (suite) => {
  const { client, clock } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  async function lesson() {
    const teacher = await createRoom(app);
    const ana = await joinAs(app, teacher.room.code, 'Ana');
    const ben = await joinAs(app, teacher.room.code, 'Ben');
    const t = client(app, teacher.token);
    const a = client(app, ana.token);
    const b = client(app, ben.token);
    await Promise.all([t.ready(), a.ready(), b.ready()]);
    // These tests are about versions and locks between students, so everyone edits everything.
    expect(await setPolicy(t, 'everyone')).toMatchObject({ ok: true, settings: { editPolicy: 'everyone' } });
    return { teacher, ana, ben, t, a, b };
  }

  /**
   * Every board is the same board (issue 37): the rules of versions, tombstones and lock
   * generations below are proved on the class board and on a student's private board alike, on the
   * same handlers and store operations. On the class board (policy `everyone`) Ana's work is
   * changed by another student, Ben; on Ana's private board, which only she and the teacher may
   * change, by the teacher. The teacher watches in both.
   */
  type BoardKind = 'class board' | 'private board';
  async function classroom(kind: BoardKind) {
    const room = await lesson();
    const { teacher, ana, t, a } = room;
    if (kind === 'class board') {
      return { ...room, other: room.b, on: {}, roomId: teacher.room.id, dragsSeenBy: (c: TestClient): DragEntry[] => c.received.cursors.flatMap((batch) => batch.drags ?? []) };
    }
    const started = await t.socket.timeout(10_000).emitWithAck(ClientEvent.ACTIVITY_START, { activityId: randomUUID(), title: 'Halves', start: { kind: 'blank' } });
    if (!started.ok) throw new Error(`activity.start: ${JSON.stringify(started)}`);
    const board = started.boards.find((b: BoardInfo) => b.ownerUserId === ana.userId)!;
    await a.until(() => a.eventsOfKind('activity.updated').length > 0, 'activity.updated');
    expect(await a.socket.timeout(10_000).emitWithAck(ClientEvent.BOARD_MINE, {})).toMatchObject({ ok: true, board: { id: board.id } });
    for (const c of [a, t]) expect(await c.socket.timeout(10_000).emitWithAck(ClientEvent.BOARD_SYNC, { boardId: board.id })).toMatchObject({ ok: true });
    return {
      ...room,
      other: t,
      on: { boardId: board.id },
      roomId: board.id,
      dragsSeenBy: (c: TestClient): DragEntry[] =>
        [...c.received['board.pointers'], ...c.received['boards.pointers'].flatMap((m) => m.batches)].filter((batch) => batch.boardId === board.id).flatMap((batch) => batch.drags ?? []),
    };
  }

  const setPolicy = (c: TestClient, editPolicy: EditPolicy) =>
    c.socket.timeout(10_000).emitWithAck(ClientEvent.LESSON_SETTINGS, { requestId: rid(), settings: { editPolicy } });

  /** The board a request is for: the class board (`{}`) or a private one (`{ boardId }`). */
  type On = { boardId?: string };
  const create = (c: TestClient, shape: ElementShape, id = randomUUID(), on: On = {}) =>
    c.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_CREATE, { requestId: rid(), id, shape, ...on });
  const acquire = (c: TestClient, elementId: string, requestId = rid(), on: On = {}) =>
    c.socket.timeout(10_000).emitWithAck(ClientEvent.LOCK_ACQUIRE, { requestId, elementId, ...on });
  const release = (c: TestClient, elementId: string, generation: number, shape?: ElementShape, on: On = {}) =>
    c.socket.timeout(10_000).emitWithAck(ClientEvent.LOCK_RELEASE, {
      requestId: rid(),
      elementId,
      generation,
      ...(shape ? { shape } : {}),
      ...on,
    });

  describe.each<BoardKind>(['class board', 'private board'])('on the %s', (kind) => {
    test(`I1: an element created by one client reaches every screen once, and a retried create is idempotent (${kind})`, async () => {
      const { t, a, on } = await classroom(kind);
      const id = randomUUID();
      const first = await create(a, rect(10, 20), id, on);
      expect(first).toMatchObject({ ok: true, element: { id, version: 1, shape: rect(10, 20), lock: null } });
      const again = await create(a, rect(10, 20), id, on);
      expect(again).toMatchObject({ ok: true, element: { id, version: 1 } });
      await t.until(() => t.eventsOfKind('element.created').find((e) => e.payload.element.id === id), 'element.created');
      expect(t.eventsOfKind('element.created').filter((e) => e.payload.element.id === id)).toHaveLength(1);
      // Someone else cannot take over an id.
      expect(await create(t, rect(0, 0), id, on)).toMatchObject({ ok: false, error: { code: ErrorCode.CONFLICT } });
    });

    test(`I1: updates apply only against the current version; a deletion is a tombstone nothing resurrects (${kind})`, async () => {
      const { t, a, other: b, on, roomId } = await classroom(kind);
      const created = await create(a, rect(0, 0), undefined, on);
      if (!created.ok) throw new Error('create failed');
      const id = created.element.id;
      const update = (c: TestClient, baseVersion: number, shape: ElementShape) =>
        c.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_UPDATE, { requestId: rid(), id, baseVersion, shape, ...on });
      expect(await update(b, 1, rect(5, 5))).toMatchObject({ ok: true, element: { version: 2 } });
      // A late update made against the version before: refused, the element does not go back.
      expect(await update(a, 1, rect(9, 9))).toMatchObject({ ok: false, error: { code: ErrorCode.CONFLICT } });
      const deleted = await b.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_DELETE, { requestId: rid(), id, ...on });
      expect(deleted).toMatchObject({ ok: true, element: { version: 3 } });
      // A repeated delete is the same answer, not a second deletion.
      expect(await update(a, 3, rect(1, 1))).toMatchObject({ ok: false, error: { code: ErrorCode.NOT_FOUND } });
      expect(await create(a, rect(0, 0), id, on)).toMatchObject({ ok: false, error: { code: ErrorCode.NOT_FOUND } });
      await t.until(() => t.eventsOfKind('element.deleted').find((e) => e.payload.elementId === id), 'element.deleted');
      expect(t.eventsOfKind('element.deleted').filter((e) => e.payload.elementId === id).map((e) => e.roomId)).toEqual([roomId]);
      const snapshot = await app.store.loadRoomSnapshot(roomId);
      expect(snapshot?.elements.find((e) => e.id === id)).toBeUndefined();
    });

    /**
     * A client's own lock on a spare element, to prove its earlier packets were processed: a move it
     * sends there after them has reached `viewer` (moves are handled in order, synchronously, per socket).
     */
    async function beaconOf(c: TestClient, viewer: TestClient, on: On, dragsSeenBy: (c: TestClient) => DragEntry[]) {
      const spare = await create(c, rect(-500, -500), undefined, on);
      if (!spare.ok) throw new Error('create failed');
      const held = await acquire(c, spare.element.id, undefined, on);
      if (!held.ok) throw new Error(`acquire failed: ${JSON.stringify(held)}`);
      let x = 0;
      return async () => {
        x++;
        c.socket.emit(ClientEvent.LOCK_MOVE, { elementId: spare.element.id, generation: held.grant.generation, x, y: 0, ...on });
        await viewer.until(() => dragsSeenBy(viewer).find((d) => d.elementId === spare.element.id && d.x === x), 'the beacon move');
      };
    }

    test(`I1, I4: locks: one holder at a time, idempotent acquire, drags fan out only under the current generation (${kind})`, async () => {
      const { t, a, other: b, on, dragsSeenBy } = await classroom(kind);
      const created = await create(a, rect(0, 0), undefined, on);
      if (!created.ok) throw new Error('create failed');
      const id = created.element.id;
      const [afterA, afterB] = [await beaconOf(a, t, on, dragsSeenBy), await beaconOf(b, t, on, dragsSeenBy)];
      const requestId = rid();
      const grant = await acquire(a, id, requestId, on);
      if (!grant.ok) throw new Error(`acquire failed: ${JSON.stringify(grant)}`);
      expect(grant.grant).toMatchObject({ elementId: id, expiresInMs: LOCK_FIRST_TERM_MS });
      const g = grant.grant.generation;
      // A retried request gets the same grant back, not a second one.
      expect(await acquire(a, id, requestId, on)).toMatchObject({ ok: true, grant: { generation: g } });
      expect(await acquire(b, id, undefined, on)).toMatchObject({ ok: false, error: { code: ErrorCode.LOCKED } });
      await t.until(() => t.eventsOfKind('lock.granted').find((e) => e.payload.elementId === id), 'lock.granted');
      expect(t.eventsOfKind('lock.granted').filter((e) => e.payload.elementId === id)).toHaveLength(1);

      a.socket.emit(ClientEvent.LOCK_MOVE, { elementId: id, generation: g, x: 40, y: 50, ...on });
      const drag = await t.until(
        () => dragsSeenBy(t).find((d) => d.elementId === id),
        'the drag at the teacher',
      );
      expect(drag).toMatchObject({ generation: g, x: 40, y: 50 });
      // A move naming another generation, or from someone who does not hold the lock, is dropped.
      b.socket.emit(ClientEvent.LOCK_MOVE, { elementId: id, generation: g, x: 999, y: 999, ...on });
      a.socket.emit(ClientEvent.LOCK_MOVE, { elementId: id, generation: g + 7, x: 888, y: 888, ...on });
      // Both senders' later packets have had their effect, and their tick has gone out: the moves
      // above were processed, and had one been let through the teacher would hold it now (a
      // genuine move sent before the tick went out would have superseded it unseen).
      await afterA();
      await afterB();
      a.socket.emit(ClientEvent.LOCK_MOVE, { elementId: id, generation: g, x: 60, y: 70, ...on });
      await t.until(
        () => dragsSeenBy(t).find((d) => d.elementId === id && d.x === 60),
        'the second genuine move',
      );
      const seen = dragsSeenBy(t).filter((d) => d.elementId === id);
      expect(seen.some((d) => d.x === 999 || d.x === 888)).toBe(false);

      const done = await release(a, id, g, rect(60, 70), on);
      expect(done).toMatchObject({ ok: true, element: { version: 2, shape: rect(60, 70), lock: null } });
      // The former holder's late commit is refused and the element stays where it is (I4).
      expect(await release(a, id, g, rect(500, 500), on)).toMatchObject({ ok: false, error: { code: ErrorCode.STALE_GENERATION } });
      const next = await acquire(b, id, undefined, on);
      expect(next).toMatchObject({ ok: true, grant: { generation: g + 1 } });
      a.socket.emit(ClientEvent.LOCK_MOVE, { elementId: id, generation: g, x: 777, y: 777, ...on });
      b.socket.emit(ClientEvent.LOCK_MOVE, { elementId: id, generation: g + 1, x: 1, y: 2, ...on });
      await t.until(
        () => dragsSeenBy(t).find((d) => d.elementId === id && d.generation === g + 1),
        'the new holder move',
      );
      await afterA();
      expect(dragsSeenBy(t).some((d) => d.x === 777)).toBe(false);
      const released = await t.until(
        () => t.eventsOfKind('lock.released').find((e) => e.payload.elementId === id && e.payload.generation === g),
        'lock.released',
      );
      expect(released.payload.reason).toBe('released');
    });
  });

  test('a lock ends on its own timeout, and when its holder\'s presence lease expires', async () => {
    const { t, a, b, ana } = await lesson();
    const one = await create(a, rect(0, 0));
    const two = await create(a, rect(200, 0));
    if (!one.ok || !two.ok) throw new Error('create failed');
    // Held but never confirmed by a move: the short first term ends it.
    const grant = await acquire(b, one.element.id);
    if (!grant.ok) throw new Error('acquire failed');
    clock.advance(LOCK_FIRST_TERM_MS + 1);
    await app.sweeper.pass();
    const expired = await t.until(
      () => t.eventsOfKind('lock.released').find((e) => e.payload.elementId === one.element.id),
      'the lock timeout',
    );
    expect(expired.payload.reason).toBe('expired');
    expect(await acquire(a, one.element.id)).toMatchObject({ ok: true, grant: { generation: grant.grant.generation + 1 } });

    // Ana holds the second element, then her laptop lid closes: her lease expiry frees it.
    const held = await acquire(a, two.element.id);
    if (!held.ok) throw new Error('acquire failed');
    const leaseTtl = 120_000;
    clock.advance(leaseTtl + 1);
    await app.sweeper.pass();
    const gone = await t.until(
      () => t.eventsOfKind('lock.released').find((e) => e.payload.elementId === two.element.id),
      'the holder-gone release',
    );
    expect(['holder_gone', 'expired']).toContain(gone.payload.reason);
    const expiry = t.eventsOfKind('presence.expired').find((e) => e.payload.userId === ana.userId);
    expect(expiry).toBeDefined();
    expect((await app.store.loadRoomSnapshot(expiry!.roomId))?.elements.find((e) => e.id === two.element.id)?.lock).toBeNull();
  });

  test('teacher controls: pin refuses students, break frees a lock, a look-only lesson is read-only for students', async () => {
    const { t, a, b } = await lesson();
    const created = await create(a, rect(0, 0));
    if (!created.ok) throw new Error('create failed');
    const id = created.element.id;
    const held = await acquire(b, id);
    if (!held.ok) throw new Error('acquire failed');
    expect(await a.socket.timeout(10_000).emitWithAck(ClientEvent.LOCK_BREAK, { requestId: rid(), elementId: id })).toMatchObject({
      ok: false,
      error: { code: ErrorCode.FORBIDDEN },
    });
    expect(await t.socket.timeout(10_000).emitWithAck(ClientEvent.LOCK_BREAK, { requestId: rid(), elementId: id })).toMatchObject({
      ok: true,
    });
    expect(await release(b, id, held.grant.generation, rect(9, 9))).toMatchObject({ ok: false, error: { code: ErrorCode.STALE_GENERATION } });

    const pinned = await t.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_PIN, { requestId: rid(), elementId: id, pinned: true });
    expect(pinned).toMatchObject({ ok: true, element: { pinned: true } });
    expect(await acquire(a, id)).toMatchObject({ ok: false, error: { code: ErrorCode.FORBIDDEN } });
    expect(await acquire(t, id)).toMatchObject({ ok: true });

    expect(await setPolicy(a, 'look')).toMatchObject({ ok: false, error: { code: ErrorCode.FORBIDDEN } });
    expect(await setPolicy(t, 'look')).toEqual({ ok: true, settings: { editPolicy: 'look', cursorVisibility: 'teacher', laserAllowed: false, paper: 'dots' } });
    await a.until(() => a.eventsOfKind('room.updated').find((e) => e.payload.settings.editPolicy === 'look'), 'room.updated');
    expect(await create(a, rect(1, 1))).toMatchObject({ ok: false, error: { code: ErrorCode.FORBIDDEN_BY_POLICY } });
    expect(await create(t, rect(1, 1))).toMatchObject({ ok: true });
  });

  test('a revoked student\'s packets in flight are rejected and their lock is freed', async () => {
    const { teacher, ana, t, a } = await lesson();
    const created = await create(a, rect(0, 0));
    if (!created.ok) throw new Error('create failed');
    const held = await acquire(a, created.element.id);
    if (!held.ok) throw new Error('acquire failed');
    // A create and a commit are in flight (held at the server's door) when the revocation commits.
    const hold = (on: boolean) => post<{ held?: number }>(`${app.url}/__test/hold-inbound`, { sessionId: ana.sessionId, hold: on });
    await hold(true);
    const newId = randomUUID();
    // Settled from the start: the revocation may close the socket (rejecting both) before they are answered.
    const inFlight = Promise.allSettled([create(a, rect(3, 3), newId), release(a, created.element.id, held.grant.generation, rect(400, 400))]);
    await expect.poll(async () => (await hold(true)).body.held).toBe(2);
    await post(`${app.url}/api/rooms/${teacher.room.code}/members/${ana.userId}/revoke`, {}, teacher.token);
    await hold(false);
    const [createAnswer, releaseAnswer] = await inFlight;
    await t.until(() => t.eventsOfKind('member.revoked').find((e) => e.payload.userId === ana.userId), 'member.revoked');
    const snapshot = await app.store.loadRoomSnapshot(teacher.room.id);
    const element = snapshot!.elements.find((e) => e.id === created.element.id)!;
    expect(element.lock).toBeNull();
    // Nothing Ana sent is applied after the revocation committed.
    const revokedAt = t.eventsOfKind('member.revoked').find((e) => e.payload.userId === ana.userId)!.revision;
    const afterRevocation = t.received['room.event'].filter(
      (e) => e.revision > revokedAt && (e.kind === 'element.created' || e.kind === 'element.updated'),
    );
    expect(afterRevocation).toEqual([]);
    // Neither was applied: each was refused as revoked, or its socket was closed before an answer.
    for (const answer of [createAnswer, releaseAnswer]) {
      const cut = answer.status === 'rejected';
      const refused = answer.status === 'fulfilled' && !answer.value.ok && answer.value.error?.code === ErrorCode.MEMBERSHIP_REVOKED;
      expect(cut || refused, JSON.stringify(answer)).toBe(true);
    }
    expect(snapshot!.elements.find((e) => e.id === newId)).toBeUndefined();
    expect({ shape: element.shape, version: element.version }).toEqual({ shape: rect(0, 0), version: 1 });
  });
});
