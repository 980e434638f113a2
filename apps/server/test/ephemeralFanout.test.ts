import type { CursorBatch, CursorEntry } from '@wb/protocol';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { EphemeralFanout } from '../src/realtime/ephemeralFanout.ts';

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
});
