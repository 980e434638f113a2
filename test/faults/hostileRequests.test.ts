/**
 * Every acknowledged request gets an answer with a documented code, and no request a client can
 * make breaks its own session or another room's (issue 18, findings 3-5). One real server process,
 * on Postgres when TEST_DATABASE_URL is set, else on PGlite.
 */
import { randomUUID } from 'node:crypto';
import { ClientEvent, ErrorCode, type Ack, type LeaseRenewResult, type SessionGrant } from '@wb/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FaultClient, createRoom, joinRoom, requestId, type FaultSocket } from './support/client.ts';
import { killAll, spawnServer, type ServerProcess } from './support/serverProcess.ts';
import { STORES, databaseOn, skipNote } from './support/stores.ts';

/** Emits any event with any payload and waits for its acknowledgement (or null after `ms`). */
function rawRequest(socket: FaultSocket, event: string, payload: unknown, ms = 6_000): Promise<Ack<Record<string, unknown>> | null> {
  const raw = socket as unknown as { timeout(ms: number): { emitWithAck(event: string, payload: unknown): Promise<Ack<Record<string, unknown>>> } };
  return raw.timeout(ms).emitWithAck(event, payload).catch(() => null);
}

const renew = (client: FaultClient, revision: number) =>
  client.socket.timeout(6_000).emitWithAck(ClientEvent.LEASE_RENEW, { revision, requestId: requestId() }) as Promise<Ack<LeaseRenewResult>>;

const rect = { kind: 'rect', x: 1, y: 1, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 } as const;

for (const store of STORES) describe.skipIf(store.skip !== null)(`hostile requests on one server (${store.label})${skipNote(store)}`, () => {
  let server: ServerProcess;
  const clients: FaultClient[] = [];
  const cleanups: (() => Promise<void> | void)[] = [];
  const connect = async (grant: SessionGrant, options: ConstructorParameters<typeof FaultClient>[2] = { renew: false }) => {
    const client = new FaultClient(server.url, grant, options);
    clients.push(client);
    await client.ready();
    return client;
  };

  beforeAll(async () => {
    server = await spawnServer(await databaseOn(store, cleanups));
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await killAll();
    for (const cleanup of cleanups) await cleanup();
  });

  test('an unknown event with an acknowledgement is answered bad_request; the socket stays usable', async () => {
    const teacher = await connect(await createRoom(server.url));
    const reply = await rawRequest(teacher.socket, 'room.destroy', { everything: true });
    expect(reply).toMatchObject({ ok: false, error: { code: ErrorCode.BAD_REQUEST } });
    // Without an acknowledgement: a notice names the refusal.
    (teacher.socket as unknown as { emit(event: string, payload: unknown): void }).emit('room.destroy', {});
    await expect.poll(() => teacher.received.notice.some((n) => n.code === ErrorCode.BAD_REQUEST), { timeout: 5_000 }).toBe(true);
    const sync = await rawRequest(teacher.socket, ClientEvent.SYNC_REQUEST, {});
    expect(sync?.ok).toBe(true);
  });

  test('Origin is compared on scheme, host and port (HTTP and the socket handshake)', async () => {
    const port = server.port;
    const post = (origin: string) =>
      fetch(`${server.url}/api/rooms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify({ teacherName: 'Ms Origin', memberKey: randomUUID().replaceAll('-', '') }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error?: { code: string } } }));
    const same = await post(`http://127.0.0.1:${port}`);
    expect(same.status).toBe(201);
    for (const origin of [`https://127.0.0.1:${port}`, `http://127.0.0.1:${port + 1}`, 'http://127.0.0.1', 'null']) {
      const refused = await post(origin);
      expect([origin, refused.status, refused.body.error?.code]).toEqual([origin, 403, ErrorCode.ORIGIN_NOT_ALLOWED]);
    }
    const grant = await createRoom(server.url);
    const tls = new FaultClient(server.url, grant, { renew: false, origin: `https://127.0.0.1:${port}` });
    clients.push(tls);
    await expect(tls.ready(5_000)).rejects.toThrow(ErrorCode.ORIGIN_NOT_ALLOWED);
    await connect(grant, { renew: false, origin: `http://127.0.0.1:${port}` });
  });

  test('sign-out payloads are validated: a malformed one is refused bad_request and signs nobody out', async () => {
    const teacherGrant = await createRoom(server.url);
    const student = await joinRoom(server.url, teacherGrant.room.code, 'Sid');
    const client = await connect(student);
    for (const payload of [{ everyone: true }, 'bye', 42]) {
      const reply = await rawRequest(client.socket, ClientEvent.SIGN_OUT, payload);
      expect([JSON.stringify(payload), reply?.ok, reply && !reply.ok ? reply.error.code : null]).toEqual([JSON.stringify(payload), false, ErrorCode.BAD_REQUEST]);
    }
    const http = await fetch(`${server.url}/api/session/sign-out`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${student.token}` },
      body: JSON.stringify({ sessionId: teacherGrant.sessionId }),
    });
    expect([http.status, ((await http.json()) as { error?: { code: string } }).error?.code]).toEqual([400, ErrorCode.BAD_REQUEST]);
    expect(client.received['session.ended']).toEqual([]);
    const still = await renew(client, client.received.welcome[0]!.leaseRevision + 1);
    expect(still).toMatchObject({ ok: true, decision: 'accepted' });
    // The well-formed sign-out still works.
    expect(await rawRequest(client.socket, ClientEvent.SIGN_OUT, {})).toMatchObject({ ok: true });
  });

  test('a renewal to 2^53-1 is refused bad_request and the session keeps renewing (and reconnecting)', async () => {
    const teacherGrant = await createRoom(server.url);
    const student = await joinRoom(server.url, teacherGrant.room.code, 'Max');
    const client = await connect(student);
    const start = client.received.welcome[0]!.leaseRevision;
    const extreme = await renew(client, Number.MAX_SAFE_INTEGER);
    expect(extreme).toMatchObject({ ok: false, error: { code: ErrorCode.BAD_REQUEST } });
    const next = await renew(client, start + 1);
    expect(next).toMatchObject({ ok: true, decision: 'accepted', revision: start + 1 });
    client.close();
    const again = await connect(student);
    expect(again.received.welcome[0]!.leaseRevision).toBe(start + 2);
    expect(await renew(again, start + 3)).toMatchObject({ ok: true, decision: 'accepted' });
  });

  test('element ids are per room: an id used in another room is created, a member reusing one in the same room gets conflict', async () => {
    const roomA = await createRoom(server.url);
    const roomB = await createRoom(server.url);
    const a = await connect(roomA);
    const b = await connect(roomB);
    const intruder = await connect(await joinRoom(server.url, roomA.room.code, 'Ivy'));
    const id = randomUUID();
    const create = (client: FaultClient) => rawRequest(client.socket, ClientEvent.ELEMENT_CREATE, { requestId: requestId(), id, shape: rect });
    expect(await create(a)).toMatchObject({ ok: true, element: { id } });
    expect(await create(b)).toMatchObject({ ok: true, element: { id } });
    expect(await create(intruder)).toMatchObject({ ok: false, error: { code: ErrorCode.CONFLICT } });
  });
});
