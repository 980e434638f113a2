/**
 * Deleting lessons and accounts, and exporting an account, over the real server (docs/privacy.md;
 * docs/protocol.md, "Teacher accounts" and "Admin"): a teacher deletes her own lesson and nobody
 * else's; an admin exports an account as one zip whose contents are checked, and deletes the
 * account with all its lessons; every deletion leaves one audit fact without content. Then the
 * schedule: two server nodes on one Postgres delete each lesson past its term exactly once.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { FrozenClock } from '@wb/db';
import { openDatabase } from '@wb/db';
import { openTestDatabase, postgresUnavailableReason, type TestDatabase } from '@wb/db/testing';
import { ATTENDANCE_CSV_COLUMNS, ClientEvent, DeletionReply, ErrorCode, MAX_LISTED_ROOMS, TeacherRoomList, type ElementShape, type SessionGrant } from '@wb/protocol';
import { sql } from 'drizzle-orm';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { pngFile } from '../../../packages/protocol/test/pngFixture.ts';
import type { App } from '../src/app.ts';
import { pixelsNear, readPdf } from './pdfReading.ts';
import { describeOnEachDatabase, joinAs, newMemberKey, startTestServer } from './support.ts';

const PASSWORD = 'correct horse battery';
const ADMIN = `admin.${randomBytes(4).toString('hex')}@school.example`;
const DAY_MS = 24 * 60 * 60 * 1000;
const CODE_LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/** A fresh room code (6 of the code's letters and digits). */
const roomCode = () => Array.from(randomBytes(6), (b) => CODE_LETTERS[b % CODE_LETTERS.length]).join('');

async function call(app: App, method: 'GET' | 'POST', path: string, options: { cookie?: string | null; body?: unknown; bearer?: string } = {}) {
  const response = await fetch(`${app.url}${path}`, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.cookie ? { cookie: options.cookie } : {}),
      ...(options.bearer ? { authorization: `Bearer ${options.bearer}` } : {}),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const setCookie = response.headers.get('set-cookie');
  const type = response.headers.get('content-type') ?? '';
  const body = type.startsWith('application/json') ? ((await response.json()) as Record<string, unknown> & { error?: { code: string } }) : null;
  const bytes = body === null ? new Uint8Array(await response.arrayBuffer()) : null;
  return { status: response.status, body, bytes, type, cookie: setCookie?.split(';')[0] ?? null };
}

async function signUp(app: App, email = `${randomBytes(5).toString('hex')}@school.example`, name = 'Ms Rivera') {
  const reply = await call(app, 'POST', '/api/teacher/sign-up', { body: { email, password: PASSWORD, displayName: name } });
  expect(reply.status).toBe(201);
  return { email, id: String(reply.body!.id), cookie: reply.cookie! };
}

async function lessonOf(app: App, cookie: string, title: string): Promise<SessionGrant> {
  const reply = await call(app, 'POST', '/api/rooms', { cookie, body: { teacherName: 'Ms Rivera', memberKey: newMemberKey(), title } });
  expect(reply.status).toBe(201);
  return reply.body as unknown as SessionGrant;
}

