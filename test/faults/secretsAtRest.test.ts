/**
 * Security: session tokens, teacher cookies, member keys and passwords appear neither in the
 * server's log output (at its most verbose level) nor anywhere in the database at rest (tokens are
 * stored only as hashes), across every path that carries them: create, join, socket handshakes
 * (accepted and refused), bearer-token HTTP routes, teacher sign-up and sign-in, sign-out.
 */
import { ClientEvent, PROTOCOL_VERSION } from '@wb/protocol';
import { io } from 'socket.io-client';
import { afterAll, describe, expect, test } from 'vitest';
import { FaultClient, memberKey } from './support/client.ts';
import { reportFigures } from './support/results.ts';
import { createScratchDatabase, killAll, postgresSkipReason, query, spawnServer, waitFor } from './support/serverProcess.ts';

const skip = postgresSkipReason();

describe.skipIf(skip !== null)(`secrets in logs and at rest (real Postgres)${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const cleanups: (() => Promise<void>)[] = [];
  const clients: FaultClient[] = [];
  afterAll(async () => {
    for (const c of clients) c.close();
    await killAll();
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  });

  test('tokens, cookies, member keys and passwords found in logs = 0 and in the database = 0', async () => {
    const db = await createScratchDatabase();
    cleanups.push(db.drop);
    const server = await spawnServer({ databaseUrl: db.url, env: { LOG_LEVEL: 'trace' } });
    const json = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
      const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      return { response, body: (await response.json()) as Record<string, unknown> };
    };
    const secrets: string[] = [];

    // A teacher account: password and cookie.
    const password = `pw-${memberKey()}`;
    secrets.push(password);
    const signUp = await json('/api/teacher/sign-up', { email: `t${Date.now()}@school.example`, password, displayName: 'Ms Rivera' });
    expect(signUp.response.status).toBe(201);
    const setCookie = signUp.response.headers.get('set-cookie') ?? '';
    const cookie = /wb_teacher=([^;]+)/.exec(setCookie)?.[1];
    if (!cookie) throw new Error(`no cookie in ${setCookie}`);
    secrets.push(cookie);
    const cookieFlags = ['HttpOnly', 'SameSite=Lax', 'Path=/'].filter((flag) => setCookie.includes(flag)).length;

    // A room started with the cookie, a student joining; their tokens and member keys.
    const teacherKey = memberKey();
    const studentKey = memberKey();
    secrets.push(teacherKey, studentKey);
    const created = await json('/api/rooms', { teacherName: 'Ms Rivera', memberKey: teacherKey }, { cookie: `wb_teacher=${cookie}` });
    const teacherToken = String(created.body.token);
    const room = created.body.room as { code: string };
    const joined = await json(`/api/rooms/${room.code}/join`, { displayName: 'Ana', memberKey: studentKey });
    const studentToken = String(joined.body.token);
    secrets.push(teacherToken, studentToken);

    // Handshakes: accepted, and refused with a forged token and with a foreign origin.
    const t = new FaultClient(server.url, created.body as never);
    const s = new FaultClient(server.url, joined.body as never);
    clients.push(t, s);
    await Promise.all([t.ready(), s.ready()]);
    const forgedToken = `forged${memberKey()}${memberKey()}`.slice(0, 43);
    secrets.push(forgedToken);
    const refusals: string[] = [];
    for (const options of [{ token: forgedToken }, { token: studentToken, origin: 'https://evil.example' }]) {
      const socket = io(server.url, {
        transports: ['websocket'],
        reconnection: false,
        forceNew: true,
        auth: { token: options.token, protocol: PROTOCOL_VERSION },
        ...(options.origin ? { extraHeaders: { origin: options.origin } } : {}),
      });
      refusals.push(await new Promise<string>((done) => socket.once('connect_error', (error: Error & { data?: { code: string } }) => done(error.data?.code ?? error.message))));
      socket.close();
    }
    // Bearer routes, a renewal and a sign-out.
    await fetch(`${server.url}/api/rooms/${room.code}/attendance`, { headers: { authorization: `Bearer ${teacherToken}` } });
    await fetch(`${server.url}/api/rooms/${room.code}/attendance`, { headers: { authorization: `Bearer ${forgedToken}` } });
    await fetch(`${server.url}/api/teacher/rooms`, { headers: { cookie: `wb_teacher=${cookie}` } });
    await waitFor(() => s.renewals.some((r) => r.reply.ok), 'a renewal');
    await json('/api/teacher/sign-in', { email: 'nobody@school.example', password });
    expect((await s.socket.timeout(10_000).emitWithAck(ClientEvent.SIGN_OUT, {})).ok).toBe(true);
    await json('/api/session/sign-out', {}, { authorization: `Bearer ${studentToken}` });

    const output = server.output();
    const inLogs = secrets.filter((secret) => output.includes(secret)).length;
    const tables = await query<{ tablename: string }>(db.url, `SELECT tablename FROM pg_tables WHERE schemaname = 'public'`);
    let atRest = 0;
    let rowsScanned = 0;
    for (const { tablename } of tables) {
      const rows = await query<{ row: string }>(db.url, `SELECT to_jsonb(t)::text AS row FROM "${tablename}" t`);
      rowsScanned += rows.length;
      for (const { row } of rows) atRest += secrets.filter((secret) => row.includes(secret)).length;
    }
    reportFigures('secrets in logs and at rest', {
      'secrets found in logs': inLogs,
      'secrets found in the database': atRest,
      'secrets checked': secrets.length,
      'log bytes scanned (LOG_LEVEL=trace)': output.length,
      'tables / rows scanned': `${tables.length} / ${rowsScanned}`,
      'handshakes refused (forged token, foreign origin)': refusals.join(', '),
      'cookie flags HttpOnly, SameSite=Lax, Path=/': cookieFlags,
    });
    expect(output.length).toBeGreaterThan(1_000); // the log really was written
    expect(inLogs).toBe(0);
    expect(atRest).toBe(0);
    expect(refusals).toEqual(['not_authenticated', 'origin_not_allowed']);
    expect(cookieFlags).toBe(3);
    await server.stop();
  });
});
