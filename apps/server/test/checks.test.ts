/**
 * The timer, quick polls and flags on the wire (docs/protocol.md "Timer, polls and flags"), with a
 * teacher and students on real sockets: every rule is the server's, so a hand-written packet gets
 * the refusal the UI would; the timer's deadline and pause hold across a reconnect and a restart;
 * the class's poll messages carry counts, never a name or a user id; help requests queue in order.
 */
import { randomUUID } from 'node:crypto';
import { openTestDatabase, type TestDatabase } from '@wb/db/testing';
import { FrozenClock } from '@wb/db';
import { AttendanceReport, ClientEvent, ErrorCode, helpQueue, timerRemainingMs, type BoardInfo, type Poll, type RoomInfo } from '@wb/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { TestClient, createRoom, databaseKinds, describeOnEachDatabase, joinAs, startTestServer } from './support.ts';

const rid = () => randomUUID().replaceAll('-', '');
const ask = <T = Record<string, unknown>>(c: TestClient, event: string, packet: unknown) =>
  c.socket.timeout(10_000).emitWithAck(event as typeof ClientEvent.BOARD_LIST, packet as never) as unknown as Promise<
    ({ ok: true } & T) | { ok: false; error: { code: string; message: string } }
  >;
const ok = <T>(reply: ({ ok: true } & T) | { ok: false; error: { code: string } }): T => {
  if (!reply.ok) throw new Error(`refused: ${reply.error.code}`);
  return reply;
};