describeOnEachDatabase('deleting lessons and accounts, exporting an account', { env: { ADMIN_EMAILS: ADMIN } }, (suite) => {
  let app: App;
  let admin: string;
  beforeAll(async () => {
    app = suite.app;
    admin = (await signUp(app, ADMIN, 'The Admin')).cookie;
  });
  const auditFacts = (where: ReturnType<typeof sql>) => app.database.db.execute(sql`SELECT * FROM retention_purges WHERE ${where} ORDER BY id`);
  const factRows = async (where: ReturnType<typeof sql>) => {
    const result = (await auditFacts(where)) as unknown as { rows?: Record<string, unknown>[] } | Record<string, unknown>[];
    return Array.isArray(result) ? result : (result.rows ?? []);
  };

  test('DEL1: a teacher deletes her own lesson: its students are disconnected, it leaves her list, and one audit fact remains', async () => {
    const teacher = await signUp(app);
    const grant = await lessonOf(app, teacher.cookie, 'Volcanoes');
    const student = await joinAs(app, grant.room.code, 'Ana');
    const socket = suite.client(app, student.token);
    await socket.ready();

    // Another teacher, and a request with no account, are refused; the lesson stays.
    const other = await signUp(app);
    expect((await call(app, 'POST', `/api/teacher/rooms/${grant.room.code}/delete`, { cookie: other.cookie, body: {} })).body?.error?.code).toBe(ErrorCode.ROOM_NOT_FOUND);
    expect((await call(app, 'POST', `/api/teacher/rooms/${grant.room.code}/delete`, { body: {} })).status).toBe(401);
    // The lesson's own teacher session (a bearer token) is not the account: refused too.
    expect((await call(app, 'POST', `/api/teacher/rooms/${grant.room.code}/delete`, { bearer: grant.token, body: {} })).status).toBe(401);
    expect(TeacherRoomList.parse((await call(app, 'GET', '/api/teacher/rooms', { cookie: teacher.cookie })).body).rooms).toHaveLength(1);

    const deleted = await call(app, 'POST', `/api/teacher/rooms/${grant.room.code}/delete`, { cookie: teacher.cookie, body: {} });
    expect(DeletionReply.parse(deleted.body)).toEqual({ ok: true, decision: 'deleted', lessons: 1 });
    await socket.until(() => socket.received['session.ended'].length > 0, 'the student told the lesson ended');
    expect(TeacherRoomList.parse((await call(app, 'GET', '/api/teacher/rooms', { cookie: teacher.cookie })).body).rooms).toEqual([]);
    expect((await call(app, 'GET', `/api/teacher/rooms/${grant.room.code}/attendance/report`, { cookie: teacher.cookie })).status).toBe(404);
    expect((await call(app, 'POST', `/api/rooms/${grant.room.code}/join`, { body: { displayName: 'Late', memberKey: newMemberKey() } })).status).toBe(404);
    const facts = await factRows(sql`room_id = ${grant.room.id}::uuid`);
    expect(facts.map((f) => [f.scope, f.requested_by, f.reason])).toEqual([['room', 'teacher', 'deleted by its teacher']]);
    expect(JSON.stringify(facts)).not.toMatch(/Volcanoes|Ana|Rivera/);
    // A second delete finds nothing and leaves no second fact.
    expect((await call(app, 'POST', `/api/teacher/rooms/${grant.room.code}/delete`, { cookie: teacher.cookie, body: {} })).status).toBe(404);
    expect(await factRows(sql`room_id = ${grant.room.id}::uuid`)).toHaveLength(1);
  });

  test('EXP1: an admin exports an account as one zip: the account, each lesson\'s board as JSON and PDF, its attendance as CSV, its images', async () => {
    const teacher = await signUp(app, undefined, 'Mr Export');
    const grant = await lessonOf(app, teacher.cookie, 'Fractions');
    const png = pngFile(4, 4, [10, 20, 30, 255]);
    const sha256 = createHash('sha256').update(png).digest('hex');
    const upload = await fetch(`${app.url}/api/rooms/${grant.room.id}/images`, { method: 'POST', headers: { 'content-type': 'image/png', authorization: `Bearer ${grant.token}` }, body: png });
    expect(upload.status).toBe(201);
    const student = await joinAs(app, grant.room.code, 'Bea');
    const socket = suite.client(app, student.token);
    await socket.ready();
    const elementId = randomUUID();
    const shape: ElementShape = { kind: 'image', x: 0, y: 0, w: 40, h: 40, sha256, naturalWidth: 4, naturalHeight: 4 };
    expect(await socket.socket.timeout(5_000).emitWithAck(ClientEvent.ELEMENT_CREATE, { requestId: randomUUID(), id: elementId, shape })).toMatchObject({ ok: true });

    expect((await call(app, 'GET', `/api/admin/teachers/${teacher.id}/export`, { cookie: teacher.cookie })).status).toBe(403);
    const exported = await call(app, 'GET', `/api/admin/teachers/${teacher.id}/export`, { cookie: admin });
    expect([exported.status, exported.type]).toEqual([200, 'application/zip']);
    const files = unzipSync(exported.bytes!);
    const folder = `lessons/${grant.room.code}`;
    expect(Object.keys(files).sort()).toEqual(['account.json', `${folder}/attendance.csv`, `${folder}/images/${sha256}.png`, `${folder}/lesson.json`, `${folder}/lesson.pdf`]);
    const account = JSON.parse(strFromU8(files['account.json']!)) as { account: { id: string; email: string }; lessons: { code: string; title: string }[] };
    expect(account.account).toMatchObject({ id: teacher.id, email: teacher.email });
    expect(account.lessons.map((l) => [l.code, l.title])).toEqual([[grant.room.code, 'Fractions']]);
    const lesson = JSON.parse(strFromU8(files[`${folder}/lesson.json`]!)) as { lesson: { id: string }; board: { elements: { id: string; shape: ElementShape }[] } };
    expect(lesson.lesson.id).toBe(grant.room.id);
    expect(lesson.board.elements.map((e) => [e.id, e.shape])).toEqual([[elementId, shape]]);
    const csv = strFromU8(files[`${folder}/attendance.csv`]!).split(/\r?\n/);
    expect(csv[0]).toBe(ATTENDANCE_CSV_COLUMNS.join(','));
    expect(csv.some((line) => line.includes('Bea'))).toBe(true);
    expect(Buffer.from(files[`${folder}/images/${sha256}.png`]!).equals(png)).toBe(true);
    // The lesson as its teacher downloads it: a page per board, the title on it, the picture drawn.
    const pdf = await readPdf(files[`${folder}/lesson.pdf`]!);
    try {
      expect(pdf.pageCount).toBe(1);
      expect(pdf.pageTexts[0]).toContain('Fractions');
      expect(pixelsNear(await pdf.render(1, 2), [10, 20, 30], 8)).toBeGreaterThan(100);
    } finally {
      await pdf.close();
    }
  });

  test('DEL2: an admin deletes an account with all its lessons, after its email is typed again; the audit keeps ids and counts only', async () => {
    const teacher = await signUp(app, undefined, 'Ms Leaving');
    const lessons = [await lessonOf(app, teacher.cookie, 'Term 1'), await lessonOf(app, teacher.cookie, 'Term 2')];
    const kept = await lessonOf(app, (await signUp(app)).cookie, 'Another teacher');
    const student = await joinAs(app, lessons[0]!.room.code, 'Cai');
    const socket = suite.client(app, student.token);
    await socket.ready();

    const path = `/api/admin/teachers/${teacher.id}/delete`;
    expect((await call(app, 'POST', path, { cookie: teacher.cookie, body: { confirmEmail: teacher.email } })).status).toBe(403);
    expect((await call(app, 'POST', path, { cookie: admin, body: { confirmEmail: 'someone.else@school.example' } })).body?.error?.code).toBe(ErrorCode.BAD_REQUEST);
    const deleted = await call(app, 'POST', path, { cookie: admin, body: { confirmEmail: teacher.email } });
    expect(DeletionReply.parse(deleted.body)).toEqual({ ok: true, decision: 'deleted', lessons: 2 });
    await socket.until(() => socket.received['session.ended'].length > 0, 'the student told the lesson ended');

    expect((await call(app, 'GET', '/api/teacher/me', { cookie: teacher.cookie })).status).toBe(401);
    expect((await call(app, 'POST', '/api/teacher/sign-in', { body: { email: teacher.email, password: PASSWORD } })).status).toBe(401);
    for (const lesson of lessons) expect((await call(app, 'POST', `/api/rooms/${lesson.room.code}/join`, { body: { displayName: 'X', memberKey: newMemberKey() } })).status).toBe(404);
    expect((await call(app, 'POST', `/api/rooms/${kept.room.code}/join`, { body: { displayName: 'Y', memberKey: newMemberKey() } })).status).toBe(200);
    const facts = await factRows(sql`teacher_id = ${teacher.id}::uuid`);
    expect(facts.map((f) => [f.scope, f.requested_by])).toEqual([['room', 'admin'], ['room', 'admin'], ['teacher', 'admin']]);
    expect(JSON.stringify(facts)).not.toMatch(/Leaving|Term 1|Term 2|Cai|@school/);
    expect((await call(app, 'POST', path, { cookie: admin, body: { confirmEmail: teacher.email } })).status).toBe(404);
  });

  test(`DEL3: deleting an account ends every one of its open lessons, past the ${MAX_LISTED_ROOMS} most recent: the oldest lesson's student is told too`, async () => {
    const teacher = await signUp(app, undefined, 'Ms Many');
    const oldest = await lessonOf(app, teacher.cookie, 'The first lesson');
    const student = await joinAs(app, oldest.room.code, 'Dee');
    const socket = suite.client(app, student.token);
    await socket.ready();
    // More lessons than the account's list shows, all newer than the first.
    suite.clock.advance(1_000);
    for (let i = 0; i < MAX_LISTED_ROOMS; i++) {
      const created = await app.store.createRoom({ code: roomCode(), title: `Lesson ${i}`, teacherName: 'Ms Many', memberKeyHash: randomUUID(), teacherId: teacher.id });
      expect(created.decision).toBe('created');
    }
    const deleted = await call(app, 'POST', `/api/admin/teachers/${teacher.id}/delete`, { cookie: admin, body: { confirmEmail: teacher.email } });
    expect(DeletionReply.parse(deleted.body)).toEqual({ ok: true, decision: 'deleted', lessons: MAX_LISTED_ROOMS + 1 });
    await socket.until(() => socket.received['session.ended'].length > 0, 'the student of the oldest lesson told it ended');
  }, 60_000);
});

