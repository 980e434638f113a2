import type { CursorBatch, CursorEntry, CursorVisibility, InkEntry } from '@wb/protocol';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { EphemeralFanout, MAX_INK_POINTS_PER_TICK, type BoardBatch, type CursorAudience } from '../src/realtime/ephemeralFanout.ts';

const ROOM = 'room-1';
const entry = (sessionId: string, x: number): CursorEntry => [sessionId, x, 0];
const userOf = (sessionId: string) => `user-${sessionId}`;

describe('ephemeral fan-out (cursors and drags)', () => {
  let sent: { roomId: string; batch: CursorBatch; at: number }[];
  let tickMs: number;
  let fanout: EphemeralFanout;

  beforeEach(() => {
    vi.useFakeTimers();
    sent = [];
    tickMs = 33;
    fanout = new EphemeralFanout(
      () => tickMs,
      (roomId, batch) => sent.push({ roomId, batch, at: Date.now() }),
      () => Date.now(),
    );
  });
  afterEach(() => {
    fanout.stop();
    vi.useRealTimers();
  });

  test('a lone cursor in a quiet room goes out at once; later ones wait for the tick', () => {
    fanout.pushCursor(ROOM, userOf('a'), entry('a', 1), 'student');
    expect(sent).toHaveLength(1);
    fanout.pushCursor(ROOM, userOf('a'), entry('a', 2), 'student');
    fanout.pushCursor(ROOM, userOf('b'), entry('b', 5), 'student');
    expect(sent).toHaveLength(1);
    vi.advanceTimersByTime(33);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.batch.cursors.map(([sessionId, x]) => [sessionId, x])).toEqual([
      ['a', 2],
      ['b', 5],
    ]);
  });

  test('a newer position replaces an unsent one: one entry per session per batch', () => {
    fanout.pushCursor(ROOM, userOf('a'), entry('a', 0), 'student');
    for (let x = 1; x <= 10; x++) fanout.pushCursor(ROOM, userOf('a'), entry('a', x), 'student');
    vi.advanceTimersByTime(33);
    expect(sent[1]!.batch.cursors).toEqual([entry('a', 10)]);
  });

  test('I1: a forgotten session\'s unsent position is never sent', () => {
    fanout.pushCursor(ROOM, userOf('a'), entry('a', 0), 'student');
    fanout.pushCursor(ROOM, userOf('a'), entry('a', 1), 'student');
    fanout.pushCursor(ROOM, userOf('b'), entry('b', 1), 'student');
    fanout.forgetSessions(ROOM, ['a']);
    vi.advanceTimersByTime(33);
    expect(sent.at(-1)!.batch.cursors.map(([sessionId]) => sessionId)).toEqual(['b']);
  });

  test('the tick is read at each scheduling: a shorter tick sends sooner', () => {
    tickMs = 12;
    fanout.pushCursor(ROOM, userOf('a'), entry('a', 0), 'student');
    fanout.pushCursor(ROOM, userOf('a'), entry('a', 1), 'student');
    vi.advanceTimersByTime(11);
    expect(sent).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.at - sent[0]!.at).toBe(12);
    tickMs = 33;
    fanout.pushCursor(ROOM, userOf('a'), entry('a', 2), 'student');
    vi.advanceTimersByTime(32);
    expect(sent).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(sent).toHaveLength(3);
  });

  test('rooms batch independently', () => {
    fanout.pushCursor('r1', userOf('a'), entry('a', 0), 'student');
    fanout.pushCursor('r2', userOf('b'), entry('b', 0), 'student');
    expect(sent.map((s) => s.roomId)).toEqual(['r1', 'r2']);
  });

  const inkEntry = (sessionId: string, strokeId: string, from: number, xs: number[], end?: InkEntry['end']): InkEntry => ({
    strokeId,
    sessionId,
    from,
    points: xs.map((x) => [x, 0, 0.5] as [number, number, number]),
    stroke: '#000000',
    strokeWidth: 2,
    ...(end ? { end } : {}),
  });

  test('live ink of one stroke is joined within a tick, never superseded: every point goes out once, in order, with its end', () => {
    fanout.pushInk(ROOM, userOf('a'), inkEntry('a', 's1', 0, [0]));
    fanout.pushInk(ROOM, userOf('a'), inkEntry('a', 's1', 1, [1, 2]));
    fanout.pushInk(ROOM, userOf('a'), inkEntry('a', 's1', 3, [3], 'up'));
    fanout.pushInk(ROOM, userOf('b'), inkEntry('b', 's2', 0, [9]));
    vi.advanceTimersByTime(33);
    expect(sent[0]!.batch.ink?.map((e) => e.points.map(([x]) => x))).toEqual([[0]]);
    const ink = sent[1]!.batch.ink ?? [];
    expect(ink.map((e) => [e.strokeId, e.from, e.points.map(([x]) => x), e.end])).toEqual([
      ['s1', 1, [1, 2, 3], 'up'],
      ['s2', 0, [9], undefined],
    ]);
    vi.advanceTimersByTime(33);
    expect(sent).toHaveLength(2);
  });

  test('I10: a stroke\'s points per tick are bounded, and another session cannot append to a stroke it did not start', () => {
    fanout.pushCursor(ROOM, userOf('x'), entry('x', 0), 'student'); // the room's first flush goes at once
    expect(fanout.pushInk(ROOM, userOf('a'), inkEntry('a', 's1', 0, Array.from({ length: MAX_INK_POINTS_PER_TICK }, (_, i) => i)))).toBe(true);
    expect(fanout.pushInk(ROOM, userOf('a'), inkEntry('a', 's1', MAX_INK_POINTS_PER_TICK, [1]))).toBe(false);
    expect(fanout.pushInk(ROOM, userOf('b'), inkEntry('b', 's1', 0, [7]))).toBe(false);
    vi.advanceTimersByTime(33);
    const ink = sent.at(-1)!.batch.ink ?? [];
    expect(ink).toHaveLength(1);
    expect(ink[0]!.sessionId).toBe('a');
    expect(ink[0]!.points).toHaveLength(MAX_INK_POINTS_PER_TICK);
  });

  test('I1: unsent ink is dropped with its session, its user, or its stroke\'s durable element', () => {
    fanout.pushCursor(ROOM, userOf('x'), entry('x', 0), 'student');
    fanout.pushInk(ROOM, userOf('a'), inkEntry('a', 's1', 0, [1]));
    fanout.pushInk(ROOM, userOf('b'), inkEntry('b', 's2', 0, [1]));
    fanout.pushInk(ROOM, userOf('c'), inkEntry('c', 's3', 0, [1]));
    fanout.pushInk(ROOM, userOf('d'), inkEntry('d', 's4', 0, [1]));
    fanout.forgetSessions(ROOM, ['a']);
    fanout.forgetUser(ROOM, userOf('b'));
    fanout.forgetInk(ROOM, 's3');
    vi.advanceTimersByTime(33);
    expect(sent.at(-1)!.batch.ink?.map((e) => e.strokeId)).toEqual(['s4']);
  });
});