describeOnEachDatabase('timer, polls and flags', {}, (suite) => {
  const { client } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  async function classOf(names: string[]) {
    const teacher = await createRoom(app);
    const grants = [];
    for (const name of names) grants.push(await joinAs(app, teacher.room.code, name));
    const t = client(app, teacher.token);
    const students = grants.map((g) => client(app, g.token));
    for (const c of [t, ...students]) await c.ready();
    return { teacher, grants, t, students };
  }

  const timerOf = (c: TestClient) => c.eventsOfKind('room.updated').at(-1)?.payload.timer;

  test('T3: the teacher starts, pauses and resumes the timer; every screen gets the same deadline, a reconnect too; a student\'s hand-written timer.set is refused', async () => {
    const { teacher, grants, t, students } = await classOf(['Ana', 'Ben']);
    const [a, b] = students as [TestClient, TestClient];
    expect(await ask(a, ClientEvent.TIMER_SET, { requestId: rid(), timer: { action: 'start', durationMs: 60_000 } })).toMatchObject({
      ok: false,
      error: { code: ErrorCode.FORBIDDEN },
    });
    expect(await ask(t, ClientEvent.TIMER_SET, { requestId: rid(), timer: { action: 'start', durationMs: 10 } })).toMatchObject({
      ok: false,
      error: { code: ErrorCode.BAD_REQUEST },
    });
    const started = ok(await ask<{ room: RoomInfo }>(t, ClientEvent.TIMER_SET, { requestId: rid(), timer: { action: 'start', durationMs: 90_000, sound: true } }));
    const deadline = new Date(suite.clock.current.getTime() + 90_000).toISOString();
    expect(started.room.timer).toMatchObject({ status: 'running', endsAt: deadline, sound: true });
    for (const c of [t, a, b]) await c.until(() => timerOf(c)?.endsAt === deadline, 'the deadline everywhere');

    // clock.now answers the clock the deadline is on (the database's; frozen here).
    const now = ok(await ask<{ serverNow: number }>(b, ClientEvent.CLOCK_NOW, {}));
    expect(now.serverNow).toBe(suite.clock.current.getTime());
    expect(timerRemainingMs(started.room.timer!, now.serverNow)).toBe(90_000);

    suite.clock.advance(30_000);
    const paused = ok(await ask<{ room: RoomInfo }>(t, ClientEvent.TIMER_SET, { requestId: rid(), timer: { action: 'pause' } }));
    expect(paused.room.timer).toMatchObject({ status: 'paused', remainingMs: 60_000 });

    // Ben's connection drops while it is paused; he comes back later: it is still paused at one minute.
    b.close();
    suite.clock.advance(45_000);
    const back = client(app, grants[1]!.token);
    const { sync } = await back.ready();
    if (sync.kind !== 'snapshot') throw new Error('a fresh client gets a snapshot');
    expect(sync.snapshot.room.timer).toMatchObject({ status: 'paused', remainingMs: 60_000, endsAt: null });

    const resumed = ok(await ask<{ room: RoomInfo }>(t, ClientEvent.TIMER_SET, { requestId: rid(), timer: { action: 'resume' } }));
    const resumedDeadline = new Date(suite.clock.current.getTime() + 60_000).toISOString();
    expect(resumed.room.timer?.endsAt).toBe(resumedDeadline);
    await back.until(() => timerOf(back)?.endsAt === resumedDeadline, 'the resumed deadline at the returning student');
    expect((await app.store.findRoomById(teacher.room.id))?.timer?.endsAt).toBe(resumedDeadline);

    // "+1 min" whose reply was lost, sent again with its requestId (and once more at the same time): one minute, one event.
    const told = t.eventsOfKind('room.updated').length;
    const add = { requestId: rid(), timer: { action: 'add' } };
    const later = new Date(suite.clock.current.getTime() + 120_000).toISOString();
    const replies = await Promise.all([ask<{ room: RoomInfo }>(t, ClientEvent.TIMER_SET, add), ask<{ room: RoomInfo }>(t, ClientEvent.TIMER_SET, add)]);
    for (const reply of replies) expect(ok(reply).room.timer?.endsAt).toBe(later);
    expect(ok(await ask<{ room: RoomInfo }>(t, ClientEvent.TIMER_SET, add)).room.timer?.endsAt).toBe(later);
    await t.until(() => timerOf(t)?.endsAt === later, 'the minute more');
    expect(t.eventsOfKind('room.updated').length).toBe(told + 1);
  });

  test('T4: with "freeze at zero", a student\'s edit of their private board after the deadline is refused forbidden_by_policy; the teacher\'s minute more lets them draw again', async () => {
    const { t, students } = await classOf(['Ana']);
    const [a] = students as [TestClient];
    ok(await ask(t, ClientEvent.ACTIVITY_START, { activityId: randomUUID(), title: 'Sketch', start: { kind: 'blank' } }));
    const mine = ok(await ask<{ board: BoardInfo }>(a, ClientEvent.BOARD_MINE, {}));
    const draw = () =>
      ask(a, ClientEvent.ELEMENT_CREATE, {
        requestId: rid(),
        id: randomUUID(),
        boardId: mine.board.id,
        shape: { kind: 'rect', x: 0, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 },
      });
    ok(await ask(t, ClientEvent.TIMER_SET, { requestId: rid(), timer: { action: 'start', durationMs: 5_000, freezeAtZero: true } }));
    expect(await draw()).toMatchObject({ ok: true });
    suite.clock.advance(5_000);
    expect(await draw()).toMatchObject({ ok: false, error: { code: ErrorCode.FORBIDDEN_BY_POLICY } });
    ok(await ask(t, ClientEvent.TIMER_SET, { requestId: rid(), timer: { action: 'add' } }));
    expect(await draw()).toMatchObject({ ok: true });
  });

  test('P5: students answer and change their answer; the teacher alone learns who answered what; the class\'s poll messages name nobody', async () => {
    const { grants, t, students } = await classOf(['Ana', 'Ben', 'Cleo']);
    const [a, b, c] = students as [TestClient, TestClient, TestClient];
    const pollId = randomUUID();
    expect(await ask(a, ClientEvent.POLL_OPEN, { requestId: rid(), pollId, question: 'Ready?', kind: 'yesno' })).toMatchObject({
      ok: false,
      error: { code: ErrorCode.FORBIDDEN },
    });
    expect(await ask(t, ClientEvent.POLL_OPEN, { requestId: rid(), pollId, question: 'Ready?', kind: 'yesno', choices: ['a', 'b'] })).toMatchObject({
      ok: false,
      error: { code: ErrorCode.BAD_REQUEST },
    });
    ok(await ask(t, ClientEvent.POLL_OPEN, { requestId: rid(), pollId, question: 'Ready?', kind: 'yesno' }));
    expect(await ask(t, ClientEvent.POLL_ANSWER, { requestId: rid(), pollId, choice: 0 })).toMatchObject({ ok: false, error: { code: ErrorCode.FORBIDDEN } });
    expect(await ask(a, ClientEvent.POLL_ANSWER, { requestId: rid(), pollId, choice: 3 })).toMatchObject({ ok: false, error: { code: ErrorCode.BAD_REQUEST } });

    ok(await ask(a, ClientEvent.POLL_ANSWER, { requestId: rid(), pollId, choice: 0 }));
    ok(await ask(a, ClientEvent.POLL_ANSWER, { requestId: rid(), pollId, choice: 1 }));
    ok(await ask(b, ClientEvent.POLL_ANSWER, { requestId: rid(), pollId, choice: 1 }));
    await t.until(() => t.received['poll.answers'].length === 3, 'three answers at the teacher');
    expect(t.received['poll.answers'].map((p) => [p.answers[0]!.userId, p.answers[0]!.choice])).toEqual([
      [grants[0]!.userId, 0],
      [grants[0]!.userId, 1],
      [grants[1]!.userId, 1],
    ]);
    // Who has not answered: the teacher's poll.get lists every answer.
    const view = ok(await ask<{ poll: Poll; answers: Array<{ userId: string }> }>(t, ClientEvent.POLL_GET, {}));
    expect(view.answers.map((x) => x.userId).sort()).toEqual([grants[0]!.userId, grants[1]!.userId].sort());
    expect(ok(await ask<{ answers: Array<{ userId: string }> }>(c, ClientEvent.POLL_GET, {})).answers).toEqual([]);

    const shown = ok(await ask<{ poll: Poll }>(t, ClientEvent.POLL_SHOW, { requestId: rid(), pollId, shown: true }));
    expect(shown.poll.results?.counts).toEqual([0, 2]);
    ok(await ask(t, ClientEvent.POLL_CLOSE, { requestId: rid(), pollId }));
    expect(await ask(c, ClientEvent.POLL_ANSWER, { requestId: rid(), pollId, choice: 0 })).toMatchObject({ ok: false, error: { code: ErrorCode.POLL_CLOSED } });
    await c.until(() => c.eventsOfKind('poll.updated').some((e) => e.payload.status === 'closed'), 'the close at Cleo');

    for (const s of [a, b, c]) {
      expect(s.received['poll.answers']).toEqual([]);
      const pollWire = JSON.stringify(s.eventsOfKind('poll.updated'));
      for (const g of grants) {
        expect(pollWire).not.toContain(g.userId);
        expect(pollWire).not.toContain(g.displayName);
      }
    }
    expect(c.eventsOfKind('poll.updated').at(-1)?.payload).toMatchObject({ answered: 2, results: { counts: [0, 2] } });
  });

  test('P7: the lesson\'s export keeps every poll with who answered what (JSON and CSV, for the teacher only)', async () => {
    const { teacher, grants, t, students } = await classOf(['Ana', 'Ben']);
    const pollId = randomUUID();
    ok(await ask(t, ClientEvent.POLL_OPEN, { requestId: rid(), pollId, question: 'Colour?', kind: 'custom', choices: ['Red', 'Blue'] }));
    ok(await ask(students[0]!, ClientEvent.POLL_ANSWER, { requestId: rid(), pollId, choice: 1 }));
    ok(await ask(t, ClientEvent.POLL_CLOSE, { requestId: rid(), pollId }));
    const get = (path: string, token: string) => fetch(`${app.url}/api/rooms/${teacher.room.code}/attendance/${path}`, { headers: { authorization: `Bearer ${token}` } });
    const report = AttendanceReport.parse(await (await get('report', teacher.token)).json());
    expect(report.polls?.map((p) => [p.poll.question, p.poll.results?.counts, p.answers.map((a) => [a.userId, a.choice])])).toEqual([
      ['Colour?', [0, 1], [[grants[0]!.userId, 1]]],
    ]);
    const csv = await (await get('polls.csv', teacher.token)).text();
    expect(csv.split('\r\n').filter(Boolean).map((line) => line.split(',').slice(1).join(','))).toEqual([
      'question,kind,opened_at,status,student,user_id,answer',
      `Colour?,custom,${report.polls![0]!.poll.openedAt},closed,Ana,${grants[0]!.userId},Blue`,
      `Colour?,custom,${report.polls![0]!.poll.openedAt},closed,Ben,${grants[1]!.userId},`,
    ]);
    expect((await get('polls.csv', grants[0]!.token)).status).toBe(403);
  });

  test('F2: help requests queue in the order raised, reach the teacher on the board\'s log, and only the owner flags; the teacher clears', async () => {
    const { grants, t, students } = await classOf(['Ana', 'Ben', 'Cleo']);
    const [a, b, c] = students as [TestClient, TestClient, TestClient];
    ok(await ask(t, ClientEvent.ACTIVITY_START, { activityId: randomUUID(), title: 'Sums', start: { kind: 'blank' } }));
    ok(await ask(t, ClientEvent.BOARD_LIST, {}));
    const boardOf = async (s: TestClient) => ok(await ask<{ board: BoardInfo }>(s, ClientEvent.BOARD_MINE, {})).board.id;
    const [boardA, boardB, boardC] = [await boardOf(a), await boardOf(b), await boardOf(c)];

    ok(await ask(b, ClientEvent.BOARD_FLAG, { requestId: rid(), boardId: boardB, flag: 'help' }));
    suite.clock.advance(1_000);
    ok(await ask(a, ClientEvent.BOARD_FLAG, { requestId: rid(), boardId: boardA, flag: 'help' }));
    ok(await ask(c, ClientEvent.BOARD_FLAG, { requestId: rid(), boardId: boardC, flag: 'done' }));
    expect(await ask(a, ClientEvent.BOARD_FLAG, { requestId: rid(), boardId: boardB, flag: null })).toMatchObject({ ok: false, error: { code: ErrorCode.BOARD_FORBIDDEN } });
    expect(await ask(t, ClientEvent.BOARD_FLAG, { requestId: rid(), boardId: boardA, flag: 'help' })).toMatchObject({ ok: false, error: { code: ErrorCode.FORBIDDEN } });
    expect(await ask(a, ClientEvent.BOARD_FLAG, { requestId: rid(), boardId: boardA, flag: 'stuck' })).toMatchObject({ ok: false, error: { code: ErrorCode.BAD_REQUEST } });

    await t.until(() => t.eventsOfKind('board.flagged').length === 3, 'three flags at the teacher');
    // Nobody else hears of a private board's flag.
    expect(a.eventsOfKind('board.flagged').map((e) => e.roomId)).toEqual([boardA]);
    const listed = ok(await ask<{ boards: BoardInfo[] }>(t, ClientEvent.BOARD_LIST, {}));
    expect(helpQueue(listed.boards).map((x) => x.ownerUserId)).toEqual([grants[1]!.userId, grants[0]!.userId]);

    ok(await ask(t, ClientEvent.BOARD_FLAG, { requestId: rid(), boardId: boardB, flag: null }));
    await b.until(() => b.eventsOfKind('board.flagged').some((e) => e.payload.flag === null && e.payload.by === t.received.welcome[0]!.userId), 'Ben sees it cleared');
    const after = ok(await ask<{ boards: BoardInfo[] }>(t, ClientEvent.BOARD_LIST, {}));
    expect(helpQueue(after.boards).map((x) => x.ownerUserId)).toEqual([grants[0]!.userId]);
  });
});

