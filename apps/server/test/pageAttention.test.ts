/**
 * The attention kit on every lesson page (issue 39, docs/protocol.md "The attention kit"): a laser
 * packet naming a page (`boardId`) travels in that page's `board.pointers` batch, to the page's
 * channel only, and moves the sender's pointer there, never the class board's; the student's laser
 * still needs the lesson's leave; a `boardId` that is not a page the sender reads now (another
 * page while paced, a private board) is refused `board_forbidden` and reaches no one; the views of
 * "follow the teacher" name their page, so a client knows which board a view is about.
 */
import { randomUUID } from 'node:crypto';
import { ClientEvent, ErrorCode, type BoardInfo, type BoardPointers, type InkUpdate, type LessonPages, type SharedView } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { createRoom, describeOnEachDatabase, joinAs, type TestClient } from './support.ts';

const rid = () => randomUUID().replaceAll('-', '');
const view = (cx: number): SharedView => ({ cx, cy: 100, w: 1280, h: 800 });

/** Every `board.pointers` batch a client received, grouped ones included. */
const boardBatches = (c: TestClient): BoardPointers[] => [...c.received['board.pointers'], ...c.received['boards.pointers'].flatMap((b) => b.batches)];
const pageLaser = (c: TestClient, boardId: string, sessionId: string) =>
  boardBatches(c).filter((b) => b.boardId === boardId).flatMap((b) => b.laser ?? []).filter(([s]) => s === sessionId);
const pagePointer = (c: TestClient, boardId: string, sessionId: string) =>
  boardBatches(c).filter((b) => b.boardId === boardId).flatMap((b) => b.pointers).filter(([s]) => s === sessionId);
const classLaser = (c: TestClient) => c.received.cursors.flatMap((b) => b.laser ?? []);
const classCursor = (c: TestClient, sessionId: string) => c.received.cursors.flatMap((b) => b.cursors).filter(([s]) => s === sessionId);
const barrierInk = (strokeId: string, boardId?: string): InkUpdate & { boardId?: string } => ({
  strokeId,
  from: 0,
  points: [[1, 1, 0.5]],
  stroke: '#1e1e1e',
  strokeWidth: 3,
  ...(boardId ? { boardId } : {}),
});