describe('ephemeral fan-out filtered by cursor visibility (I12)', () => {
  const modes: CursorVisibility[] = ['everyone', 'teacher', 'none'];
  /** One tick of a room of 31 (a teacher and 30 students) under each mode: entries per audience. */
  const oneTick = (mode: CursorVisibility) => {
    const sent: { audience: CursorAudience; entries: number }[] = [];
    const fanout = new EphemeralFanout(33, (_room, batch, audience) => sent.push({ audience, entries: batch.cursors.length }), () => 0, () => mode);
    // The first push flushes at once (a quiet room); the rest wait for the next tick.
    fanout.pushCursor(ROOM, 'teacher', entry('t', 0), 'teacher');
    for (let i = 0; i < 30; i++) fanout.pushCursor(ROOM, `student-${i}`, entry(`s${i}`, i), 'student');
    fanout.pushCursor(ROOM, 'teacher', entry('t', 1), 'teacher');
    sent.length = 0;
    vi.advanceTimersByTime(33);
    fanout.stop();
    return sent;
  };
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  test.each(modes)("a tick under '%s' sends the teachers every entry and the students only what they may see", (mode) => {
    const expected: Record<CursorVisibility, { audience: CursorAudience; entries: number }[]> = {
      everyone: [{ audience: 'room', entries: 31 }],
      // Each student receives one entry: the room costs 31 + 30 entries, O(n), not 31 × 31.
      teacher: [
        { audience: 'teachers', entries: 31 },
        { audience: 'students', entries: 1 },
      ],
      none: [{ audience: 'teachers', entries: 31 }],
    };
    expect(oneTick(mode)).toEqual(expected[mode]);
  });

  test('while the room\'s mode is unknown, students receive no one\'s cursor', () => {
    const sent: CursorAudience[] = [];
    const fanout = new EphemeralFanout(33, (_room, _batch, audience) => sent.push(audience), () => 0, () => null);
    fanout.pushCursor(ROOM, 'teacher', entry('t', 0), 'teacher');
    fanout.stop();
    expect(sent).toEqual(['teachers']);
  });
});

