/**
 * The lesson's cursor visibility on every page (issue 39, docs/protocol.md "The attention kit"):
 * a page's `board.pointers` batch reaches each reader as the lesson's own board's `cursors` batch
 * does (I12). The teacher receives every pointer; a student only the teachers' under `teacher`,
 * no one's under `none`, everyone's under `everyone`; live ink reaches everyone under every mode.
 * The server decides it per delivery, from its cached settings, so a change of the setting holds
 * from the page's next batch, and the grouped `boards.pointers` message obeys it too.
 */
import { randomUUID } from 'node:crypto';
import { ClientEvent, type BoardPointers, type ClientFeature, type CursorVisibility, type InkUpdate } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { createRoom, describeOnEachDatabase, joinAs, type TestClient } from './support.ts';

const rid = () => randomUUID().replaceAll('-', '');

/** Every `board.pointers` batch a client received, grouped ones included. */
const boardBatches = (c: TestClient): BoardPointers[] => [...c.received['board.pointers'], ...c.received['boards.pointers'].flatMap((b) => b.batches)];
const pointersOf = (c: TestClient, boardId: string, sessionId: string) =>
  boardBatches(c).filter((b) => b.boardId === boardId).flatMap((b) => b.pointers).filter(([s]) => s === sessionId);
const inkSeen = (c: TestClient, boardId: string, strokeId: string) =>
  boardBatches(c).some((b) => b.boardId === boardId && (b.ink ?? []).some((e) => e.strokeId === strokeId));
const ink = (boardId: string, strokeId: string): InkUpdate & { boardId: string } => ({
  boardId,
  strokeId,
  from: 0,
  points: [[1, 1, 0.5]],
  stroke: '#1e1e1e',
  strokeWidth: 3,
});

describeOnEachDatabase("the lesson's cursor visibility on its pages", {}, (suite) => {
  const { client } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  const ask = <T = Record<string, unknown>>(c: TestClient, event: string, packet: unknown) =>
    c.socket.timeout(10_000).emitWithAck(event as typeof ClientEvent.PAGE_LIST, packet as never) as unknown as Promise<{ ok: true } & T>;
  const point = (c: TestClient, boardId: string, x: number) => c.socket.emit(ClientEvent.BOARD_POINTER, { boardId, x, y: 7 });

  /** A lesson under `mode` with a second page (and a third), the teacher, Ana and Ben reading page 2. */
  async function classOnPageTwo(mode: CursorVisibility, features?: ClientFeature[]) {
    const teacher = await createRoom(app, 'Ms Rivera', { cursorVisibility: mode });
    const t = client(app, teacher.token);
    await t.ready();
    const two = randomUUID();
    const three = randomUUID();
    expect(await ask(t, ClientEvent.PAGE_ADD, { pageId: two, afterPageId: teacher.room.id })).toMatchObject({ ok: true });
    expect(await ask(t, ClientEvent.PAGE_ADD, { pageId: three, afterPageId: two })).toMatchObject({ ok: true });
    expect(await ask(t, ClientEvent.PAGE_GOTO, { pageId: two })).toMatchObject({ ok: true });
    const ana = await joinAs(app, teacher.room.code, 'Ana');
    const ben = await joinAs(app, teacher.room.code, 'Ben');
    const a = client(app, ana.token, features ? { features } : {});
    const b = client(app, ben.token);
    for (const c of [a, b]) await c.ready();
    for (const c of [t, a, b]) expect(await ask(c, ClientEvent.PAGE_SYNC, { pageId: two })).toMatchObject({ ok: true });
    return { teacher, ana, ben, t, a, b, two, three };
  }

  /** Everything `sender` sent on the page before this has reached `c` once its ink does (ink reaches everyone under every mode). */
  async function settle(sender: TestClient, c: TestClient, pageId: string) {
    const strokeId = randomUUID();
    sender.socket.emit(ClientEvent.INK, ink(pageId, strokeId));
    await c.until(() => inkSeen(c, pageId, strokeId), 'the barrier ink');
  }

  test("I12: students seeing only the teacher's cursor: on page 2 Ana receives the teacher's pointer and not Ben's, the teacher receives both; under everyone Ana receives Ben's", async () => {
    const { teacher, ana, ben, t, a, b, two } = await classOnPageTwo('teacher');
    point(b, two, 201);
    point(a, two, 301);
    point(t, two, 101);
    await t.until(() => pointersOf(t, two, ben.sessionId).some(([, userId, x]) => userId === ben.userId && x === 201), "Ben's pointer, at the teacher");
    await t.until(() => pointersOf(t, two, ana.sessionId).some(([, , x]) => x === 301), "Ana's pointer, at the teacher");
    await a.until(() => pointersOf(a, two, teacher.sessionId).some(([, userId, x]) => userId === teacher.userId && x === 101), "the teacher's pointer, at Ana");
    await settle(b, a, two);
    // Ben's ink reached Ana; neither his pointer nor the one his ink moved did.
    expect(pointersOf(a, two, ben.sessionId)).toEqual([]);
    await settle(a, b, two);
    expect(pointersOf(b, two, ana.sessionId)).toEqual([]);

    // The teacher shows the class everyone's cursor: the page's next batches carry Ben's to Ana.
    expect(await ask(t, ClientEvent.LESSON_SETTINGS, { requestId: rid(), settings: { cursorVisibility: 'everyone' } })).toMatchObject({ ok: true });
    point(b, two, 202);
    await a.until(() => pointersOf(a, two, ben.sessionId).some(([, userId, x]) => userId === ben.userId && x === 202), "Ben's pointer, at Ana, under everyone");
  });

  test("I12: under 'none' a student on a page receives no one's pointer, the teacher's included, but the live ink still; the teacher receives the students'", async () => {
    const { teacher, ana, t, a, two } = await classOnPageTwo('none');
    point(t, two, 111);
    point(a, two, 311);
    await t.until(() => pointersOf(t, two, ana.sessionId).some(([, , x]) => x === 311), "Ana's pointer, at the teacher");
    await settle(t, a, two);
    expect(pointersOf(a, two, teacher.sessionId)).toEqual([]);
  });

  test("I12: a student's grouped boards.pointers message (two pages moving in one tick) obeys the lesson's cursor visibility too", async () => {
    const { teacher, ben, t, a, b, two, three } = await classOnPageTwo('teacher', ['boards.pointers']);
    expect(await ask(t, ClientEvent.PAGE_PACING, { pacing: 'free' })).toMatchObject({ ok: true });
    for (const c of [t, a, b]) expect(await ask(c, ClientEvent.PAGE_SYNC, { pageId: three })).toMatchObject({ ok: true });
    // Ben and the teacher move on both pages at once until a tick's batches reach Ana in one message.
    for (let round = 0; a.received['boards.pointers'].length === 0; round++) {
      expect(round).toBeLessThan(40);
      for (const page of [two, three]) {
        point(b, page, 200 + round);
        point(t, page, 100 + round);
      }
      await settle(b, a, three);
    }
    const grouped = a.received['boards.pointers'].flatMap((m) => m.batches);
    expect(new Set(grouped.map((batch) => batch.boardId))).toEqual(new Set([two, three]));
    expect(grouped.flatMap((batch) => batch.pointers).some(([s]) => s === teacher.sessionId)).toBe(true);
    for (const page of [two, three]) expect(pointersOf(a, page, ben.sessionId)).toEqual([]);
  });
});
