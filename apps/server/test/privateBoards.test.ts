/**
 * Private student boards on the wire (docs/boards.md, docs/protocol.md "Activities and private
 * boards"): a teacher and three students, counted packet by packet. I12: before a board is shown no
 * other student's socket receives any of its events, and a hand-written request for it is refused
 * `board_forbidden`; the teacher sees and comments on every board; shown, the class sees it; hidden,
 * it is private again. A student who joins later gets a board and the teacher hears of it.
 */
import { randomUUID } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import { ClientEvent, ErrorCode, LessonBoards, ServerEvent, type BoardInfo, type ElementShape, type InkUpdate, type RoomEvent, type SessionGrant, type SyncMessage } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { createRoom, describeOnEachDatabase, joinAs, newMemberKey, type TestClient } from './support.ts';

const rid = () => randomUUID().replaceAll('-', '');
const dot = (x: number): ElementShape => ({ kind: 'rect', x, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 });

describeOnEachDatabase('private boards', {}, (suite) => {
  const { client } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  const ask = <T = Record<string, unknown>>(c: TestClient, event: string, packet: unknown) =>
    c.socket.timeout(10_000).emitWithAck(event as typeof ClientEvent.BOARD_LIST, packet as never) as unknown as Promise<
      { ok: true } & T
    >;
  const draw = (c: TestClient, boardId: string | undefined, x: number) =>
    ask<{ element: { id: string; version: number } }>(c, ClientEvent.ELEMENT_CREATE, {
      requestId: rid(),
      id: randomUUID(),
      shape: dot(x),
      ...(boardId ? { boardId } : {}),
    });
  /** Every board event a socket received, by board. */
  const boardEvents = (c: TestClient, lessonId: string): Map<string, RoomEvent[]> => {
    const by = new Map<string, RoomEvent[]>();
    for (const e of c.received['room.event']) {
      if (e.roomId === lessonId) continue;
      by.set(e.roomId, [...(by.get(e.roomId) ?? []), e]);
    }
    return by;
  };

  async function classOfThree(
    teacherOptions: Parameters<typeof client>[2] = {},
    studentOptions: Parameters<typeof client>[2] = {},
    names: readonly [string, string, string] = ['Ana', 'Ben', 'Cleo'],
  ) {
    const teacher = await createRoom(app);
    const code = teacher.room.code;
    const grants: SessionGrant[] = [];
    for (const name of names) grants.push(await joinAs(app, code, name));
    const t = client(app, teacher.token, teacherOptions);
    const students = grants.map((g) => client(app, g.token, studentOptions));
    for (const c of [t, ...students]) await c.ready();
    const lessonId = teacher.room.id;
    const started = await ask<{ boards: BoardInfo[]; activity: { id: string } }>(t, ClientEvent.ACTIVITY_START, {
      activityId: randomUUID(),
      title: 'Fractions',
      start: { kind: 'blank' },
    });
    expect(started).toMatchObject({ ok: true });
    const boardOf = (userId: string) => started.boards.find((b) => b.ownerUserId === userId)!;
    // Every student hears of the activity in the lesson's log and opens their board.
    for (const c of students) await c.until(() => c.eventsOfKind('activity.updated').length > 0, 'activity.updated');
    for (const [i, c] of students.entries()) {
      const mine = await ask<{ board: BoardInfo }>(c, ClientEvent.BOARD_MINE, {});
      expect(mine.board.id).toBe(boardOf(grants[i]!.userId).id);
      const synced = await ask<{ sync: { kind: string } }>(c, ClientEvent.BOARD_SYNC, { boardId: mine.board.id });
      expect(synced.sync.kind).toBe('snapshot');
    }
    return { teacher, grants, t, students, lessonId, activityId: started.activity.id, boards: grants.map((g) => boardOf(g.userId)) };
  }

  test('I12: before a board is shown no other student\'s socket receives it, and a hand-written request for it is board_forbidden', async () => {
    const { t, students, lessonId, boards } = await classOfThree();
    const [a, b, c] = students as [TestClient, TestClient, TestClient];
    const [boardA, boardB, boardC] = boards as [BoardInfo, BoardInfo, BoardInfo];

    const drawnA = await draw(a, boardA.id, 1);
    await draw(b, boardB.id, 2);
    await draw(c, boardC.id, 3);
    expect(drawnA).toMatchObject({ ok: true });
    // The teacher comments on Ana's board: Ana sees it at once.
    const comment = await draw(t, boardA.id, 40);
    expect(comment).toMatchObject({ ok: true });
    await a.until(() => (boardEvents(a, lessonId).get(boardA.id)?.length ?? 0) === 2, 'Ana sees her stroke and the comment');
    await t.until(() => [...boardEvents(t, lessonId).values()].flat().length === 4, 'the teacher sees all four board events');

    // Ben, by hand: Ana's board's snapshot, replay, a stroke on it, a change to her element.
    const refused = { ok: false, error: { code: ErrorCode.BOARD_FORBIDDEN } };
    expect(await ask(b, ClientEvent.BOARD_SYNC, { boardId: boardA.id })).toMatchObject(refused);
    expect(await ask(b, ClientEvent.BOARD_SYNC, { boardId: boardA.id, lastRevision: 0 })).toMatchObject(refused);
    expect(await draw(b, boardA.id, 9)).toMatchObject(refused);
    expect(
      await ask(b, ClientEvent.ELEMENT_UPDATE, { requestId: rid(), id: drawnA.element.id, baseVersion: 1, shape: dot(99), boardId: boardA.id }),
    ).toMatchObject(refused);
    expect(await ask(b, ClientEvent.ELEMENT_DELETE, { requestId: rid(), id: drawnA.element.id, boardId: boardA.id })).toMatchObject(refused);
    // Ben's listing names only his own board; he is still in the lesson (a refusal ends nothing).
    const listed = await ask<{ boards: BoardInfo[] }>(b, ClientEvent.BOARD_LIST, {});
    expect(listed.boards.map((x) => x.id)).toEqual([boardB.id]);
    expect((await ask<{ boards: BoardInfo[] }>(t, ClientEvent.BOARD_LIST, {})).boards.length).toBe(3);
    expect(await draw(b, boardB.id, 5)).toMatchObject({ ok: true });
    // Students cannot run the activity.
    expect(await ask(b, ClientEvent.BOARD_SHOW, { activityId: boardB.activityId, boards: [{ boardId: boardB.id, label: 'Me' }] })).toMatchObject({
      ok: false,
      error: { code: ErrorCode.FORBIDDEN },
    });

    // Counted on the wire, after a round trip that follows every publish above.
    await t.until(() => [...boardEvents(t, lessonId).values()].flat().length === 5, 'the teacher sees Ben\'s second stroke');
    await ask(b, ClientEvent.BOARD_LIST, {});
    await ask(c, ClientEvent.BOARD_LIST, {});
    expect([...boardEvents(a, lessonId).keys()]).toEqual([boardA.id]);
    expect([...boardEvents(b, lessonId).keys()]).toEqual([boardB.id]);
    expect([...boardEvents(c, lessonId).keys()]).toEqual([boardC.id]);
    expect(boardEvents(b, lessonId).get(boardB.id)?.length).toBe(2);
    // Nothing of a board came through the lesson's own log or a sync of it: not the snapshot each
    // student got at connect, nor a replay of the lesson's whole log, asked for by hand.
    const syncs = students.flatMap((s) => s.received.sync);
    for (const s of students) syncs.push((await ask<{ sync: SyncMessage }>(s, ClientEvent.SYNC_REQUEST, { lastRevision: 0 })).sync);
    expect(new Set(syncs.map((sync) => sync.kind))).toEqual(new Set(['snapshot', 'replay']));
    for (const sync of syncs) {
      if (sync.kind === 'snapshot') expect(sync.snapshot.elements).toEqual([]);
      else {
        expect(sync.events.length).toBeGreaterThan(0);
        expect(sync.events.filter((e) => e.roomId !== lessonId || e.kind.startsWith('element.'))).toEqual([]);
      }
    }
  });

  test('issue 22: strokes on every board sent together share the lesson\'s create batches (under 2 statements each), each board\'s at its own consecutive revisions, each only to its audience', async () => {
    const { t, students, lessonId, boards } = await classOfThree();
    const [, b] = students as [TestClient, TestClient, TestClient];
    await ask(t, ClientEvent.BOARD_LIST, {});
    const createStatements = async () =>
      (await (await fetch(`${app.url}/metrics`)).text())
        .split('\n')
        .filter((line) => line.startsWith('wb_db_statements_total{') && line.includes('kind="create"'))
        .reduce((total, line) => total + Number(line.split(' ').at(-1)), 0);
    const before = await createStatements();
    const STROKES_EACH = 10;
    const replies = await Promise.all([
      ...students.flatMap((c, i) => Array.from({ length: STROKES_EACH }, (_, j) => draw(c, boards[i]!.id, j))),
      // Ben's strokes on Ana's board, in the same batches: refused, Ana's unaffected.
      draw(b, boards[0]!.id, 99),
      draw(b, boards[0]!.id, 98),
    ]);
    const strokes = students.length * STROKES_EACH;
    expect(replies.slice(0, strokes).filter((r) => !r.ok)).toEqual([]);
    expect(replies.slice(strokes)).toMatchObject([0, 1].map(() => ({ ok: false, error: { code: ErrorCode.BOARD_FORBIDDEN } })));
    expect(((await createStatements()) - before) / strokes).toBeLessThan(2);
    await t.until(() => [...boardEvents(t, lessonId).values()].flat().length >= strokes, 'the teacher sees every stroke');
    for (const board of boards) {
      const revisions = (boardEvents(t, lessonId).get(board.id) ?? []).map((e) => e.revision);
      expect(revisions).toEqual(revisions.map((_, i) => i + 1));
      expect(revisions.length).toBe(STROKES_EACH);
    }
    for (const [i, c] of students.entries()) {
      await c.until(() => (boardEvents(c, lessonId).get(boards[i]!.id)?.length ?? 0) === STROKES_EACH, 'a student sees their strokes');
      expect([...boardEvents(c, lessonId).keys()]).toEqual([boards[i]!.id]);
    }
  });

  test('I12, I13: a pointer on a private board reaches its owner and the teachers only; a pointer on another\'s board is refused', async () => {
    const { t, students, boards, grants } = await classOfThree();
    const [a, b, c] = students as [TestClient, TestClient, TestClient];
    const [boardA] = boards as [BoardInfo];
    a.socket.emit(ClientEvent.BOARD_POINTER, { boardId: boardA.id, x: 10, y: 20 });
    await t.until(() => t.received[ServerEvent.BOARD_POINTERS].some((p) => p.boardId === boardA.id && p.pointers.some((e) => e[1] === grants[0]!.userId)), 'Ana\'s pointer at the teacher');
    // The teacher points on Ana's board (a comment to come): Ana sees it.
    t.socket.emit(ClientEvent.BOARD_POINTER, { boardId: boardA.id, x: 30, y: 40 });
    await a.until(() => a.received[ServerEvent.BOARD_POINTERS].some((p) => p.pointers.some((e) => e[2] === 30 && e[3] === 40)), 'the teacher\'s pointer at Ana');
    // Ben, by hand, points on Ana's board: refused, and nobody receives it.
    b.socket.emit(ClientEvent.BOARD_POINTER, { boardId: boardA.id, x: 99, y: 99 });
    await b.until(() => b.received.notice.some((n) => n.code === ErrorCode.BOARD_FORBIDDEN), 'Ben\'s refusal');
    // A round trip after every pointer above, and two pointer ticks.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await ask(b, ClientEvent.BOARD_LIST, {});
    await ask(c, ClientEvent.BOARD_LIST, {});
    for (const other of [b, c]) expect(other.received[ServerEvent.BOARD_POINTERS].filter((p) => p.boardId === boardA.id)).toEqual([]);
    expect(t.received[ServerEvent.BOARD_POINTERS].flatMap((p) => p.pointers).some((e) => e[2] === 99)).toBe(false);
  });

  /** Everything ephemeral a socket received that names something of `boardId` or of its elements. */
  const ephemeraOf = (c: TestClient, boardId: string, ids: readonly string[]) => [
    ...c.received[ServerEvent.BOARD_POINTERS].filter((p) => p.boardId === boardId),
    ...c.received.cursors.filter((b) => (b.ink ?? []).some((e) => ids.includes(e.strokeId)) || (b.drags ?? []).some((d) => ids.includes(d.elementId))),
  ];
  const inkOn = (c: TestClient, boardId: string, strokeId: string) =>
    c.received[ServerEvent.BOARD_POINTERS].filter((p) => p.boardId === boardId).flatMap((p) => (p.ink ?? []).filter((e) => e.strokeId === strokeId));
  const dragsOn = (c: TestClient, boardId: string, elementId: string) =>
    c.received[ServerEvent.BOARD_POINTERS].filter((p) => p.boardId === boardId).flatMap((p) => (p.drags ?? []).filter((d) => d.elementId === elementId));
  const inkPacket = (boardId: string, strokeId: string, from: number, end?: 'up'): InkUpdate => ({
    boardId,
    strokeId,
    from,
    points: [[100 + from, 100, 0.5], [101 + from, 101, 0.5]],
    stroke: '#1e1e1e',
    strokeWidth: 4,
    ...(end ? { end } : {}),
  });
  /** A round trip on every student's socket after two board ticks: anything sent before is in. */
  const settle = async (students: readonly TestClient[]) => {
    await new Promise((resolve) => setTimeout(resolve, 150));
    for (const s of students) await ask(s, ClientEvent.BOARD_LIST, {});
  };

  test("I12, I13: live ink on a private board reaches its owner and the teachers at once, and no other student's socket; another's ink on it is board_forbidden", async () => {
    const { t, students, boards, lessonId } = await classOfThree();
    const [a, b, c] = students as [TestClient, TestClient, TestClient];
    const [boardA, boardB] = boards as [BoardInfo, BoardInfo];

    // Ana draws on her board: the teacher sees the stroke grow before its pen lifts.
    const anaStroke = randomUUID();
    a.socket.emit(ClientEvent.INK, inkPacket(boardA.id, anaStroke, 0));
    a.socket.emit(ClientEvent.INK, inkPacket(boardA.id, anaStroke, 2));
    await t.until(() => inkOn(t, boardA.id, anaStroke).flatMap((e) => e.points).length === 4, "Ana's live ink at the teacher");
    // Her pointer follows the ink, to the same audience.
    expect(t.received[ServerEvent.BOARD_POINTERS].some((p) => p.boardId === boardA.id && p.pointers.some((e) => e[2] === 103))).toBe(true);
    // The teacher comments in ink on Ana's board: Ana sees it at once.
    const teacherStroke = randomUUID();
    t.socket.emit(ClientEvent.INK, { ...inkPacket(boardA.id, teacherStroke, 0, 'up'), stroke: '#d92c20' });
    await a.until(() => inkOn(a, boardA.id, teacherStroke).length > 0, "the teacher's live ink at Ana");
    // Ben draws on his own board (his audience: himself and the teacher).
    const benStroke = randomUUID();
    b.socket.emit(ClientEvent.INK, inkPacket(boardB.id, benStroke, 0));
    await t.until(() => inkOn(t, boardB.id, benStroke).length > 0, "Ben's live ink at the teacher");
    // Ben, by hand, inks Ana's board: refused, and it reaches no one.
    const forged = randomUUID();
    b.socket.emit(ClientEvent.INK, inkPacket(boardA.id, forged, 0));
    await b.until(() => b.received.notice.some((n) => n.code === ErrorCode.BOARD_FORBIDDEN), "Ben's refusal");

    await settle(students);
    expect(ephemeraOf(b, boardA.id, [anaStroke, teacherStroke, forged])).toEqual([]);
    expect(ephemeraOf(c, boardA.id, [anaStroke, teacherStroke, forged])).toEqual([]);
    expect(ephemeraOf(a, boardB.id, [benStroke])).toEqual([]);
    expect(ephemeraOf(c, boardB.id, [benStroke])).toEqual([]);
    expect([...t.received[ServerEvent.BOARD_POINTERS], ...a.received[ServerEvent.BOARD_POINTERS]].flatMap((p) => p.ink ?? []).some((e) => e.strokeId === forged)).toBe(false);
    // Nothing of a board's ink travels the lesson's cursor batches, and nothing is stored.
    for (const s of [t, ...students]) expect(s.received.cursors.flatMap((batch) => batch.ink ?? [])).toEqual([]);
    expect(boardEvents(t, lessonId).size).toBe(0);
  });

  test("issue 22, I13: a socket following several boards gets each board's batch of a tick: ink drawn on three boards in the same ticks all reaches the teacher, and a student gets a shown board's ink beside their own", async () => {
    const { t, students, boards, activityId } = await classOfThree();
    const [a, b] = students as [TestClient, TestClient, TestClient];
    const [boardA, boardB] = boards as [BoardInfo, BoardInfo, BoardInfo];
    const ROUNDS = 8;
    const pointsOn = (c: TestClient, boardId: string, strokeId: string) => inkOn(c, boardId, strokeId).flatMap((e) => e.points).length;
    /** Each drawer sends a packet of two points on its board per round, all in one turn, so most rounds share a board tick. */
    const drawTogether = async (drawers: readonly { c: TestClient; boardId: string; strokeId: string }[]) => {
      for (let round = 0; round < ROUNDS; round++) {
        for (const d of drawers) d.c.socket.emit(ClientEvent.INK, inkPacket(d.boardId, d.strokeId, 2 * round));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };

    // The teacher's grid follows all three boards.
    const everyone = students.map((c, i) => ({ c, boardId: boards[i]!.id, strokeId: randomUUID() }));
    await drawTogether(everyone);
    for (const d of everyone) await t.until(() => pointsOn(t, d.boardId, d.strokeId) === 2 * ROUNDS, `every point of ${d.boardId} at the teacher`, 1_500);
    // Each owner gets their own board's batches, and no other's.
    for (const d of everyone) await d.c.until(() => pointsOn(d.c, d.boardId, d.strokeId) === 2 * ROUNDS, 'every point of their own board', 1_500);

    // Ana's board shown: Ben follows it beside his own, and both draw in the same ticks.
    await ask(t, ClientEvent.BOARD_SHOW, { activityId, boards: [{ boardId: boardA.id, label: 'Student A' }] });
    await b.until(() => b.eventsOfKind('activity.updated').some((e) => e.payload.shown.length === 1), 'Ben hears the board is shown');
    expect(await ask(b, ClientEvent.BOARD_SYNC, { boardId: boardA.id })).toMatchObject({ ok: true });
    const pair = [
      { c: b, boardId: boardB.id, strokeId: randomUUID() },
      { c: a, boardId: boardA.id, strokeId: randomUUID() },
    ];
    await drawTogether(pair);
    for (const d of pair) await b.until(() => pointsOn(b, d.boardId, d.strokeId) === 2 * ROUNDS, `every point of ${d.boardId} at Ben`, 1_500);
  });

  test("issue 22, I12: a teacher whose client reads boards.pointers gets a tick's batches of several boards in one message, each point once; each student still gets only their own board's", async () => {
    const { t, students, boards } = await classOfThree({ features: ['boards.pointers'] }, { features: ['boards.pointers'] });
    const ROUNDS = 8;
    const drawers = students.map((c, i) => ({ c, boardId: boards[i]!.id, strokeId: randomUUID() }));
    for (let round = 0; round < ROUNDS; round++) {
      for (const d of drawers) d.c.socket.emit(ClientEvent.INK, inkPacket(d.boardId, d.strokeId, 2 * round));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const grouped = () => t.received[ServerEvent.BOARDS_POINTERS].flatMap((m) => m.batches);
    const pointsAtTeacher = (d: (typeof drawers)[number]) =>
      [...grouped(), ...t.received[ServerEvent.BOARD_POINTERS]]
        .filter((p) => p.boardId === d.boardId)
        .flatMap((p) => (p.ink ?? []).filter((e) => e.strokeId === d.strokeId))
        .flatMap((e) => e.points).length;
    for (const d of drawers) await t.until(() => pointsAtTeacher(d) === 2 * ROUNDS, `every point of ${d.boardId} at the teacher`, 1_500);
    // The ticks where several boards moved came as one message each, every batch in it once.
    const messages = t.received[ServerEvent.BOARDS_POINTERS];
    expect(messages.some((m) => m.batches.length === 3)).toBe(true);
    for (const m of messages) {
      expect(m.batches.length).toBeGreaterThanOrEqual(2);
      expect(new Set(m.batches.map((b) => b.boardId)).size).toBe(m.batches.length);
    }
    // Each owner (who asked for the grouped form too, but follows one board): their own board's
    // batches, as board.pointers, and nothing grouped. The teacher got every point once.
    await settle(students);
    for (const d of drawers) {
      expect(pointsAtTeacher(d)).toBe(2 * ROUNDS);
      expect(d.c.received[ServerEvent.BOARDS_POINTERS]).toEqual([]);
      expect(new Set(d.c.received[ServerEvent.BOARD_POINTERS].map((p) => p.boardId))).toEqual(new Set([d.boardId]));
      expect(inkOn(d.c, d.boardId, d.strokeId).flatMap((e) => e.points).length).toBe(2 * ROUNDS);
    }
  });

  test("I12, I4: locks and drags on a private board: its owner and the teacher take turns, the drag preview reaches the board's audience only, another student is board_forbidden", async () => {
    const { t, students, boards } = await classOfThree();
    const [a, b, c] = students as [TestClient, TestClient, TestClient];
    const [boardA] = boards as [BoardInfo];
    const drawn = await draw(a, boardA.id, 10);
    const elementId = drawn.element.id;

    // Ana takes the lock on her element and drags it: the teacher sees the preview.
    const grant = await ask<{ grant: { generation: number } }>(a, ClientEvent.LOCK_ACQUIRE, { requestId: rid(), elementId, boardId: boardA.id });
    expect(grant).toMatchObject({ ok: true });
    a.socket.emit(ClientEvent.LOCK_MOVE, { elementId, generation: grant.grant.generation, x: 200, y: 150, boardId: boardA.id });
    await t.until(() => dragsOn(t, boardA.id, elementId).some((d) => d.x === 200), "Ana's drag at the teacher");
    // While she holds it, the teacher's acquire is refused `locked`; Ben's is board_forbidden.
    expect(await ask(t, ClientEvent.LOCK_ACQUIRE, { requestId: rid(), elementId, boardId: boardA.id })).toMatchObject({ ok: false, error: { code: ErrorCode.LOCKED } });
    expect(await ask(b, ClientEvent.LOCK_ACQUIRE, { requestId: rid(), elementId, boardId: boardA.id })).toMatchObject({ ok: false, error: { code: ErrorCode.BOARD_FORBIDDEN } });
    // Ben's hand-written move under Ana's generation is dropped (not his lock).
    b.socket.emit(ClientEvent.LOCK_MOVE, { elementId, generation: grant.grant.generation, x: 999, y: 999, frame: { x: 999, y: 999, w: 5, h: 5, rotation: 0 }, boardId: boardA.id });
    const released = await ask<{ element: { shape: { x: number } } }>(a, ClientEvent.LOCK_RELEASE, {
      requestId: rid(),
      elementId,
      generation: grant.grant.generation,
      shape: { ...dot(200), y: 150 },
      boardId: boardA.id,
    });
    expect(released.element.shape.x).toBe(200);
    await t.until(() => t.eventsOfKind('lock.released').some((e) => e.roomId === boardA.id), 'the release on the board, at the teacher');

    // Now the teacher moves it: Ana sees the preview, then the result.
    const teacherGrant = await ask<{ grant: { generation: number } }>(t, ClientEvent.LOCK_ACQUIRE, { requestId: rid(), elementId, boardId: boardA.id });
    expect(teacherGrant.grant.generation).toBeGreaterThan(grant.grant.generation);
    // Ana's late move under her old generation never moves it (I4).
    a.socket.emit(ClientEvent.LOCK_MOVE, { elementId, generation: grant.grant.generation, x: 555, y: 555, boardId: boardA.id });
    // The teacher turns it (a resize or turn in progress is a move with its frame, on the same path).
    const turned = { x: 300, y: 300, w: 4, h: 4, rotation: 45 };
    t.socket.emit(ClientEvent.LOCK_MOVE, { elementId, generation: teacherGrant.grant.generation, x: 300, y: 300, frame: turned, boardId: boardA.id });
    await a.until(() => dragsOn(a, boardA.id, elementId).some((d) => d.x === 300 && d.frame?.rotation === 45), "the teacher's turn at Ana");
    const teacherRelease = await ask(t, ClientEvent.LOCK_RELEASE, { requestId: rid(), elementId, generation: teacherGrant.grant.generation, shape: dot(300), boardId: boardA.id });
    expect(teacherRelease).toMatchObject({ ok: true });

    await settle(students);
    const everyDrag = [t, a].flatMap((s) => dragsOn(s, boardA.id, elementId));
    expect(everyDrag.some((d) => d.x === 999 || d.x === 555)).toBe(false);
    for (const other of [b, c]) {
      expect(ephemeraOf(other, boardA.id, [elementId])).toEqual([]);
      expect(other.received['room.event'].filter((e) => e.roomId === boardA.id)).toEqual([]);
    }
  });

  test("a frozen board's owner's ink is refused forbidden_by_policy; the teacher's ink on it still reaches them", async () => {
    const { t, students, boards, activityId } = await classOfThree();
    const [a] = students as [TestClient];
    const [boardA] = boards as [BoardInfo];
    await ask(t, ClientEvent.ACTIVITY_STATUS, { activityId, status: 'frozen' });
    await a.until(() => a.eventsOfKind('activity.updated').some((e) => e.payload.status === 'frozen'), 'Ana hears the freeze');
    const refused = randomUUID();
    a.socket.emit(ClientEvent.INK, inkPacket(boardA.id, refused, 0));
    await a.until(() => a.received.notice.some((n) => n.code === ErrorCode.FORBIDDEN_BY_POLICY), "Ana's refusal");
    const teacherStroke = randomUUID();
    t.socket.emit(ClientEvent.INK, inkPacket(boardA.id, teacherStroke, 0));
    await a.until(() => inkOn(a, boardA.id, teacherStroke).length > 0, "the teacher's ink at Ana");
    expect(inkOn(t, boardA.id, refused)).toEqual([]);
  });

  test('show to the class: every student then reads and follows the board; hidden again, it is private again', async () => {
    const { t, students, lessonId, boards, activityId } = await classOfThree();
    const [a, b, c] = students as [TestClient, TestClient, TestClient];
    const [boardA] = boards as [BoardInfo];
    await draw(a, boardA.id, 1);

    const shown = await ask<{ activity: { shown: unknown[] } }>(t, ClientEvent.BOARD_SHOW, { activityId, boards: [{ boardId: boardA.id, label: 'Student A' }] });
    expect(shown.activity.shown).toEqual([{ boardId: boardA.id, label: 'Student A' }]);
    await b.until(() => b.eventsOfKind('activity.updated').some((e) => e.payload.shown.length === 1), 'Ben hears the board is shown');
    const seen = await ask<{ sync: { kind: 'snapshot'; snapshot: { elements: unknown[]; board: BoardInfo } } }>(b, ClientEvent.BOARD_SYNC, {
      boardId: boardA.id,
    });
    expect(seen.sync.snapshot.elements.length).toBe(1);
    expect(seen.sync.snapshot.board.shownLabel).toBe('Student A');
    // Shown boards are read-only to the class.
    expect(await draw(b, boardA.id, 2)).toMatchObject({ ok: false, error: { code: ErrorCode.BOARD_FORBIDDEN } });
    // Ana draws on: Ben and Cleo follow live.
    await draw(a, boardA.id, 3);
    await b.until(() => (boardEvents(b, lessonId).get(boardA.id)?.length ?? 0) === 1, 'Ben receives Ana\'s next stroke');
    await c.until(() => (boardEvents(c, lessonId).get(boardA.id)?.length ?? 0) === 1, 'Cleo receives Ana\'s next stroke');

    await ask(t, ClientEvent.BOARD_SHOW, { activityId, boards: [{ boardId: boardA.id, label: null }] });
    expect(await ask(b, ClientEvent.BOARD_SYNC, { boardId: boardA.id })).toMatchObject({ ok: false, error: { code: ErrorCode.BOARD_FORBIDDEN } });
    await draw(a, boardA.id, 4);
    await a.until(() => (boardEvents(a, lessonId).get(boardA.id)?.length ?? 0) === 3, 'Ana sees her third stroke');
    await ask(b, ClientEvent.BOARD_LIST, {});
    expect(boardEvents(b, lessonId).get(boardA.id)?.length).toBe(1);
  });

  test('A1: a board shown anonymously names nobody on the wire: its classmates\' every packet of it (list, snapshot, replay, events, pointers, ink, drags) carries no name, user id or session id of its owner', async () => {
    // Distinctive names: none can occur by chance in a UUID, a label or JSON.
    const names = ['Anastasia Quill', 'Benedikt Ortiz', 'Cleopatra Nwosu'] as const;
    const { t, students, grants, boards, activityId, lessonId } = await classOfThree({}, {}, names);
    const [a, b, c] = students as [TestClient, TestClient, TestClient];
    const [boardA] = boards as [BoardInfo];
    const ana = grants[0]!;
    const before = await draw(a, boardA.id, 1);
    await draw(t, boardA.id, 50);

    // Every packet each classmate's socket receives from here on, as it came off the wire (events,
    // volatile batches and the answers to its requests alike).
    const wire = new Map<TestClient, string[]>([[b, []], [c, []]]);
    for (const [s, log] of wire) s.socket.io.engine.on('packet', (packet: { data?: unknown }) => log.push(typeof packet.data === 'string' ? packet.data : JSON.stringify(packet.data ?? '')));

    await ask(t, ClientEvent.BOARD_SHOW, { activityId, boards: [{ boardId: boardA.id, label: 'Student A' }] });
    for (const s of [b, c]) await s.until(() => s.eventsOfKind('activity.updated').some((e) => e.payload.shown.length === 1), 'the board is shown');
    // Ben asks for everything by hand: the list, a snapshot, a replay of the whole log.
    const listed = await ask<{ boards: BoardInfo[] }>(b, ClientEvent.BOARD_LIST, {});
    const shownEntry = listed.boards.find((x) => x.id === boardA.id)!;
    expect(shownEntry).toMatchObject({ shownLabel: 'Student A', ownerName: 'Student A' });
    const snap = await ask<{ sync: { kind: 'snapshot'; snapshot: { elements: { createdBy: string }[] } } }>(b, ClientEvent.BOARD_SYNC, { boardId: boardA.id });
    expect(snap.sync.snapshot.elements).toHaveLength(2);
    const replay = await ask<{ sync: { kind: 'replay'; events: RoomEvent[] } }>(b, ClientEvent.BOARD_SYNC, { boardId: boardA.id, lastRevision: 0 });
    expect(replay.sync.kind).toBe('replay');
    expect(replay.sync.events.length).toBeGreaterThanOrEqual(2);

    // Ana works on, live: a pointer, ink, a stroke, a drag under a lock, a change, a delete.
    const strokeId = randomUUID();
    a.socket.emit(ClientEvent.INK, inkPacket(boardA.id, strokeId, 0));
    const later = await draw(a, boardA.id, 2);
    const grant = await ask<{ grant: { generation: number } }>(a, ClientEvent.LOCK_ACQUIRE, { requestId: rid(), elementId: later.element.id, boardId: boardA.id });
    expect(grant).toMatchObject({ ok: true });
    a.socket.emit(ClientEvent.LOCK_MOVE, { elementId: later.element.id, generation: grant.grant.generation, x: 70, y: 80, boardId: boardA.id });
    for (const s of [b, c]) await s.until(() => dragsOn(s, boardA.id, later.element.id).length > 0 && inkOn(s, boardA.id, strokeId).length > 0, 'the drag and the ink, shown');
    expect(await ask(a, ClientEvent.LOCK_RELEASE, { requestId: rid(), elementId: later.element.id, generation: grant.grant.generation, shape: dot(70), boardId: boardA.id })).toMatchObject({ ok: true });
    expect(await ask(a, ClientEvent.ELEMENT_DELETE, { requestId: rid(), id: before.element.id, boardId: boardA.id })).toMatchObject({ ok: true });
    // Her pointer alone in its tick (ink moves her pointer too, superseding one sent with it).
    a.socket.emit(ClientEvent.BOARD_POINTER, { boardId: boardA.id, x: 11, y: 12 });
    for (const s of [b, c]) {
      await s.until(() => s.eventsOfKind('element.deleted').some((e) => e.roomId === boardA.id), 'the delete, shown');
      await s.until(() => s.received[ServerEvent.BOARD_POINTERS].some((p) => p.boardId === boardA.id && p.pointers.some((e) => e[2] === 11)), 'the pointer, shown');
    }
    await settle(students);

    // What the classmates got of the board: the work, and nothing that names Ana.
    const anaMarks = [names[0], ana.userId, ana.sessionId];
    for (const [s, log] of wire) {
      const ofBoard = log.filter((packet) => packet.includes(boardA.id));
      // Not vacuous: the list, both syncs, the events and the batches are all in it.
      expect(ofBoard.length).toBeGreaterThanOrEqual(s === b ? 8 : 5);
      for (const mark of anaMarks) expect(ofBoard.filter((packet) => packet.includes(mark))).toEqual([]);
      // The teacher is no secret; the board's author in the view is the board's own id, not a member's.
      const authors = new Set(s.eventsOfKind('element.created').filter((e) => e.roomId === boardA.id).map((e) => e.payload.element.createdBy));
      expect([...authors].some((id) => grants.some((g) => g.userId === id))).toBe(false);
    }
    // Ana and the teacher still read her board as hers.
    await a.until(() => a.eventsOfKind('element.created').some((e) => e.roomId === boardA.id && e.payload.element.createdBy === ana.userId), 'Ana\'s own view');
    expect(t.eventsOfKind('element.created').filter((e) => e.roomId === boardA.id).map((e) => e.payload.element.createdBy)).toContain(ana.userId);
    const teacherList = await ask<{ boards: BoardInfo[] }>(t, ClientEvent.BOARD_LIST, {});
    expect(teacherList.boards.find((x) => x.id === boardA.id)).toMatchObject({ ownerUserId: ana.userId, ownerName: names[0] });
    void lessonId;
  });

  test('a student who joins after the start gets a board of their own; the teacher hears of it; freeze makes boards look-only', async () => {
    const { teacher, t, lessonId, activityId } = await classOfThree();
    const dana = await joinAs(app, teacher.room.code, 'Dana');
    const d = client(app, dana.token);
    await d.ready();
    const mine = await ask<{ board: BoardInfo }>(d, ClientEvent.BOARD_MINE, {});
    expect(mine.board.ownerUserId).toBe(dana.userId);
    await t.until(() => t.received[ServerEvent.BOARD_OPENED].some((s) => s.board.id === mine.board.id), 'board.opened at the teacher');
    expect((await ask<{ board: BoardInfo }>(d, ClientEvent.BOARD_MINE, {})).board.id).toBe(mine.board.id);
    expect(await ask(t, ClientEvent.BOARD_MINE, {})).toMatchObject({ ok: false, error: { code: ErrorCode.FORBIDDEN } });

    expect(await ask(t, ClientEvent.ACTIVITY_STATUS, { activityId, status: 'frozen' })).toMatchObject({ ok: true, activity: { status: 'frozen' } });
    expect(await draw(d, mine.board.id, 1)).toMatchObject({ ok: false, error: { code: ErrorCode.FORBIDDEN_BY_POLICY } });
    expect(await draw(t, mine.board.id, 1)).toMatchObject({ ok: true });
    expect(await ask(t, ClientEvent.ACTIVITY_STATUS, { activityId, status: 'ended' })).toMatchObject({ ok: true, activity: { status: 'ended' } });
    expect(await ask(t, ClientEvent.ACTIVITY_START, { activityId: randomUUID(), title: 'Next', start: { kind: 'board' } })).toMatchObject({ ok: true });
    expect(lessonId).toBe(teacher.room.id);
  });

  test('the boards stay with the lesson: its teacher\'s account lists every activity\'s boards with their content, no one else', async () => {
    const signUp = async () => {
      const response = await fetch(`${app.url}/api/teacher/sign-up`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `${randomBytes(5).toString('hex')}@school.example`, password: 'correct horse battery staple', displayName: 'Ms Rivera' }),
      });
      expect(response.status).toBe(201);
      return response.headers.get('set-cookie')!.split(';')[0]!;
    };
    const cookie = await signUp();
    const created = await fetch(`${app.url}/api/rooms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ teacherName: 'Ms Rivera', memberKey: newMemberKey() }),
    });
    const teacher = (await created.json()) as SessionGrant;
    const ana = await joinAs(app, teacher.room.code, 'Ana');
    const t = client(app, teacher.token);
    const a = client(app, ana.token);
    await t.ready();
    await a.ready();
    const started = await ask<{ activity: { id: string } }>(t, ClientEvent.ACTIVITY_START, { activityId: randomUUID(), title: 'Kept', start: { kind: 'blank' } });
    const mine = await ask<{ board: BoardInfo }>(a, ClientEvent.BOARD_MINE, {});
    expect(await draw(a, mine.board.id, 7)).toMatchObject({ ok: true });
    // The teacher's feedback stamp on Ana's board stays with it: in the kept boards (the zip's source).
    const stamp = await ask<{ element: { id: string } }>(t, ClientEvent.ELEMENT_CREATE, {
      requestId: rid(),
      id: randomUUID(),
      shape: { kind: 'text', x: 30, y: 0, w: 56, h: 64, text: '✓', stroke: '#2f9e44', fontSize: 56, align: 'center' },
      boardId: mine.board.id,
    });
    expect(stamp).toMatchObject({ ok: true });
    await ask(t, ClientEvent.ACTIVITY_STATUS, { activityId: started.activity.id, status: 'ended' });

    const boardsOf = (c: string | null) => fetch(`${app.url}/api/teacher/rooms/${teacher.room.code}/boards`, { headers: c ? { cookie: c } : {} });
    const listed = await boardsOf(cookie);
    expect(listed.status).toBe(200);
    const kept = LessonBoards.parse(await listed.json());
    expect(kept.activities.map((x) => [x.activity.title, x.activity.status])).toEqual([['Kept', 'ended']]);
    expect(kept.activities[0]!.boards.map((b) => [b.board.ownerName, b.elements.length])).toEqual([['Ana', 2]]);
    expect(kept.activities[0]!.boards[0]!.elements.find((e) => e.id === stamp.element.id)).toMatchObject({ createdBy: teacher.userId, shape: { text: '✓' } });
    expect((await boardsOf(null)).status).toBe(401);
    expect((await boardsOf(await signUp())).status).toBe(404);
  });
});
