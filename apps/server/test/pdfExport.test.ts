/**
 * The lesson's PDFs over the real server (docs/protocol.md, "PDF export"): the whole lesson and an
 * activity's class pack, each parsed back with pdf.js (page count, text) and drawn to pixels (a
 * stroke's colour is on the page). Only the lesson's teacher gets them: her session in the lesson
 * (bearer) or her account (cookie); a student is refused `forbidden`, another account's lesson is
 * `room_not_found`, an unknown activity `not_found`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { ClientEvent, ErrorCode, type BoardInfo, type ElementShape, type SessionGrant } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { PAGE_HEIGHT, PAGE_WIDTH } from '../src/pdf/boardsPdf.ts';
import { pdfFacts, pixelsNear, readPdf } from './pdfReading.ts';
import { describeOnEachDatabase, joinAs, newMemberKey, type TestClient } from './support.ts';

const RED: readonly [number, number, number] = [220, 30, 30];
const BLUE: readonly [number, number, number] = [30, 60, 220];
const hex = ([r, g, b]: readonly [number, number, number]) => `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;

/** A thick zig-zag stroke in `color`: a few thousand pixels of it on any page. */
const stroke = (x: number, color: readonly [number, number, number]): ElementShape => ({
  kind: 'pen',
  x,
  y: 40,
  points: Array.from({ length: 40 }, (_, i) => [i * 8, (i % 2) * 60, 0.5] as [number, number, number]),
  stroke: hex(color),
  strokeWidth: 12,
});
const text = (x: number, y: number, words: string): ElementShape => ({ kind: 'text', x, y, w: 420, h: 40, text: words, stroke: '#1e1e1e', fontSize: 24 });

async function call(app: App, path: string, auth: { bearer?: string; cookie?: string } = {}) {
  const response = await fetch(`${app.url}${path}`, {
    headers: { ...(auth.bearer ? { authorization: `Bearer ${auth.bearer}` } : {}), ...(auth.cookie ? { cookie: auth.cookie } : {}) },
  });
  const type = response.headers.get('content-type') ?? '';
  const body = type.startsWith('application/json') ? ((await response.json()) as { error?: { code: string } }) : null;
  return { status: response.status, type, body, bytes: body ? null : new Uint8Array(await response.arrayBuffer()), disposition: response.headers.get('content-disposition') };
}

