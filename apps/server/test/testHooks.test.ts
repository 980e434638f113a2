import { openTestDatabase, type TestDatabase } from '@wb/db/testing';
import { ClientEvent } from '@wb/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { TestClient, createRoom, joinAs, post, startTestServer } from './support.ts';

describe('fault-injection hooks (release drill)', () => {
  let testDb: TestDatabase;
  let hooked: App;
  let plain: App;
  const clients: TestClient[] = [];
  const client = (...args: ConstructorParameters<typeof TestClient>) => {
    const c = new TestClient(...args);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    testDb = await openTestDatabase('pglite');
    hooked = await startTestServer(testDb.database, { env: { WB_TEST_HOOKS: '1' } });
    plain = await startTestServer(testDb.database);
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });
  afterAll(async () => {
    await hooked?.close();
    await plain?.close();
    await testDb?.drop();
  });

  test('are refused unless the server runs in test mode, and cannot be enabled in production', async () => {
    expect((await post(`${plain.url}/__test/withhold`, { sessionId: 'x', count: 1 })).status).toBe(404);
    expect(() => loadConfig({ WB_TEST_HOOKS: '1', NODE_ENV: 'production' })).toThrow(/WB_TEST_HOOKS/);
  });

  test('redeliver sends a logged event again; withhold makes a session miss events (a gap)', async () => {
    const teacher = await createRoom(hooked);
    const t = client(hooked, teacher.token);
    await t.ready();
    await post(`${hooked.url}/__test/withhold`, { sessionId: teacher.sessionId, count: 1 });
    const ana = await joinAs(hooked, teacher.room.code, 'Ana');
    const bo = await joinAs(hooked, teacher.room.code, 'Bo');
    const boJoined = await t.until(
      () => t.eventsOfKind('member.joined').find((e) => e.payload.userId === bo.userId),
      'the second join',
    );
    // The first join was withheld: the teacher's next event skips a revision.
    expect(t.eventsOfKind('member.joined').some((e) => e.payload.userId === ana.userId)).toBe(false);
    const redelivered = await post<{ ok: boolean }>(`${hooked.url}/__test/redeliver`, { eventId: boJoined.eventId });
    expect(redelivered.body.ok).toBe(true);
    await t.until(() => t.eventsOfKind('member.joined').filter((e) => e.eventId === boJoined.eventId).length === 2, 'the duplicate');
  });

  test('hold-inbound keeps a session\'s packets at the door until released', async () => {
    const teacher = await createRoom(hooked);
    const t = client(hooked, teacher.token);
    const { welcome } = await t.ready();
    await post(`${hooked.url}/__test/hold-inbound`, { sessionId: teacher.sessionId, hold: true });
    let answered = false;
    const renewal = t.renew(welcome.leaseRevision + 1, 'held-renewal').then((reply) => {
      answered = true;
      return reply;
    });
    t.socket.emit(ClientEvent.CURSOR, { x: 1, y: 1 });
    await expect
      .poll(async () => (await post<{ held: number }>(`${hooked.url}/__test/hold-inbound`, { sessionId: teacher.sessionId, hold: true })).body.held)
      .toBe(2);
    const released = await post<{ released: number }>(`${hooked.url}/__test/hold-inbound`, { sessionId: teacher.sessionId, hold: false });
    expect(answered).toBe(false);
    expect(released.body.released).toBe(2);
    expect(await renewal).toMatchObject({ ok: true, decision: 'accepted' });
  });
});
