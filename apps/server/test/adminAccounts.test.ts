/**
 * The admin role over the real server (docs/protocol.md, "Admin"): named by ADMIN_EMAILS, it
 * lists teachers, disables one (whose open sessions stop working at once and whose password no
 * longer signs in), enables it again, and issues a one-time password-reset link (single use,
 * expiring, stored hashed). Everyone else is refused by the server. PGlite and real Postgres.
 */
import { randomBytes } from 'node:crypto';
import { AdminTeacherList, ErrorCode, PasswordResetLink, TeacherStatusReply } from '@wb/protocol';
import { sql } from 'drizzle-orm';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { describeOnEachDatabase } from './support.ts';

const PASSWORD = 'correct horse battery';
const ADMIN = `admin.${randomBytes(4).toString('hex')}@school.example`;
const DAY_MS = 24 * 60 * 60 * 1000;

describeOnEachDatabase('the admin role', { env: { ADMIN_EMAILS: ADMIN } }, (suite) => {
  let app: App;
  let admin: string;
  beforeAll(async () => {
    app = suite.app;
    admin = (await signUp(ADMIN)).cookie;
  });

  async function call(method: 'GET' | 'POST', path: string, cookie: string | null, body?: unknown) {
    const response = await fetch(`${app.url}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(cookie ? { cookie } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const setCookie = response.headers.get('set-cookie');
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & { error?: { code: string } }, cookie: setCookie?.split(';')[0] ?? null };
  }

  async function signUp(email = `${randomBytes(5).toString('hex')}@school.example`) {
    const reply = await call('POST', '/api/teacher/sign-up', null, { email, password: PASSWORD, displayName: 'Ms Rivera' });
    expect(reply.status).toBe(201);
    return { email, id: String(reply.body.id), cookie: reply.cookie! };
  }

  test('ADM1: only an admin named by the operator lists teachers; /me tells the page who is one', async () => {
    const teacher = await signUp();
    expect((await call('GET', '/api/teacher/me', admin)).body.admin).toBe(true);
    expect((await call('GET', '/api/teacher/me', teacher.cookie)).body.admin).toBe(false);
    const listed = AdminTeacherList.parse((await call('GET', '/api/admin/teachers', admin)).body);
    expect(listed.teachers.find((t) => t.id === teacher.id)).toMatchObject({ email: teacher.email, status: 'active', password: true, providers: [], lessons: 0 });
    expect((await call('GET', '/api/admin/teachers', teacher.cookie)).body.error?.code).toBe(ErrorCode.FORBIDDEN);
    expect((await call('GET', '/api/admin/teachers', null)).body.error?.code).toBe(ErrorCode.NOT_AUTHENTICATED);
    expect((await call('POST', `/api/admin/teachers/${teacher.id}/disable`, teacher.cookie, {})).status).toBe(403);
  });

  test('ADM2: a disabled teacher\'s open sessions stop working and the password no longer signs in; enabled again, it does', async () => {
    const teacher = await signUp();
    const otherBrowser = (await call('POST', '/api/teacher/sign-in', null, { email: teacher.email, password: PASSWORD })).cookie!;
    // A lesson she is teaching right now: its teacher session is a bearer token, not the cookie.
    const lesson = (await call('POST', '/api/rooms', teacher.cookie, { teacherName: 'Ms Rivera', memberKey: randomBytes(18).toString('base64url') })).body as unknown as {
      token: string;
      room: { code: string };
    };
    const report = () => fetch(`${app.url}/api/rooms/${lesson.room.code}/attendance/report`, { headers: { authorization: `Bearer ${lesson.token}` } });
    expect((await report()).status).toBe(200);
    const disabled = TeacherStatusReply.parse((await call('POST', `/api/admin/teachers/${teacher.id}/disable`, admin, {})).body);
    expect(disabled).toEqual({ ok: true, decision: 'disabled', closedSessions: 2 });
    const refused = await report();
    expect([refused.status, ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([401, ErrorCode.SESSION_CLOSED]);
    for (const cookie of [teacher.cookie, otherBrowser]) {
      const me = await call('GET', '/api/teacher/me', cookie);
      expect([me.status, me.body.error?.code]).toEqual([403, ErrorCode.ACCOUNT_DISABLED]);
    }
    const signIn = await call('POST', '/api/teacher/sign-in', null, { email: teacher.email, password: PASSWORD });
    expect([signIn.status, signIn.body.error?.code, signIn.cookie]).toEqual([403, ErrorCode.ACCOUNT_DISABLED, null]);
    expect(TeacherStatusReply.parse((await call('POST', `/api/admin/teachers/${teacher.id}/disable`, admin, {})).body).decision).toBe('unchanged');

    expect(TeacherStatusReply.parse((await call('POST', `/api/admin/teachers/${teacher.id}/enable`, admin, {})).body).decision).toBe('enabled');
    // The sessions closed by the disable stay closed; a new sign-in works.
    expect((await call('GET', '/api/teacher/me', teacher.cookie)).body.error?.code).toBe(ErrorCode.SESSION_CLOSED);
    expect((await call('POST', '/api/teacher/sign-in', null, { email: teacher.email, password: PASSWORD })).status).toBe(200);
  });

  test('ADM3: a reset link sets a new password once, closes the other sessions, is stored only hashed, and expires after a day', async () => {
    const teacher = await signUp();
    const link = PasswordResetLink.parse((await call('POST', `/api/admin/teachers/${teacher.id}/password-reset`, admin, {})).body);
    const token = new URL(link.url).hash.replace('#reset=', '');
    expect(token.length).toBeGreaterThanOrEqual(40);
    const stored = await app.database.db.execute(sql`SELECT token_hash FROM password_resets WHERE teacher_id = ${teacher.id}::uuid`);
    expect(JSON.stringify(stored)).not.toContain(token);

    const reset = await call('POST', '/api/teacher/password-reset', null, { token, password: 'a brand new passphrase' });
    expect(reset.status).toBe(200);
    expect(reset.cookie).toMatch(/^wb_teacher=/);
    expect((await call('GET', '/api/teacher/me', teacher.cookie)).body.error?.code).toBe(ErrorCode.SESSION_CLOSED);
    expect((await call('POST', '/api/teacher/sign-in', null, { email: teacher.email, password: PASSWORD })).status).toBe(401);
    expect((await call('POST', '/api/teacher/sign-in', null, { email: teacher.email, password: 'a brand new passphrase' })).status).toBe(200);

    const again = await call('POST', '/api/teacher/password-reset', null, { token, password: 'yet another passphrase' });
    expect([again.status, again.body.error?.code]).toEqual([410, ErrorCode.RESET_LINK_INVALID]);

    const late = PasswordResetLink.parse((await call('POST', `/api/admin/teachers/${teacher.id}/password-reset`, admin, {})).body);
    suite.clock.advance(DAY_MS + 1);
    const expired = await call('POST', '/api/teacher/password-reset', null, { token: new URL(late.url).hash.replace('#reset=', ''), password: 'yet another passphrase' });
    expect(expired.body.error?.code).toBe(ErrorCode.RESET_LINK_INVALID);
  });

  test('ADM4: an admin cannot disable their own account; an unknown id is not_found', async () => {
    // A fresh sign-in: the suite's clock may have moved past the first one's term.
    admin = (await call('POST', '/api/teacher/sign-in', null, { email: ADMIN, password: PASSWORD })).cookie!;
    const me = await call('GET', '/api/teacher/me', admin);
    expect((await call('POST', `/api/admin/teachers/${String(me.body.id)}/disable`, admin, {})).body.error?.code).toBe(ErrorCode.FORBIDDEN);
    expect((await call('POST', '/api/admin/teachers/00000000-0000-4000-8000-000000000000/disable', admin, {})).status).toBe(404);
    expect((await call('POST', '/api/admin/teachers/not-a-uuid/password-reset', admin, {})).status).toBe(404);
  });
});
