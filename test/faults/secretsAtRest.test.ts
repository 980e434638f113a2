/**
 * Security: session tokens, teacher cookies, member keys and passwords appear neither in the
 * server's log output (at its most verbose level) nor anywhere in the database at rest (tokens are
 * stored only as hashes), across every path that carries them: create, join, socket handshakes
 * (accepted and refused), bearer-token HTTP routes, teacher sign-up and sign-in, sign-out.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClientEvent, PROTOCOL_VERSION } from '@wb/protocol';
import { io } from 'socket.io-client';
import { afterAll, describe, expect, test } from 'vitest';
import { FaultClient, memberKey } from './support/client.ts';
import { reportFigures } from './support/results.ts';
import { killAll, query, spawnServer, waitFor } from './support/serverProcess.ts';
import { STORES, databaseOn, skipNote } from './support/stores.ts';

/** Every file under `dir`, recursively (the embedded database's files at rest). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : entry.isFile() ? [join(dir, entry.name)] : [],
  );
}

for (const store of STORES) describe.skipIf(store.skip !== null)(`secrets in logs and at rest (${store.label})${skipNote(store)}`, () => {
  const cleanups: (() => Promise<void>)[] = [];
  const clients: FaultClient[] = [];
  afterAll(async () => {
    for (const c of clients) c.close();
    await killAll();
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  });

  test('tokens, cookies, member keys and passwords found in logs = 0 and in the database = 0', async () => {
    const where = await databaseOn(store, cleanups);
    const server = await spawnServer({ ...where, env: { LOG_LEVEL: 'trace' } });
    const json = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
      const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      return { response, body: (await response.json()) as Record<string, unknown> };
    };
    const secrets: string[] = [];

    // A teacher account: password and cookie.
    const password = `pw-${memberKey()}`;
    secrets.push(password);
    // The address is stored as written: the control that the scan below reads what is at rest.
    const email = `t${Date.now()}@school.example`;
    const signUp = await json('/api/teacher/sign-up', { email, password, displayName: 'Ms Rivera' });
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
    // At rest: every row of every table on Postgres; every byte of the data directory, after a
    // clean stop, on the embedded database (tokens are short: no page compresses them).
    let atRest = 0;
    let controlFound = false;
    let scanned: string;
    if (where.databaseUrl) {
      const tables = await query<{ tablename: string }>(where.databaseUrl, `SELECT tablename FROM pg_tables WHERE schemaname = 'public'`);
      let rowsScanned = 0;
      for (const { tablename } of tables) {
        const rows = await query<{ row: string }>(where.databaseUrl, `SELECT to_jsonb(t)::text AS row FROM "${tablename}" t`);
        rowsScanned += rows.length;
        for (const { row } of rows) {
          atRest += secrets.filter((secret) => row.includes(secret)).length;
          controlFound ||= row.includes(email);
        }
      }
      scanned = `${tables.length} tables / ${rowsScanned} rows`;
    } else {
      await server.stop();
      const files = filesUnder(where.pgliteDir!);
      let bytes = 0;
      for (const file of files) {
        const content = readFileSync(file);
        bytes += content.length;
        atRest += secrets.filter((secret) => content.includes(secret)).length;
        controlFound ||= content.includes(email);
      }
      scanned = `${files.length} files / ${bytes} bytes`;
    }
    reportFigures(`secrets in logs and at rest (${store.label})`, {
      'secrets found in logs': inLogs,
      'secrets found in the database': atRest,
      'secrets checked': secrets.length,
      'log bytes scanned (LOG_LEVEL=trace)': output.length,
      'scanned at rest': scanned,
      'teacher email found at rest (control)': controlFound,
      'handshakes refused (forged token, foreign origin)': refusals.join(', '),
      'cookie flags HttpOnly, SameSite=Lax, Path=/': cookieFlags,
    });
    expect(output.length).toBeGreaterThan(1_000); // the log really was written
    expect(inLogs).toBe(0);
    expect(controlFound).toBe(true);
    expect(atRest).toBe(0);
    expect(refusals).toEqual(['not_authenticated', 'origin_not_allowed']);
    expect(cookieFlags).toBe(3);
    await server.stop();
  });
});
