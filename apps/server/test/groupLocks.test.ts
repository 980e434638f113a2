import { randomUUID } from 'node:crypto';
import { ClientEvent, ErrorCode, MAX_GROUP_LOCK_ELEMENTS, type ElementShape, type LockGrant } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { TestClient, createRoom, describeOnEachDatabase, joinAs } from './support.ts';

const LOCK_FIRST_TERM_MS = 2_000;
const rect = (x: number): ElementShape => ({ kind: 'rect', x, y: 0, w: 100, h: 60, stroke: '#1f2937', fill: 'transparent', strokeWidth: 2 });
const rid = () => `req-${randomUUID()}`;

describeOnEachDatabase('group drag locks through sockets', { start: new Date('2030-04-01T09:00:00Z'), env: { LOCK_FIRST_TERM_MS: String(LOCK_FIRST_TERM_MS) } }, (suite) => {
  const { client } = suite;
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
    const policy = await t.socket.timeout(10_000).emitWithAck(ClientEvent.LESSON_SETTINGS, { requestId: rid(), settings: { editPolicy: 'everyone' } });
    expect(policy).toMatchObject({ ok: true });
    const ids: string[] = [];
    for (const x of [0, 200, 400]) {
      const created = await a.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_CREATE, { requestId: rid(), id: randomUUID(), shape: rect(x) });
      if (!created.ok) throw new Error('create failed');
      ids.push(created.element.id);
    }
    return { ana, ben, t, a, b, ids };
  }

  const acquireMany = (c: TestClient, elementIds: string[], requestId = rid()) =>
    c.socket.timeout(10_000).emitWithAck(ClientEvent.LOCK_ACQUIRE_MANY, { requestId, elementIds });

  test('G2: a group with one element held by another is refused whole, naming who holds it, and nothing is taken', async () => {
    const { ben, a, b, ids } = await classroom();
    const [first, second, third] = ids as [string, string, string];
    const single = await b.socket.timeout(10_000).emitWithAck(ClientEvent.LOCK_ACQUIRE, { requestId: rid(), elementId: second });
    expect(single).toMatchObject({ ok: true });
    const refused = await acquireMany(a, ids);
    expect(refused).toEqual({
      ok: false,
      error: { code: ErrorCode.LOCKED, message: expect.any(String), heldBy: { elementId: second, userId: ben.userId } },
    });
    // Ana took nothing: Ben can take the other two as a group.
    expect(await acquireMany(b, [first, third])).toMatchObject({ ok: true, grants: [{ elementId: first }, { elementId: third }] });
  });

  test('G1: a granted group shows every element locked to the others, moves under each generation, and commits each', async () => {
    const { ana, t, a, ids } = await classroom();
    const requestId = rid();
    const granted = await acquireMany(a, ids, requestId);
    if (!granted.ok) throw new Error(`group refused: ${JSON.stringify(granted)}`);
    expect(granted.grants.map((g: LockGrant) => g.elementId)).toEqual(ids);
    expect(granted.grants.every((g: LockGrant) => g.expiresInMs === LOCK_FIRST_TERM_MS)).toBe(true);
    // A retry (a lost reply) gets the same grants.
    const sameGrants = granted.grants.map((g: LockGrant) => ({ elementId: g.elementId, generation: g.generation }));
    expect(await acquireMany(a, ids, requestId)).toMatchObject({ ok: true, grants: sameGrants });
    // The teacher sees all three locked by Ana.
    await t.until(() => ids.every((id) => t.eventsOfKind('lock.granted').some((e) => e.payload.elementId === id && e.payload.userId === ana.userId)), 'three lock.granted');
    for (const g of granted.grants) a.socket.emit(ClientEvent.LOCK_MOVE, { elementId: g.elementId, generation: g.generation, x: 1_000, y: 50 });
    await t.until(
      () => ids.every((id) => t.received.cursors.flatMap((batch) => batch.drags ?? []).some((d) => d.elementId === id && d.x === 1_000)),
      'three drags',
    );
    // Pointer-up releases them all at once, each with its final shape.
    const released = await Promise.all(
      granted.grants.map((g: LockGrant, i: number) =>
        a.socket.timeout(10_000).emitWithAck(ClientEvent.LOCK_RELEASE, { requestId: rid(), elementId: g.elementId, generation: g.generation, shape: rect(1_000 + i * 200) }),
      ),
    );
    expect(released).toMatchObject([0, 1, 2].map((i) => ({ ok: true, element: { lock: null, shape: { x: 1_000 + i * 200 } } })));
    await t.until(() => ids.every((id) => t.eventsOfKind('lock.released').some((e) => e.payload.elementId === id)), 'three lock.released');
  });

  test(`G8: a group request is bounded (${MAX_GROUP_LOCK_ELEMENTS} elements, distinct) at the edge`, async () => {
    const { a, ids } = await classroom();
    const tooMany = Array.from({ length: MAX_GROUP_LOCK_ELEMENTS + 1 }, () => randomUUID());
    expect(await acquireMany(a, tooMany)).toMatchObject({ ok: false, error: { code: ErrorCode.BAD_REQUEST } });
    expect(await acquireMany(a, [ids[0] as string, ids[0] as string])).toMatchObject({ ok: false, error: { code: ErrorCode.BAD_REQUEST } });
    expect(await acquireMany(a, [])).toMatchObject({ ok: false, error: { code: ErrorCode.BAD_REQUEST } });
  });
});
