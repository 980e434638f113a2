import { randomUUID } from 'node:crypto';
import { ClientEvent, ErrorCode, type EditPolicy, type ElementShape } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
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

  async function classroom() {
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

  const setPolicy = (c: TestClient, editPolicy: EditPolicy) =>
    c.socket.timeout(10_000).emitWithAck(ClientEvent.LESSON_SETTINGS, { requestId: rid(), settings: { editPolicy } });

  const create = (c: TestClient, shape: ElementShape, id = randomUUID()) =>
    c.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_CREATE, { requestId: rid(), id, shape });
  const acquire = (c: TestClient, elementId: string, requestId = rid()) =>
    c.socket.timeout(10_000).emitWithAck(ClientEvent.LOCK_ACQUIRE, { requestId, elementId });
  const release = (c: TestClient, elementId: string, generation: number, shape?: ElementShape) =>
    c.socket.timeout(10_000).emitWithAck(ClientEvent.LOCK_RELEASE, {
      requestId: rid(),
      elementId,
      generation,
      ...(shape ? { shape } : {}),
    });

  test('an element created by one client reaches every screen once, and a retried create is idempotent', async () => {
    const { t, a } = await classroom();
    const id = randomUUID();
    const first = await create(a, rect(10, 20), id);
    expect(first).toMatchObject({ ok: true, element: { id, version: 1, shape: rect(10, 20), lock: null } });
    const again = await create(a, rect(10, 20), id);
    expect(again).toMatchObject({ ok: true, element: { id, version: 1 } });
    await t.until(() => t.eventsOfKind('element.created').find((e) => e.payload.element.id === id), 'element.created');
    expect(t.eventsOfKind('element.created').filter((e) => e.payload.element.id === id)).toHaveLength(1);
    // Someone else cannot take over an id.
    expect(await create(t, rect(0, 0), id)).toMatchObject({ ok: false, error: { code: ErrorCode.CONFLICT } });
  });

  test('updates apply only against the current version; a deletion is a tombstone nothing resurrects', async () => {
    const { teacher, t, a, b } = await classroom();
    const created = await create(a, rect(0, 0));
    if (!created.ok) throw new Error('create failed');
    const id = created.element.id;
    const update = (c: TestClient, baseVersion: number, shape: ElementShape) =>
      c.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_UPDATE, { requestId: rid(), id, baseVersion, shape });
    expect(await update(b, 1, rect(5, 5))).toMatchObject({ ok: true, element: { version: 2 } });
    expect(await update(a, 1, rect(9, 9))).toMatchObject({ ok: false, error: { code: ErrorCode.CONFLICT } });
    const deleted = await b.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_DELETE, { requestId: rid(), id });
    expect(deleted).toMatchObject({ ok: true, element: { version: 3 } });
    expect(await update(a, 3, rect(1, 1))).toMatchObject({ ok: false, error: { code: ErrorCode.NOT_FOUND } });
    expect(await create(a, rect(0, 0), id)).toMatchObject({ ok: false, error: { code: ErrorCode.NOT_FOUND } });
    await t.until(() => t.eventsOfKind('element.deleted').find((e) => e.payload.elementId === id), 'element.deleted');
    const snapshot = await app.store.loadRoomSnapshot(teacher.room.id);
    expect(snapshot?.elements.find((e) => e.id === id)).toBeUndefined();
  });

  /**
   * A client's own lock on a spare element, to prove its earlier packets were processed: a move it
   * sends there after them has reached `viewer` (moves are handled in order, synchronously, per socket).
   */
  async function beaconOf(c: TestClient, viewer: TestClient) {
    const spare = await create(c, rect(-500, -500));
    if (!spare.ok) throw new Error('create failed');
    const held = await acquire(c, spare.element.id);
    if (!held.ok) throw new Error(`acquire failed: ${JSON.stringify(held)}`);
    let x = 0;
    return async () => {
      x++;
      c.socket.emit(ClientEvent.LOCK_MOVE, { elementId: spare.element.id, generation: held.grant.generation, x, y: 0 });
      await viewer.until(
        () => viewer.received.cursors.flatMap((batch) => batch.drags ?? []).find((d) => d.elementId === spare.element.id && d.x === x),
        'the beacon move',
      );
    };
  }

  test('locks: one holder at a time, idempotent acquire, drags fan out only under the current generation', async () => {
    const { t, a, b } = await classroom();
    const created = await create(a, rect(0, 0));
    if (!created.ok) throw new Error('create failed');
    const id = created.element.id;
    const [afterA, afterB] = [await beaconOf(a, t), await beaconOf(b, t)];
    const requestId = rid();
    const grant = await acquire(a, id, requestId);
    if (!grant.ok) throw new Error(`acquire failed: ${JSON.stringify(grant)}`);
    expect(grant.grant).toMatchObject({ elementId: id, expiresInMs: LOCK_FIRST_TERM_MS });
    const g = grant.grant.generation;
    // A retried request gets the same grant back, not a second one.
    expect(await acquire(a, id, requestId)).toMatchObject({ ok: true, grant: { generation: g } });
    expect(await acquire(b, id)).toMatchObject({ ok: false, error: { code: ErrorCode.LOCKED } });
    await t.until(() => t.eventsOfKind('lock.granted').find((e) => e.payload.elementId === id), 'lock.granted');
    expect(t.eventsOfKind('lock.granted').filter((e) => e.payload.elementId === id)).toHaveLength(1);

    a.socket.emit(ClientEvent.LOCK_MOVE, { elementId: id, generation: g, x: 40, y: 50 });
    const drag = await t.until(
      () => t.received.cursors.flatMap((batch) => batch.drags ?? []).find((d) => d.elementId === id),
      'the drag at the teacher',
    );
    expect(drag).toMatchObject({ generation: g, x: 40, y: 50 });
    // A move naming another generation, or from someone who does not hold the lock, is dropped.
    b.socket.emit(ClientEvent.LOCK_MOVE, { elementId: id, generation: g, x: 999, y: 999 });
    a.socket.emit(ClientEvent.LOCK_MOVE, { elementId: id, generation: g + 7, x: 888, y: 888 });
    a.socket.emit(ClientEvent.LOCK_MOVE, { elementId: id, generation: g, x: 60, y: 70 });
    await t.until(
      () => t.received.cursors.flatMap((batch) => batch.drags ?? []).find((d) => d.elementId === id && d.x === 60),
      'the second genuine move',
    );
    // Both senders' later packets have had their effect: the dropped moves were processed.
    await afterA();
    await afterB();
    const seen = t.received.cursors.flatMap((batch) => batch.drags ?? []).filter((d) => d.elementId === id);
    expect(seen.some((d) => d.x === 999 || d.x === 888)).toBe(false);

    const done = await release(a, id, g, rect(60, 70));
    expect(done).toMatchObject({ ok: true, element: { version: 2, shape: rect(60, 70), lock: null } });
    // The former holder's late commit is refused and the element stays where it is (I4).
    expect(await release(a, id, g, rect(500, 500))).toMatchObject({ ok: false, error: { code: ErrorCode.STALE_GENERATION } });
    const next = await acquire(b, id);
    expect(next).toMatchObject({ ok: true, grant: { generation: g + 1 } });
    a.socket.emit(ClientEvent.LOCK_MOVE, { elementId: id, generation: g, x: 777, y: 777 });
    b.socket.emit(ClientEvent.LOCK_MOVE, { elementId: id, generation: g + 1, x: 1, y: 2 });
    await t.until(
      () => t.received.cursors.flatMap((batch) => batch.drags ?? []).find((d) => d.elementId === id && d.generation === g + 1),
      'the new holder move',
    );
    await afterA();
    expect(t.received.cursors.flatMap((batch) => batch.drags ?? []).some((d) => d.x === 777)).toBe(false);
    const released = await t.until(
      () => t.eventsOfKind('lock.released').find((e) => e.payload.elementId === id && e.payload.generation === g),
      'lock.released',
    );
    expect(released.payload.reason).toBe('released');
  });

  test('a lock ends on its own timeout, and when its holder\'s presence lease expires', async () => {
    const { t, a, b, ana } = await classroom();
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
    const { t, a, b } = await classroom();
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
    const { teacher, ana, t, a } = await classroom();
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