describe("a page's board batch filtered by its lesson's cursor visibility (I12)", () => {
  const LESSON = 'lesson-1';
  const PAGE = 'page-2';
  const PRIVATE = 'board-ana';
  /** One board tick with the teacher's and two students' pointers on a page and on a private board (and, optionally, live ink on both). */
  const oneTick = (mode: CursorVisibility | null, withInk = false) => {
    const sent: BoardBatch[] = [];
    const fanout = new EphemeralFanout(33, () => {}, () => 0, () => mode, {
      tickMs: 50,
      pageLesson: (boardId) => (boardId === PAGE ? LESSON : null),
      send: (batches) => sent.push(...batches),
    });
    for (const board of [PAGE, PRIVATE]) {
      fanout.pushCursor(board, 'teacher', entry('t', 1), 'teacher', 'private');
      fanout.pushCursor(board, 'ana', entry('a', 2), 'student', 'private');
      fanout.pushCursor(board, 'ben', entry('b', 3), 'student', 'private');
      if (withInk) fanout.pushInk(board, 'ben', { strokeId: `ink-${board}`, sessionId: 'b', from: 0, points: [[1, 1, 0.5]], stroke: '#000000', strokeWidth: 2 }, 'private');
    }
    fanout.flushBoards();
    fanout.stop();
    return sent.map((b) => ({ audience: b.audience, boardId: b.batch.boardId, sessions: b.batch.pointers.map(([s]) => s), ink: b.batch.ink?.length ?? 0 }));
  };
  const privateBoard = (ink: number) => ({ audience: 'board', boardId: PRIVATE, sessions: ['t', 'a', 'b'], ink });

  test.each([
    ['everyone', [{ audience: 'board', boardId: PAGE, sessions: ['t', 'a', 'b'], ink: 0 }, privateBoard(0)]],
    ['teacher', [{ audience: 'teachers', boardId: PAGE, sessions: ['t', 'a', 'b'], ink: 0 }, { audience: 'students', boardId: PAGE, sessions: ['t'], ink: 0 }, privateBoard(0)]],
    // Nothing moved for the students but cursors they may not see: no batch at all for them.
    ['none', [{ audience: 'teachers', boardId: PAGE, sessions: ['t', 'a', 'b'], ink: 0 }, privateBoard(0)]],
    [null, [{ audience: 'teachers', boardId: PAGE, sessions: ['t', 'a', 'b'], ink: 0 }, privateBoard(0)]],
  ] as const)("under '%s' a page's pointers reach its students as the lesson's own board's cursors do; a private board's reach its whole audience", (mode, expected) => {
    expect(oneTick(mode)).toEqual(expected);
  });

  test("live ink on a page is not a cursor: under 'none' its students still get the tick's ink, with no pointer", () => {
    expect(oneTick('none', true)).toEqual([
      { audience: 'teachers', boardId: PAGE, sessions: ['t', 'a', 'b'], ink: 1 },
      { audience: 'students', boardId: PAGE, sessions: [], ink: 1 },
      privateBoard(1),
    ]);
  });
});