const pgSkip = postgresUnavailableReason();
describe.skipIf(pgSkip !== null)(`retention on two server nodes over one Postgres${pgSkip ? ` (skipped: ${pgSkip})` : ''}`, () => {
  let testDb: TestDatabase;
  const apps: App[] = [];
  const clock = new FrozenClock(new Date('2030-01-06T08:00:00Z'));
  beforeAll(async () => {
    testDb = await openTestDatabase('postgres');
    const second = await openDatabase({ kind: 'postgres', url: testDb.url!, poolSize: 4, migrate: false });
    apps.push(await startTestServer(testDb.database, { clock }), await startTestServer(second, { clock }));
  });
  afterAll(async () => {
    for (const node of apps) await node.close();
    await apps[1]?.database.close();
    await testDb?.drop();
  });

  test('RET1: each lesson past RETENTION_DAYS (365 by default) is deleted by exactly one of two nodes, with exactly one audit fact; a recent one is kept', async () => {
    const [a, b] = apps as [App, App];
    const old: SessionGrant[] = [];
    for (let i = 0; i < 16; i++) {
      const grant = await lessonOf(i % 2 === 0 ? a : b, (await signUp(a)).cookie, `Old ${i}`);
      await joinAs(a, grant.room.code, 'Dee');
      old.push(grant);
    }
    clock.advance(300 * DAY_MS);
    const recent = await lessonOf(b, (await signUp(b)).cookie, 'Recent');
    clock.advance(66 * DAY_MS);
    const deleted = await Promise.all([a.retention.pass(), b.retention.pass(), a.retention.pass(), b.retention.pass()]);
    const facts = await testDb.database.db.execute(sql`SELECT room_id, count(*)::int AS n FROM retention_purges WHERE requested_by = 'retention' GROUP BY room_id`);
    const perRoom = new Map((((facts as unknown as { rows?: { room_id: string; n: number }[] }).rows ?? facts) as { room_id: string; n: number }[]).map((r) => [r.room_id, r.n]));
    expect(old.map((g) => perRoom.get(g.room.id))).toEqual(old.map(() => 1));
    expect(perRoom.has(recent.room.id)).toBe(false);
    // What the passes say they deleted is what the audit holds: no pass counts another's.
    expect(deleted.reduce((sum, n) => sum + n, 0)).toBe(old.length);
    for (const grant of old) expect((await call(a, 'POST', `/api/rooms/${grant.room.code}/join`, { body: { displayName: 'X', memberKey: newMemberKey() } })).status).toBe(404);
    expect((await call(b, 'POST', `/api/rooms/${recent.room.code}/join`, { body: { displayName: 'X', memberKey: newMemberKey() } })).status).toBe(200);
  });
});