async function teacherAccount(app: App) {
  const email = `${randomBytes(5).toString('hex')}@school.example`;
  const response = await fetch(`${app.url}/api/teacher/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse battery', displayName: 'Ms Rivera' }),
  });
  expect(response.status).toBe(201);
  return response.headers.get('set-cookie')!.split(';')[0]!;
}

async function lessonOf(app: App, cookie: string, title: string): Promise<SessionGrant> {
  const response = await fetch(`${app.url}/api/rooms`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie },
    body: JSON.stringify({ teacherName: 'Ms Rivera', memberKey: newMemberKey(), title }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as SessionGrant;
}

describeOnEachDatabase('PDF export of a lesson and a class pack', {}, (suite) => {
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });
  const create = (c: TestClient, shape: ElementShape, boardId?: string) =>
    c.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_CREATE, { requestId: randomUUID(), id: randomUUID(), shape, ...(boardId ? { boardId } : {}) });

  test('PDF1: the lesson as one PDF: its title, Spanish and Arabic text as text, an equation and a stroke drawn as vectors', async () => {
    const cookie = await teacherAccount(app);
    const grant = await lessonOf(app, cookie, 'Geometría');
    const t = suite.client(app, grant.token);
    await t.ready();
    for (const shape of [
      stroke(0, RED),
      text(0, 160, 'Hola señor, ¿qué tal?'),
      text(0, 220, 'مرحبا بالعالم'),
      { kind: 'equation', x: 0, y: 280, w: 160, h: 60, latex: '\\frac{a}{b}', stroke: '#1e1e1e', fontSize: 32 } satisfies ElementShape,
    ]) {
      expect(await create(t, shape)).toMatchObject({ ok: true });
    }

    const during = await call(app, `/api/rooms/${grant.room.code}/export/lesson.pdf`, { bearer: grant.token });
    expect([during.status, during.type]).toEqual([200, 'application/pdf']);
    // The name in its own letters for browsers (RFC 8187), and in ASCII beside it.
    expect(during.disposition).toBe(`attachment; filename="Geometria-${grant.room.code}.pdf"; filename*=UTF-8''${encodeURIComponent(`Geometría-${grant.room.code}.pdf`)}`);
    const pdf = await readPdf(during.bytes!);
    try {
      expect(pdf.pageCount).toBe(1);
      const words = pdf.pageTexts[0]!;
      expect(words).toContain('Geometría');
      expect(words).toContain('Hola señor, ¿qué tal?');
      // pdf.js lists a right-to-left line's words as runs of their own.
      expect(words).toContain('مرحبا');
      expect(words).toContain('بالعالم');
      const page = await pdf.render(1);
      if (process.env.PDF_TEST_DUMP) (await import('node:fs')).writeFileSync(process.env.PDF_TEST_DUMP, JSON.stringify({ w: page.width, h: page.height, d: Buffer.from(page.data).toString('base64') }));
      expect([page.width, page.height]).toEqual([Math.ceil(PAGE_WIDTH), Math.ceil(PAGE_HEIGHT)]);
      // The stroke's red is on the page (hundreds of pixels), not a placeholder.
      expect(pixelsNear(page, RED)).toBeGreaterThan(500);
    } finally {
      await pdf.close();
    }

    // A second page: the lesson's PDF has a page per lesson page, in order, each captioned.
    const pageId = randomUUID();
    expect(await t.socket.timeout(10_000).emitWithAck(ClientEvent.PAGE_ADD, { pageId, afterPageId: null, title: 'Ejercicios', background: 'grid' })).toMatchObject({ ok: true });
    expect(await create(t, stroke(0, BLUE), pageId)).toMatchObject({ ok: true });
    const twoPages = await readPdf((await call(app, `/api/rooms/${grant.room.code}/export/lesson.pdf`, { bearer: grant.token })).bytes!);
    try {
      expect(twoPages.pageCount).toBe(2);
      expect(twoPages.pageTexts.findIndex((text) => text.includes('Geometría · Ejercicios'))).toBeGreaterThanOrEqual(0);
      const withStroke = await twoPages.render(twoPages.pageTexts.findIndex((text) => text.includes('Ejercicios')) + 1);
      expect(pixelsNear(withStroke, BLUE)).toBeGreaterThan(500);
    } finally {
      await twoPages.close();
    }

    // The same PDF (both pages) from the lesson library (the account's cookie), after the lesson.
    const after = await call(app, `/api/teacher/rooms/${grant.room.code}/export/lesson.pdf`, { cookie });
    expect([after.status, after.type]).toEqual([200, 'application/pdf']);
    expect((await pdfFacts(after.bytes!)).pageCount).toBe(2);

    // A title in Arabic names the file too (a header carries it encoded), and is the page's caption.
    const arabic = await lessonOf(app, cookie, 'الكسور');
    const named = await call(app, `/api/teacher/rooms/${arabic.room.code}/export/lesson.pdf`, { cookie });
    expect(named.disposition).toBe(`attachment; filename="-${arabic.room.code}.pdf"; filename*=UTF-8''${encodeURIComponent(`الكسور-${arabic.room.code}.pdf`)}`);
    expect((await pdfFacts(named.bytes!)).pageTexts[0]).toContain('الكسور');
  });

  test('PDF2: a class pack is one PDF with a page per student, named on the page, in name order, with their own strokes', async () => {
    const cookie = await teacherAccount(app);
    const grant = await lessonOf(app, cookie, 'Fractions');
    const t = suite.client(app, grant.token);
    await t.ready();
    const names = ['Ben', 'Ana'];
    const students = [];
    for (const name of names) students.push(suite.client(app, (await joinAs(app, grant.room.code, name)).token));
    for (const s of students) await s.ready();
    const started = (await t.socket.timeout(10_000).emitWithAck(ClientEvent.ACTIVITY_START, { activityId: randomUUID(), title: 'Halves', start: { kind: 'blank' } } as never)) as unknown as {
      ok: true;
      boards: BoardInfo[];
      activity: { id: string };
    };
    expect(started.ok).toBe(true);
    const colours = [BLUE, RED];
    for (const [i, s] of students.entries()) {
      const board = started.boards.find((b) => b.ownerName === names[i])!;
      expect(await create(s, stroke(0, colours[i]!), board.id)).toMatchObject({ ok: true });
      expect(await create(s, text(0, 160, `answer of ${names[i]}`), board.id)).toMatchObject({ ok: true });
    }

    const path = `/export/activities/${started.activity.id}/class-pack.pdf`;
    const pack = await call(app, `/api/rooms/${grant.room.code}${path}`, { bearer: grant.token });
    expect([pack.status, pack.type]).toEqual([200, 'application/pdf']);
    const pdf = await readPdf(pack.bytes!);
    try {
      expect(pdf.pageCount).toBe(2);
      expect(pdf.pageTexts[0]).toContain('Ana · Halves');
      expect(pdf.pageTexts[0]).toContain('answer of Ana');
      expect(pdf.pageTexts[0]).not.toContain('Ben');
      expect(pdf.pageTexts[1]).toContain('Ben · Halves');
      expect(pdf.pageTexts[1]).toContain('answer of Ben');
      // Ana drew in red, Ben in blue: each page has its owner's stroke and not the other's.
      const [ana, ben] = [await pdf.render(1), await pdf.render(2)];
      expect(pixelsNear(ana, RED)).toBeGreaterThan(500);
      expect(pixelsNear(ana, BLUE)).toBe(0);
      expect(pixelsNear(ben, BLUE)).toBeGreaterThan(500);
      expect(pixelsNear(ben, RED)).toBe(0);
    } finally {
      await pdf.close();
    }
    const fromLibrary = await call(app, `/api/teacher/rooms/${grant.room.code}${path}`, { cookie });
    expect((await pdfFacts(fromLibrary.bytes!)).pageCount).toBe(2);

    // An unknown activity, and one that is not an id.
    expect((await call(app, `/api/rooms/${grant.room.code}/export/activities/${randomUUID()}/class-pack.pdf`, { bearer: grant.token })).body?.error?.code).toBe(ErrorCode.NOT_FOUND);
    expect((await call(app, `/api/rooms/${grant.room.code}/export/activities/nope/class-pack.pdf`, { bearer: grant.token })).body?.error?.code).toBe(ErrorCode.BAD_REQUEST);
  });

  test('PDF3: only the lesson\'s teacher gets its PDFs: a student is forbidden, no credentials not_authenticated, another account room_not_found', async () => {
    const cookie = await teacherAccount(app);
    const grant = await lessonOf(app, cookie, 'Private');
    const student = await joinAs(app, grant.room.code, 'Ana');
    const activity = randomUUID();
    for (const path of ['/export/lesson.pdf', `/export/activities/${activity}/class-pack.pdf`]) {
      // A student's own session, hand-written: refused as the UI would be.
      const asStudent = await call(app, `/api/rooms/${grant.room.code}${path}`, { bearer: student.token });
      expect([asStudent.status, asStudent.body?.error?.code]).toEqual([403, ErrorCode.FORBIDDEN]);
      const anonymous = await call(app, `/api/rooms/${grant.room.code}${path}`);
      expect([anonymous.status, anonymous.body?.error?.code]).toEqual([401, ErrorCode.NOT_AUTHENTICATED]);
      const noAccount = await call(app, `/api/teacher/rooms/${grant.room.code}${path}`);
      expect(noAccount.status).toBe(401);
      const otherTeacher = await call(app, `/api/teacher/rooms/${grant.room.code}${path}`, { cookie: await teacherAccount(app) });
      expect([otherTeacher.status, otherTeacher.body?.error?.code]).toEqual([404, ErrorCode.ROOM_NOT_FOUND]);
    }
  });
});
