import type { CursorBatch, CursorEntry, InkEntry } from '@wb/protocol';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { EphemeralFanout, MAX_INK_POINTS_PER_TICK } from '../src/realtime/ephemeralFanout.ts';

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
    fanout.pushCursor(ROOM, userOf('a'), entry('a', 1));
    expect(sent).toHaveLength(1);
    fanout.pushCursor(ROOM, userOf('a'), entry('a', 2));
    fanout.pushCursor(ROOM, userOf('b'), entry('b', 5));
    expect(sent).toHaveLength(1);
    vi.advanceTimersByTime(33);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.batch.cursors.map(([sessionId, x]) => [sessionId, x])).toEqual([
      ['a', 2],
      ['b', 5],
    ]);
  });

  test('a newer position replaces an unsent one: one entry per session per batch', () => {
    fanout.pushCursor(ROOM, userOf('a'), entry('a', 0));
    for (let x = 1; x <= 10; x++) fanout.pushCursor(ROOM, userOf('a'), entry('a', x));
    vi.advanceTimersByTime(33);
    expect(sent[1]!.batch.cursors).toEqual([entry('a', 10)]);
  });

  test('I1: a forgotten session\'s unsent position is never sent', () => {
    fanout.pushCursor(ROOM, userOf('a'), entry('a', 0));
    fanout.pushCursor(ROOM, userOf('a'), entry('a', 1));
    fanout.pushCursor(ROOM, userOf('b'), entry('b', 1));
    fanout.forgetSessions(ROOM, ['a']);
    vi.advanceTimersByTime(33);
    expect(sent.at(-1)!.batch.cursors.map(([sessionId]) => sessionId)).toEqual(['b']);
  });

  test('the tick is read at each scheduling: a shorter tick sends sooner', () => {
    tickMs = 12;
    fanout.pushCursor(ROOM, userOf('a'), entry('a', 0));
    fanout.pushCursor(ROOM, userOf('a'), entry('a', 1));
    vi.advanceTimersByTime(11);
    expect(sent).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.at - sent[0]!.at).toBe(12);
    tickMs = 33;
    fanout.pushCursor(ROOM, userOf('a'), entry('a', 2));
    vi.advanceTimersByTime(32);
    expect(sent).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(sent).toHaveLength(3);
  });

  test('rooms batch independently', () => {
    fanout.pushCursor('r1', userOf('a'), entry('a', 0));
    fanout.pushCursor('r2', userOf('b'), entry('b', 0));
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
    fanout.pushCursor(ROOM, userOf('x'), entry('x', 0)); // the room's first flush goes at once
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
    fanout.pushCursor(ROOM, userOf('x'), entry('x', 0));
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
