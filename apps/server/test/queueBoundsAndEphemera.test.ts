/**
 * I6 (presence and cursors are ephemeral) and I10 (every queue a node keeps is bounded), checked on
 * the real server: the lease table is UNLOGGED, cursor traffic writes nothing, and the renewal
 * queue and the lobby's parked requests refuse work past their bounds instead of growing.
 */
import { randomUUID } from 'node:crypto';
import { ClientEvent, ErrorCode, cursorPosition, type SessionGrant } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { MAX_LOBBY_WAITERS } from '../src/realtime/lobbyWaiters.ts';
import { MAX_PENDING_RENEWALS } from '../src/realtime/socketServer.ts';
import { createRoom, describeOnEachDatabase, joinAs, newMemberKey, post } from './support.ts';

// A long renewal tick: the queue test fills the queue within one tick, whatever the machine's load.
const RENEW_BATCH_MS = 60_000;

describeOnEachDatabase('I6 and I10', { env: { RENEW_BATCH_MS: String(RENEW_BATCH_MS) } }, (suite) => {
  const { client } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  const query = async <T>(statement: string): Promise<T[]> =>
    ((await app.database.db.execute(statement)) as unknown as { rows: T[] }).rows;

  /** Every table of the application's schema, by table: its row count and a hash of its content. */
  async function tableContents(): Promise<Record<string, string>> {
    const tables = await query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name",
    );
    const contents: Record<string, string> = {};
    for (const { table_name } of tables) {
      const [row] = await query<{ n: unknown; h: string }>(
        `SELECT count(*) AS n, md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS h FROM "${table_name}" x`,
      );
      contents[table_name] = `${Number(row!.n)} rows, ${row!.h}`;
    }
    return contents;
  }

  test('I6: presence_leases is UNLOGGED; the durable tables are not', async () => {
    const persistence = await query<{ relname: string; relpersistence: string }>(
      "SELECT c.relname, c.relpersistence FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY c.relname",
    );
    const unlogged = persistence.filter((r) => r.relpersistence === 'u').map((r) => r.relname);
    expect(unlogged).toEqual(['presence_leases']);
    expect(persistence.find((r) => r.relname === 'room_events')?.relpersistence).toBe('p');
  });

  test('I6: cursor packets are never stored: a burst of cursor traffic changes no table', async () => {
    const teacher = await createRoom(app);
    const student = await joinAs(app, teacher.room.code, 'Cy');
    const t = client(app, teacher.token);
    const s = client(app, student.token);
    await Promise.all([t.ready(), s.ready()]);
    const before = await tableContents();
    expect(before.room_events).toMatch(/^[1-9]\d* rows/);
    // 100 packets: within the socket's burst allowance (SOCKET_EVENT_BURST), none refused.
    for (let i = 1; i <= 100; i++) s.socket.emit(ClientEvent.CURSOR, { x: i, y: i, t: Date.now() });
    t.socket.emit(ClientEvent.CURSOR, { x: -1, y: -1 });
    // The last of the student's packets reached the teacher: every one of them was handled.
    await t.until(
      () => t.received.cursors.flatMap((b) => b.cursors.map(cursorPosition)).find((c) => c.sessionId === student.sessionId && c.x === 100),
      'the last cursor at the teacher',
    );
    expect(await tableContents()).toEqual(before);
  });

  test(`I10: the renewal queue holds at most MAX_PENDING_RENEWALS (${MAX_PENDING_RENEWALS}); past it a renewal is refused at once`, async () => {
    const teacher = await createRoom(app);
    const t = client(app, teacher.token);
    const { welcome } = await t.ready();
    // Fill this node's queue within one batch tick with renewals of sessions that do not exist.
    const queued: Promise<unknown>[] = [];
    let refusedEarly = 0;
    for (let i = 0; i < MAX_PENDING_RENEWALS; i++) {
      queued.push(
        app.realtime.renewals.submit({ sessionId: randomUUID(), revision: 2, requestId: `fill-${i}` }).catch(() => {
          refusedEarly++;
        }),
      );
    }
    const overflow = await Promise.race([
      app.realtime.renewals.submit({ sessionId: randomUUID(), revision: 2, requestId: 'one-too-many' }).then(
        () => 'queued',
        (error: Error) => error.message,
      ),
      new Promise((resolve) => setTimeout(() => resolve('queued'), 1_000)),
    ]);
    expect(overflow).toBe('renewal queue is full');
    // A real client's renewal meanwhile is refused as unavailable, not queued.
    const reply = await t.renew(welcome.leaseRevision + 1, 'renew-when-full');
    expect(reply).toMatchObject({ ok: false, error: { code: ErrorCode.UNAVAILABLE } });
    await app.realtime.renewals.flush();
    await Promise.all(queued);
    expect(refusedEarly).toBe(0);
    // Drained: renewals are queued (and written at the next flush) again.
    const again = t.renew(welcome.leaseRevision + 1, 'renew-after-drain');
    await expect.poll(async () => {
      await app.realtime.renewals.flush();
      return Promise.race([again, new Promise((resolve) => setTimeout(() => resolve('still queued'), 50))]);
    }).toMatchObject({ ok: true, decision: 'accepted' });
  });

  test(`I10: at most MAX_LOBBY_WAITERS (${MAX_LOBBY_WAITERS}) waiting pages are parked; past it the answer comes at once`, async () => {
    const created = await post<SessionGrant>(`${app.url}/api/rooms`, { teacherName: 'Ms Rivera', memberKey: newMemberKey(), requireApproval: true });
    const teacher = created.body;
    const joined = await post<SessionGrant>(`${app.url}/api/rooms/${teacher.room.code}/join`, { displayName: 'Wai', memberKey: newMemberKey() });
    expect(joined.body.admission).toBe('pending');
    const ask = async () => {
      const response = await fetch(`${app.url}/api/session/admission?waitMs=20000`, { headers: { authorization: `Bearer ${joined.body.token}` } });
      return (await response.json()) as { admission: string };
    };
    // One real request parks.
    const parked = ask();
    await expect.poll(() => app.lobbyWaiters.waiting, { interval: 10 }).toBe(1);
    // Fill the rest of the node's waiters, then one more request is answered at once, unparked.
    const fillers: Promise<void>[] = [];
    for (let i = 1; i < MAX_LOBBY_WAITERS; i++) {
      const wait = app.lobbyWaiters.wait(teacher.room.id, randomUUID(), 60_000);
      if (!wait) throw new Error(`waiter ${i} refused below the bound`);
      fillers.push(wait);
    }
    expect(app.lobbyWaiters.waiting).toBe(MAX_LOBBY_WAITERS);
    expect(app.lobbyWaiters.wait(teacher.room.id, randomUUID(), 60_000)).toBe(false);
    const started = Date.now();
    expect(await ask()).toEqual({ admission: 'pending' });
    // Answered at once, unparked: well under the 60 s a parked request waits (5 s: the 4 s request
    // deadline and 1 s for the way back).
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(app.lobbyWaiters.waiting).toBe(MAX_LOBBY_WAITERS);
    app.lobbyWaiters.wakeAll();
    await Promise.all(fillers);
    expect(await parked).toEqual({ admission: 'pending' });
    expect(app.lobbyWaiters.waiting).toBe(0);
  });
});
