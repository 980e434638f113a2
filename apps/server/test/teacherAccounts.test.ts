/**
 * Teacher accounts over the real server: argon2id hashes, httpOnly SameSite cookies, rate-limited
 * sign-in, the account's rooms (create, rename, archive) and past lessons' attendance.
 * PGlite and real Postgres.
 */
import { randomBytes } from 'node:crypto';
import { AttendanceReport, ErrorCode, TeacherRoomList, type SessionGrant } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { describeOnEachDatabase, joinAs, joinRoom, newMemberKey } from './support.ts';

const PASSWORD = 'correct horse battery';

interface Reply {
  status: number;
  body: { error?: { code: string; message: string } } & Record<string, unknown>;
  cookie: string | null;
  setCookie: string | null;
}

// The tests reach the server from loopback, playing a TLS proxy on the same machine for the
// Secure-cookie check (forwarded headers are believed only from TRUST_PROXY's addresses).
describeOnEachDatabase('teacher accounts', { env: { TRUST_PROXY: 'loopback' } }, (suite) => {
  const { client, clock } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  async function call(method: 'GET' | 'POST', path: string, options: { body?: unknown; cookie?: string | null; headers?: Record<string, string> } = {}): Promise<Reply> {
    const response = await fetch(`${app.url}${path}`, {
      method,
      headers: {
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(options.cookie ? { cookie: options.cookie } : {}),
        ...options.headers,
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const setCookie = response.headers.get('set-cookie');
    const text = await response.text();
    const body = response.headers.get('content-type')?.startsWith('application/json') ? (JSON.parse(text) as Reply['body']) : { text };
    return { status: response.status, body, setCookie, cookie: setCookie ? setCookie.split(';')[0]! : null };
  }

  async function signUp(name = 'Ms Rivera') {
    const email = `${randomBytes(5).toString('hex')}@School.example`;
    const reply = await call('POST', '/api/teacher/sign-up', { body: { email, password: PASSWORD, displayName: name } });
    expect(reply.status).toBe(201);
    return { email: email.toLowerCase(), cookie: reply.cookie!, id: String(reply.body.id) };
  }

  async function createRoomAs(cookie: string | null, teacherName = 'Ms Rivera') {
    const reply = await call('POST', '/api/rooms', { body: { teacherName, memberKey: newMemberKey() }, cookie });
    expect(reply.status).toBe(201);
    return reply.body as unknown as SessionGrant;
  }


  test('sign-up stores an argon2id hash, never the password, and signs in with an httpOnly SameSite=Lax cookie', async () => {
    const { email, cookie } = await signUp();
    const stored = await app.store.findTeacherCredentials(email);
    expect(stored?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(stored?.passwordHash).not.toContain(PASSWORD);

    const signedIn = await call('POST', '/api/teacher/sign-in', { body: { email: email.toUpperCase(), password: PASSWORD } });
    expect(signedIn.status).toBe(200);
    expect(signedIn.setCookie).toMatch(/^wb_teacher=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=43200$/);
    // Plain http on a laptop: not Secure, or the browser would drop it. Behind https: Secure.
    const behindTls = await call('POST', '/api/teacher/sign-in', {
      body: { email, password: PASSWORD },
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(behindTls.setCookie).toMatch(/; Secure$/);
    expect((await call('GET', '/api/teacher/me', { cookie })).body).toMatchObject({ email, displayName: 'Ms Rivera' });

    const again = await call('POST', '/api/teacher/sign-up', { body: { email, password: PASSWORD, displayName: 'X' } });
    expect([again.status, again.body.error?.code]).toEqual([409, ErrorCode.CONFLICT]);
    const weak = await call('POST', '/api/teacher/sign-up', { body: { email: `w${email}`, password: 'short', displayName: 'X' } });
    expect([weak.status, weak.body.error?.code]).toEqual([400, ErrorCode.BAD_REQUEST]);
  });

  test('a wrong password and an unknown email get the same refusal', async () => {
    const { email } = await signUp();
    const wrong = await call('POST', '/api/teacher/sign-in', { body: { email, password: 'not the password' } });
    const unknown = await call('POST', '/api/teacher/sign-in', { body: { email: `nobody-${email}`, password: PASSWORD } });
    expect(wrong.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.body.error?.code).toBe(ErrorCode.NOT_AUTHENTICATED);
    expect(wrong.setCookie).toBeNull();
  });

  test('sign-out ends the cookie’s session on the server and clears it in the browser', async () => {
    const { cookie } = await signUp();
    const out = await call('POST', '/api/teacher/sign-out', { body: {}, cookie });
    expect(out.status).toBe(200);
    expect(out.setCookie).toMatch(/^wb_teacher=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0/);
    const me = await call('GET', '/api/teacher/me', { cookie });
    expect([me.status, me.body.error?.code]).toEqual([401, ErrorCode.SESSION_CLOSED]);
    expect((await call('GET', '/api/teacher/me')).body.error?.code).toBe(ErrorCode.NOT_AUTHENTICATED);
  });

  test('a room started while signed in belongs to the account; one started without an account still works', async () => {
    const mine = await signUp();
    const other = await signUp('Mr Other');
    const owned = await createRoomAs(mine.cookie);
    const anonymous = await createRoomAs(null);
    expect(anonymous.role).toBe('teacher');
    const list = TeacherRoomList.parse((await call('GET', '/api/teacher/rooms', { cookie: mine.cookie })).body);
    expect(list.rooms.map((r) => r.code)).toEqual([owned.room.code]);
    expect(TeacherRoomList.parse((await call('GET', '/api/teacher/rooms', { cookie: other.cookie })).body).rooms).toEqual([]);
    const anonymousList = await call('GET', '/api/teacher/rooms');
    expect([anonymousList.status, anonymousList.body.error?.code]).toEqual([401, ErrorCode.NOT_AUTHENTICATED]);
  });

  test('the owning account enters its lesson as its teacher from any browser; nobody else can', async () => {
    const mine = await signUp();
    const other = await signUp('Mr Other');
    const grant = await createRoomAs(mine.cookie);
    const entered = await call('POST', `/api/teacher/rooms/${grant.room.code}/enter`, { body: {}, cookie: mine.cookie });
    expect(entered.status).toBe(200);
    expect(entered.body).toMatchObject({ role: 'teacher', userId: grant.userId, room: { code: grant.room.code } });
    expect(entered.body.sessionId).not.toBe(grant.sessionId);
    const t = client(app, String(entered.body.token));
    expect((await t.ready()).welcome.role).toBe('teacher');

    const foreign = await call('POST', `/api/teacher/rooms/${grant.room.code}/enter`, { body: {}, cookie: other.cookie });
    expect([foreign.status, foreign.body.error?.code]).toEqual([404, ErrorCode.ROOM_NOT_FOUND]);
    await call('POST', `/api/teacher/rooms/${grant.room.code}/archive`, { body: {}, cookie: mine.cookie });
    const archived = await call('POST', `/api/teacher/rooms/${grant.room.code}/enter`, { body: {}, cookie: mine.cookie });
    expect([archived.status, archived.body.error?.code]).toEqual([409, ErrorCode.ROOM_ARCHIVED]);
  });

  test('rename reaches everyone in the room; another account cannot rename it', async () => {
    const mine = await signUp();
    const other = await signUp('Mr Other');
    const grant = await createRoomAs(mine.cookie);
    const t = client(app, grant.token);
    await t.ready();
    const refused = await call('POST', `/api/teacher/rooms/${grant.room.code}/rename`, { body: { title: 'Mine now' }, cookie: other.cookie });
    expect([refused.status, refused.body.error?.code]).toEqual([404, ErrorCode.ROOM_NOT_FOUND]);
    const renamed = await call('POST', `/api/teacher/rooms/${grant.room.code}/rename`, { body: { title: 'Fractions' }, cookie: mine.cookie });
    expect(renamed.body).toMatchObject({ ok: true, decision: 'renamed', room: { title: 'Fractions' } });
    const event = await t.until(() => t.eventsOfKind('room.updated')[0], 'room.updated');
    expect(event.payload).toMatchObject({ title: 'Fractions', status: 'open' });
    expect((await app.store.findRoomByCode(grant.room.code))?.title).toBe('Fractions');
  });

  test('archive ends the lesson: sockets are told room_archived, joins and handshakes are refused, the account still reads the report', async () => {
    const mine = await signUp();
    const grant = await createRoomAs(mine.cookie);
    const ana = await joinAs(app, grant.room.code, 'Ana');
    const s = client(app, ana.token);
    await s.ready();
    clock.advance(60_000);

    const archived = await call('POST', `/api/teacher/rooms/${grant.room.code}/archive`, { body: {}, cookie: mine.cookie });
    expect(archived.body).toMatchObject({ ok: true, decision: 'archived', room: { status: 'archived' } });
    const ended = await s.until(() => s.received['session.ended'][0], 'session.ended');
    expect(ended.code).toBe(ErrorCode.ROOM_ARCHIVED);
    expect((await call('POST', `/api/teacher/rooms/${grant.room.code}/archive`, { body: {}, cookie: mine.cookie })).body).toMatchObject({
      decision: 'already_archived',
    });

    const join = await joinRoom(app, grant.room.code, 'Bo');
    expect([join.status, join.body.error?.code]).toEqual([409, ErrorCode.ROOM_ARCHIVED]);
    const handshake = client(app, grant.token);
    await handshake.until(() => handshake.connectError, 'refusal');
    expect(handshake.connectError?.data?.code).toBe(ErrorCode.ROOM_ARCHIVED);
    // The room session cannot read the report any more; the owning account can, for good.
    const bearer = await fetch(`${app.url}/api/rooms/${grant.room.code}/attendance/report`, { headers: { authorization: `Bearer ${grant.token}` } });
    expect(bearer.status).toBe(409);
    const report = AttendanceReport.parse((await call('GET', `/api/teacher/rooms/${grant.room.code}/attendance/report`, { cookie: mine.cookie })).body);
    expect(report.room.status).toBe('archived');
    expect(report.students[0]).toMatchObject({ displayName: 'Ana', connectedMs: 60_000 });
    expect(report.students[0]?.sessions[0]?.intervals[0]?.endedBy).toBe('session_closed');
    const csv = await call('GET', `/api/teacher/rooms/${grant.room.code}/attendance/report.csv`, { cookie: mine.cookie });
    expect(csv.status).toBe(200);
    expect(String(csv.body.text)).toContain(',session_closed,closed by server,60');

    const other = await signUp('Mr Other');
    const foreign = await call('GET', `/api/teacher/rooms/${grant.room.code}/attendance/report`, { cookie: other.cookie });
    expect([foreign.status, foreign.body.error?.code]).toEqual([404, ErrorCode.ROOM_NOT_FOUND]);
  });

  test('another site cannot use the cookie: a foreign Origin is refused', async () => {
    const { cookie } = await signUp();
    const reply = await call('POST', '/api/rooms', {
      body: { teacherName: 'Mallory', memberKey: newMemberKey() },
      cookie,
      headers: { origin: 'https://evil.example' },
    });
    expect([reply.status, reply.body.error?.code]).toEqual([403, ErrorCode.ORIGIN_NOT_ALLOWED]);
  });

  test('sign-in is rate-limited per address and account', async () => {
    const { email } = await signUp();
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      statuses.push((await call('POST', '/api/teacher/sign-in', { body: { email, password: `wrong-${i}` } })).status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    const limited = await call('POST', '/api/teacher/sign-in', { body: { email, password: PASSWORD } });
    expect([limited.status, limited.body.error?.code]).toEqual([429, ErrorCode.RATE_LIMITED]);
    // Another account from the same address is not locked out by it.
    const colleague = await signUp('Mr Colleague');
    const signedIn = await call('POST', '/api/teacher/sign-in', { body: { email: colleague.email, password: PASSWORD } });
    expect(signedIn.status).toBe(200);
  });
});