for (const { kind, skip } of databaseKinds()) {
  describe.skipIf(skip !== null)(`the timer across a server restart on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    let testDb: TestDatabase;
    const clients: TestClient[] = [];
    beforeAll(async () => {
      testDb = await openTestDatabase(kind);
    });
    afterEach(() => {
      for (const c of clients.splice(0)) c.close();
    });
    afterAll(async () => {
      await testDb?.drop();
    });

    test('T5: a running timer keeps its deadline, and a paused one what was left, when the server restarts', async () => {
      const clock = new FrozenClock(new Date('2030-03-02T10:00:00Z'));
      const first = await startTestServer(testDb.database, { clock });
      await first.sweeper.pass();
      const teacher = await createRoom(first);
      const t = new TestClient(first, teacher.token);
      clients.push(t);
      await t.ready();
      const started = ok(await ask<{ room: RoomInfo }>(t, ClientEvent.TIMER_SET, { requestId: rid(), timer: { action: 'start', durationMs: 120_000 } }));
      await first.close();

      clock.advance(20_000);
      const second = await startTestServer(testDb.database, { clock });
      try {
        await second.sweeper.pass();
        const again = new TestClient(second, teacher.token);
        clients.push(again);
        const { sync } = await again.ready();
        if (sync.kind !== 'snapshot') throw new Error('a fresh client gets a snapshot');
        expect(sync.snapshot.room.timer?.endsAt).toBe(started.room.timer?.endsAt);
        const now = ok(await ask<{ serverNow: number }>(again, ClientEvent.CLOCK_NOW, {}));
        expect(timerRemainingMs(sync.snapshot.room.timer!, now.serverNow)).toBe(100_000);
        const paused = ok(await ask<{ room: RoomInfo }>(again, ClientEvent.TIMER_SET, { requestId: rid(), timer: { action: 'pause' } }));
        expect(paused.room.timer).toMatchObject({ status: 'paused', remainingMs: 100_000 });
      } finally {
        await second.close();
      }
      clock.advance(60_000);
      const third = await startTestServer(testDb.database, { clock });
      try {
        await third.sweeper.pass();
        const last = new TestClient(third, teacher.token);
        clients.push(last);
        const { sync } = await last.ready();
        if (sync.kind !== 'snapshot') throw new Error('a fresh client gets a snapshot');
        expect(sync.snapshot.room.timer).toMatchObject({ status: 'paused', remainingMs: 100_000 });
      } finally {
        await third.close();
      }
    });
  });
}
