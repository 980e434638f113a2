import { randomUUID } from 'node:crypto';
import { ClientEvent, ErrorCode, raisedHandQueue } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { createRoom, describeOnEachDatabase, joinAs, type TestClient } from './support.ts';

const rid = () => randomUUID().replaceAll('-', '');
const ask = <E extends typeof ClientEvent.HAND_RAISE | typeof ClientEvent.HAND_LOWER | typeof ClientEvent.HAND_LOWER_ALL>(
  c: TestClient,
  event: E,
  extra: Record<string, unknown> = {},
) => c.socket.timeout(10_000).emitWithAck(event as typeof ClientEvent.HAND_LOWER, { requestId: rid(), ...extra });

describeOnEachDatabase('raise hand', {}, (suite) => {
  const { client } = suite;
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
    for (const c of [t, a, b]) await c.ready();
    return { teacher, ana, ben, t, a, b };
  }
  const handsAt = (c: TestClient) => c.eventsOfKind('member.hand').map((e) => [e.payload.userId, e.payload.raisedAt !== null]);

  test('H1: a raised hand reaches the teacher in raising order and survives the student\'s reconnect (it is lesson state)', async () => {
    const { teacher, ana, ben, t, a, b } = await lesson();
    expect(await ask(b, ClientEvent.HAND_RAISE)).toMatchObject({ ok: true, member: { userId: ben.userId } });
    suite.clock.advance(1_000);
    expect(await ask(a, ClientEvent.HAND_RAISE)).toMatchObject({ ok: true, member: { userId: ana.userId } });
    await t.until(() => handsAt(t).length === 2, 'both hands at the teacher');
    expect(handsAt(t)).toEqual([[ben.userId, true], [ana.userId, true]]);

    a.close();
    const again = client(app, ana.token);
    const { sync } = await again.ready();
    if (sync.kind !== 'snapshot') throw new Error('a fresh client gets a snapshot');
    expect(raisedHandQueue(sync.snapshot.members).map((m) => m.userId)).toEqual([ben.userId, ana.userId]);
    expect((await app.store.listMembers(teacher.room.id)).find((m) => m.userId === ana.userId)?.handRaisedAt).not.toBeNull();
  });

  test('H2: the teacher lowers one hand, then all; a student may not lower another\'s, and the teacher raises none', async () => {
    const { ana, ben, t, a, b } = await lesson();
    await ask(a, ClientEvent.HAND_RAISE);
    await ask(b, ClientEvent.HAND_RAISE);
    expect(await ask(a, ClientEvent.HAND_LOWER, { userId: ben.userId })).toMatchObject({ ok: false, error: { code: ErrorCode.FORBIDDEN } });
    expect(await ask(t, ClientEvent.HAND_RAISE)).toMatchObject({ ok: false, error: { code: ErrorCode.FORBIDDEN } });
    expect(await ask(a, ClientEvent.HAND_LOWER_ALL)).toMatchObject({ ok: false, error: { code: ErrorCode.FORBIDDEN } });
    expect(await ask(t, ClientEvent.HAND_LOWER, { userId: ana.userId })).toMatchObject({ ok: true, member: { userId: ana.userId, handRaisedAt: null } });
    await a.until(() => a.eventsOfKind('member.hand').some((e) => e.payload.userId === ana.userId && e.payload.raisedAt === null), 'Ana sees her hand lowered');
    expect(await ask(t, ClientEvent.HAND_LOWER_ALL)).toMatchObject({ ok: true, lowered: 1 });
    await b.until(() => b.eventsOfKind('member.hand').some((e) => e.payload.userId === ben.userId && e.payload.raisedAt === null), 'Ben sees his lowered');
  });

  test('H3: a student who signs out takes their hand down with them', async () => {
    const { ana, t, a } = await lesson();
    await ask(a, ClientEvent.HAND_RAISE);
    expect(await a.socket.timeout(10_000).emitWithAck(ClientEvent.SIGN_OUT, {})).toMatchObject({ ok: true });
    await t.until(() => t.eventsOfKind('member.hand').some((e) => e.payload.userId === ana.userId && e.payload.raisedAt === null), 'the hand lowered');
  });
});