describeOnEachDatabase('the attention kit on lesson pages', {}, (suite) => {
  const { client } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  const ask = <T = Record<string, unknown>>(c: TestClient, event: string, packet: unknown) =>
    c.socket.timeout(10_000).emitWithAck(event as typeof ClientEvent.PAGE_LIST, packet as never) as unknown as Promise<{ ok: true } & T>;

  /** A paced lesson of three pages, the teacher on page 2, Ana (a student) there with her. */
  async function classOnPageTwo() {
    const teacher = await createRoom(app);
    const t = client(app, teacher.token);
    await t.ready();
    const two = randomUUID();
    const three = randomUUID();
    await ask(t, ClientEvent.PAGE_ADD, { pageId: two, afterPageId: teacher.room.id });
    await ask<{ pages: LessonPages }>(t, ClientEvent.PAGE_ADD, { pageId: three, afterPageId: two });
    expect(await ask(t, ClientEvent.PAGE_GOTO, { pageId: two })).toMatchObject({ ok: true, pages: { currentPageId: two } });
    const ana = await joinAs(app, teacher.room.code, 'Ana');
    const a = client(app, ana.token);
    await a.ready();
    for (const c of [t, a]) expect(await ask(c, ClientEvent.PAGE_SYNC, { pageId: two })).toMatchObject({ ok: true });
    return { teacher, ana, t, a, two, three };
  }

  /** Everything the sender sent before this on the page and on the class board has reached `c` once it sees both inks. */
  async function settle(sender: TestClient, c: TestClient, pageId: string) {
    const onPage = randomUUID();
    const onClass = randomUUID();
    sender.socket.emit(ClientEvent.INK, barrierInk(onPage, pageId));
    sender.socket.emit(ClientEvent.INK, barrierInk(onClass));
    await c.until(() => boardBatches(c).some((b) => b.boardId === pageId && (b.ink ?? []).some((e) => e.strokeId === onPage)), 'the page barrier');
    await c.until(() => c.received.cursors.some((b) => (b.ink ?? []).some((e) => e.strokeId === onClass)), 'the class barrier');
  }

  test("I12: the teacher's laser on page 2 reaches the class on page 2 in that page's batch, with her pointer there, and nothing of it in the class board's batch", async () => {
    const { teacher, t, a, two } = await classOnPageTwo();
    t.socket.emit(ClientEvent.LASER, { x: 321, y: 654, boardId: two });
    const seen = await a.until(() => pageLaser(a, two, teacher.sessionId)[0], "the teacher's laser on page 2");
    expect(seen).toEqual([teacher.sessionId, 321, 654]);
    expect(pagePointer(a, two, teacher.sessionId).some(([, userId, x, y]) => userId === teacher.userId && x === 321 && y === 654)).toBe(true);
    // The class board's batches (students see the teacher's cursor there by default) carry neither.
    await settle(t, a, two);
    expect(classLaser(a)).toEqual([]);
    expect(classCursor(a, teacher.sessionId).some(([, x, y]) => x === 321 && y === 654)).toBe(false);

    // The packet of before pages (no boardId) is still the class board's, in its cursors batch.
    t.socket.emit(ClientEvent.LASER, { x: 5, y: 6 });
    await a.until(() => classLaser(a).some(([s, x]) => s === teacher.sessionId && x === 5), "the teacher's laser on the class board");
    expect(pageLaser(a, two, teacher.sessionId).some(([, x]) => x === 5)).toBe(false);
    for (const c of [t, a]) c.close();
  });

  test("a student's laser on a page is refused forbidden_by_policy and reaches no one until the teacher allows it; then it reaches the page", async () => {
    const { ana, t, a, two } = await classOnPageTwo();
    a.socket.emit(ClientEvent.LASER, { x: 10, y: 10, boardId: two });
    const notice = await a.until(() => a.received.notice.find((n) => n.event === ClientEvent.LASER), 'the laser notice');
    expect(notice.code).toBe(ErrorCode.FORBIDDEN_BY_POLICY);
    await settle(a, t, two);
    expect(pageLaser(t, two, ana.sessionId)).toEqual([]);

    expect(await ask(t, ClientEvent.LESSON_SETTINGS, { requestId: rid(), settings: { laserAllowed: true } })).toMatchObject({ ok: true });
    await a.until(() => a.eventsOfKind('room.updated').some((e) => e.payload.settings.laserAllowed), 'laser allowed');
    a.socket.emit(ClientEvent.LASER, { x: 30, y: 30, boardId: two });
    await t.until(() => pageLaser(t, two, ana.sessionId).some(([, x]) => x === 30), "Ana's laser on page 2");
    for (const c of [t, a]) c.close();
  });

  test('I12: a laser naming a board the sender may not point on (another page while paced, a private board) is refused board_forbidden and reaches no one', async () => {
    const { teacher, ana, t, a, three } = await classOnPageTwo();
    expect(await ask(t, ClientEvent.LESSON_SETTINGS, { requestId: rid(), settings: { laserAllowed: true } })).toMatchObject({ ok: true });
    await a.until(() => a.eventsOfKind('room.updated').some((e) => e.payload.settings.laserAllowed), 'laser allowed');
    // Paced on page 2, Ana may not read page 3: her laser there is refused, as her page.sync would be.
    expect(await ask(t, ClientEvent.PAGE_SYNC, { pageId: three })).toMatchObject({ ok: true });
    a.socket.emit(ClientEvent.LASER, { x: 40, y: 40, boardId: three });
    expect((await a.until(() => a.received.notice.find((n) => n.event === ClientEvent.LASER), 'the notice')).code).toBe(ErrorCode.BOARD_FORBIDDEN);
    await settle(t, t, three);
    expect(pageLaser(t, three, ana.sessionId)).toEqual([]);

    // A private board has no laser, not even the teacher's, who may draw on it.
    const started = await ask<{ boards: BoardInfo[] }>(t, ClientEvent.ACTIVITY_START, { activityId: randomUUID(), title: 'Sums', start: { kind: 'blank' } });
    const anasBoard = started.boards.find((b) => b.ownerUserId === ana.userId)!;
    t.socket.emit(ClientEvent.LASER, { x: 50, y: 50, boardId: anasBoard.id });
    expect((await t.until(() => t.received.notice.find((n) => n.event === ClientEvent.LASER), 'the notice')).code).toBe(ErrorCode.BOARD_FORBIDDEN);
    expect(await ask(a, ClientEvent.BOARD_SYNC, { boardId: anasBoard.id })).toMatchObject({ ok: true });
    t.socket.emit(ClientEvent.INK, barrierInk(randomUUID(), anasBoard.id));
    await a.until(() => boardBatches(a).some((b) => b.boardId === anasBoard.id && (b.ink ?? []).length > 0), 'the barrier on her board');
    expect(boardBatches(a).flatMap((b) => b.laser ?? [])).toEqual([]);
    // The lesson's own page takes no boardId (as for board.pointer): naming it is refused too.
    const again = client(app, teacher.token);
    await again.ready();
    again.socket.emit(ClientEvent.LASER, { x: 60, y: 60, boardId: teacher.room.id });
    expect((await again.until(() => again.received.notice.find((n) => n.event === ClientEvent.LASER), 'the notice')).code).toBe(ErrorCode.BOARD_FORBIDDEN);
    for (const c of [t, a, again]) c.close();
  });

  test("follow the teacher on a page: her present, bring and viewport name the page, a late joiner is told it; a page she does not read is refused board_forbidden", async () => {
    const { teacher, t, a, two } = await classOnPageTwo();
    expect(await ask(t, ClientEvent.FOLLOW_PRESENT, { requestId: rid(), presenting: true, view: view(0), boardId: two })).toMatchObject({ ok: true });
    expect(await a.until(() => a.received.follow.find((f) => f.kind === 'presenting'), 'presenting')).toEqual({ kind: 'presenting', presenting: true, view: view(0), boardId: two });
    expect(await ask(a, ClientEvent.FOLLOW_SET, { requestId: rid(), following: true })).toMatchObject({ ok: true });
    await t.until(() => t.received.follow.some((f) => f.kind === 'followers' && f.count === 1), 'one follower');
    t.socket.emit(ClientEvent.VIEWPORT, { ...view(700), boardId: two });
    expect(await a.until(() => a.received.cursors.find((b) => b.viewport?.view.cx === 700)?.viewport, 'the view')).toEqual({ sessionId: teacher.sessionId, view: view(700), boardId: two });

    const late = client(app, (await joinAs(app, teacher.room.code, 'Ben')).token);
    await late.ready();
    expect(await late.until(() => late.received.follow.find((f) => f.kind === 'presenting'), 'presenting, late')).toEqual({ kind: 'presenting', presenting: true, view: view(700), boardId: two });

    expect(await ask(t, ClientEvent.FOLLOW_BRING, { requestId: rid(), view: view(9), boardId: two })).toEqual({ ok: true });
    expect(await a.until(() => a.received.follow.find((f) => f.kind === 'bring'), 'brought')).toEqual({ kind: 'bring', view: view(9), boardId: two });
    // A page she has not opened (an unknown id is no page of hers either): refused, nothing sent.
    const elsewhere = randomUUID();
    expect(await ask(t, ClientEvent.FOLLOW_BRING, { requestId: rid(), view: view(10), boardId: elsewhere })).toMatchObject({ ok: false, error: { code: ErrorCode.BOARD_FORBIDDEN } });
    expect(await ask(t, ClientEvent.FOLLOW_PRESENT, { requestId: rid(), presenting: true, view: view(10), boardId: elsewhere })).toMatchObject({ ok: false, error: { code: ErrorCode.BOARD_FORBIDDEN } });
    t.socket.emit(ClientEvent.VIEWPORT, { ...view(11), boardId: elsewhere });
    expect((await t.until(() => t.received.notice.find((n) => n.event === ClientEvent.VIEWPORT), 'the notice')).code).toBe(ErrorCode.BOARD_FORBIDDEN);
    await settle(t, a, two);
    const refusedView = (cx: number) => cx === 10 || cx === 11;
    expect(a.received.follow.some((f) => f.kind !== 'followers' && refusedView(f.view.cx))).toBe(false);
    expect(a.received.cursors.some((b) => b.viewport && refusedView(b.viewport.view.cx))).toBe(false);
    for (const c of [t, a, late]) c.close();
  });
});
