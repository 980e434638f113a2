/**
 * Share links and replay over HTTP (http/shareRoutes.ts), by hand-written requests: only the
 * lesson's teacher makes, changes and turns off a link, only once the lesson ended; a viewer with
 * no account reads the lesson, its boards and (when included) replay, never a name or an id of a
 * person; a link turned off, or a token that never was, answers `410 share_link_off`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { ClientEvent, ErrorCode, ReplayPage, SharedBoard, SharedLesson, ShareLinkCreated, type ElementShape } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { createRoom, describeOnEachDatabase, joinAs, type TestClient } from './support.ts';

const square: ElementShape = { kind: 'rect', x: 10, y: 10, w: 40, h: 30, stroke: '#000000', fill: 'transparent', strokeWidth: 2 };
const rid = () => `r-${randomUUID()}`;

async function call(method: string, url: string, token?: string, body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, body: text ? (JSON.parse(text) as unknown) : null, cache: response.headers.get('cache-control') };
}

const create = (c: TestClient, shape: ElementShape) =>
  c.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_CREATE, { requestId: rid(), id: randomUUID(), shape });

describeOnEachDatabase('share links and replay routes', {}, (suite) => {
  const { client, clock } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  /** A lesson where the teacher and a student named Zoë drew, then ended by the teacher. */
  async function endedLesson() {
    const teacher = await createRoom(app, 'Ms Rivera');
    const zoe = await joinAs(app, teacher.room.code, 'Zoë Absent-Never');
    const t = client(app, teacher.token);
    const z = client(app, zoe.token);
    await Promise.all([t.ready(), z.ready()]);
    expect(await create(t, square)).toMatchObject({ ok: true });
    // A second later, so replay's order (by time) is the teacher's shape, then Zoë's.
    clock.advance(1_000);
    expect(await create(z, { ...square, x: 200 })).toMatchObject({ ok: true });
    const shareUrl = `${app.url}/api/rooms/${teacher.room.code}/share`;
    // Before the end: a student is refused as the UI would be, the teacher is told to end first.
    expect(await call('POST', shareUrl, zoe.token, {})).toMatchObject({ status: 403, body: { error: { code: ErrorCode.FORBIDDEN } } });
    expect(await call('POST', shareUrl, teacher.token, {})).toMatchObject({ status: 409, body: { error: { code: ErrorCode.CONFLICT } } });
    expect(await t.socket.timeout(10_000).emitWithAck(ClientEvent.LESSON_END, { requestId: rid() })).toMatchObject({ ok: true });
    return { teacher, zoe, shareUrl };
  }

  test('only the teacher shares an ended lesson; the viewer reads it with no account and sees no name or id of a person', async () => {
    const { teacher, zoe, shareUrl } = await endedLesson();
    // The student's session ended with the lesson; nobody without the teacher's session or account gets in.
    expect(await call('POST', shareUrl, zoe.token, {})).toMatchObject({ status: 409, body: { error: { code: ErrorCode.LESSON_ENDED } } });
    expect((await call('POST', shareUrl, undefined, {})).status).toBe(401);
    expect((await call('GET', `${app.url}/api/teacher/rooms/${teacher.room.code}/share`)).status).toBe(401);
    expect(await call('POST', shareUrl, teacher.token, { names: 'yes' })).toMatchObject({ status: 400, body: { error: { code: ErrorCode.BAD_REQUEST } } });

    const made = await call('POST', shareUrl, teacher.token, {});
    expect(made.status).toBe(201);
    const link = ShareLinkCreated.parse(made.body);
    expect(link).toMatchObject({ on: true, options: { names: false, privateBoards: false, replay: false } });
    expect(await call('GET', shareUrl, teacher.token)).toMatchObject({ status: 200, body: { on: true } });
    // The token is not kept: the teacher's state never carries it again.
    expect((await call('GET', shareUrl, teacher.token)).text).not.toContain(link.token);

    const base = `${app.url}/api/shared/${link.token}`;
    const lesson = await call('GET', base);
    expect(lesson.status).toBe(200);
    expect(lesson.cache).toBe('no-store');
    expect(SharedLesson.parse(lesson.body).boards).toEqual([{ index: 0, kind: 'page', title: null, owner: null, paper: 'dots' }]);
    const board = await call('GET', `${base}/boards/0`);
    expect(SharedBoard.parse(board.body).elements.map((e) => e.shape.x)).toEqual([10, 200]);
    for (const secret of [teacher.userId, teacher.sessionId, zoe.userId, zoe.sessionId, 'Zoë', 'createdBy', 'updatedBy', 'lock']) {
      expect(lesson.text + board.text).not.toContain(secret);
    }
    expect(await call('GET', `${base}/boards/1`)).toMatchObject({ status: 404, body: { error: { code: ErrorCode.NOT_FOUND } } });
    expect(await call('GET', `${base}/boards/abc`)).toMatchObject({ status: 404 });

    // Replay only once included, and then without authors.
    expect(await call('GET', `${base}/boards/0/replay`)).toMatchObject({ status: 403, body: { error: { code: ErrorCode.FORBIDDEN } } });
    expect(await call('PATCH', shareUrl, teacher.token, { replay: true })).toMatchObject({ status: 200, body: { options: { replay: true } } });
    const replay = await call('GET', `${base}/boards/0/replay`);
    expect(ReplayPage.parse(replay.body).steps).toHaveLength(2);
    expect(replay.text).not.toContain(zoe.userId);
    expect(replay.text).not.toContain('"by"');
    // The teacher's own replay names who made each step.
    const teachers = await call('GET', `${app.url}/api/rooms/${teacher.room.code}/replay/0`, teacher.token);
    expect(ReplayPage.parse(teachers.body).steps.map((s) => s.by)).toEqual([teacher.userId, zoe.userId]);
    // A cursor the server did not write reads from the start; an overlong one is refused.
    expect(ReplayPage.parse((await call('GET', `${base}/boards/0/replay?after=bogus`)).body).steps).toHaveLength(2);
    expect((await call('GET', `${base}/boards/0/replay?after=${'x'.repeat(300)}`)).status).toBe(400);
  });

  test('a link turned off answers 410 share_link_off at once, as does a token that never was or is malformed', async () => {
    const { teacher, shareUrl } = await endedLesson();
    const link = ShareLinkCreated.parse((await call('POST', shareUrl, teacher.token, { replay: true })).body);
    const base = `${app.url}/api/shared/${link.token}`;
    expect((await call('GET', `${base}/boards/0`)).status).toBe(200);

    expect(await call('DELETE', shareUrl, teacher.token)).toMatchObject({ status: 200, body: { ok: true, decision: 'turned_off' } });
    for (const path of ['', '/boards/0', '/boards/0/replay', `/images/${'a'.repeat(64)}`]) {
      expect(await call('GET', `${base}${path}`)).toMatchObject({ status: 410, body: { error: { code: ErrorCode.SHARE_LINK_OFF } } });
    }
    expect(await call('DELETE', shareUrl, teacher.token)).toMatchObject({ status: 200, body: { decision: 'already_off' } });
    expect(await call('PATCH', shareUrl, teacher.token, { names: true })).toMatchObject({ status: 404, body: { error: { code: ErrorCode.NOT_FOUND } } });

    const never = randomBytes(32).toString('base64url');
    expect(await call('GET', `${app.url}/api/shared/${never}`)).toMatchObject({ status: 410, body: { error: { code: ErrorCode.SHARE_LINK_OFF } } });
    expect(await call('GET', `${app.url}/api/shared/short`)).toMatchObject({ status: 410, body: { error: { code: ErrorCode.SHARE_LINK_OFF } } });
  });

  test('a reopened lesson hides its link until it ends again', async () => {
    const { teacher, shareUrl } = await endedLesson();
    const link = ShareLinkCreated.parse((await call('POST', shareUrl, teacher.token, {})).body);
    const t = client(app, teacher.token);
    await t.ready();
    expect(await t.socket.timeout(10_000).emitWithAck(ClientEvent.LESSON_REOPEN, { requestId: rid() })).toMatchObject({ ok: true });
    expect((await call('GET', `${app.url}/api/shared/${link.token}`)).status).toBe(410);
    expect(await t.socket.timeout(10_000).emitWithAck(ClientEvent.LESSON_END, { requestId: rid() })).toMatchObject({ ok: true });
    expect((await call('GET', `${app.url}/api/shared/${link.token}`)).status).toBe(200);
  });

  test('the viewer\'s reads are rate-limited per address like other public routes: past 600 a minute, 429 rate_limited', async () => {
    const { teacher, shareUrl } = await endedLesson();
    const link = ShareLinkCreated.parse((await call('POST', shareUrl, teacher.token, {})).body);
    // In bursts, so the bucket's refill (10 a second) cannot keep up on a slow machine.
    let refused: Awaited<ReturnType<typeof call>> | undefined;
    for (let burst = 0; burst < 30 && !refused; burst++) {
      const reads = await Promise.all(Array.from({ length: 50 }, () => call('GET', `${app.url}/api/shared/${link.token}`)));
      refused = reads.find((read) => read.status !== 200);
    }
    expect(refused).toMatchObject({ status: 429, body: { error: { code: ErrorCode.RATE_LIMITED } } });
  });
});
