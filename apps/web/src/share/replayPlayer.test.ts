import { replayBoard, type ElementShape, type ReplayStep } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { MAX_IDLE_MS, ReplayBoard, advance, clockText, delayBefore, lessonTimeAt } from './replayPlayer.ts';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const C = '00000000-0000-4000-8000-00000000000c';
const rect = (x: number): ElementShape => ({ kind: 'rect', x, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 });
const step = (id: string, version: number, at: number, x: number, deleted = false, z = 1): ReplayStep => ({ id, version, at, deleted, shape: rect(x), z });

// A drawn, B drawn, A moved, B deleted, C drawn a minute later, A's older version arriving late (I1).
const steps: ReplayStep[] = [
  step(A, 1, 1_000, 0, false, 1),
  step(B, 1, 1_500, 20, false, 2),
  step(A, 2, 2_000, 50, false, 1),
  step(B, 2, 2_100, 20, true, 2),
  step(C, 1, 62_100, 90, false, 3),
  step(A, 1, 62_100, 0, false, 1),
];

const xs = (elements: Iterable<{ id: string; shape: ElementShape }>) => [...elements].map((e) => [e.id.slice(-1), e.shape.x]).sort();

describe('replay player', () => {
  test('RP1/RP2: seeking forward and back shows the board of that position; the end is the final state', () => {
    const board = new ReplayBoard();
    board.setSteps(steps);
    for (const position of [0, 3, 6, 2, 4, 1, 6, 5, 0]) {
      expect(xs(board.seek(position).values())).toEqual(xs(replayBoard(steps, position)));
    }
    expect(xs(board.seek(steps.length).values())).toEqual([['a', 50], ['c', 90]]);
    expect(xs(board.seek(2).values())).toEqual([['a', 0], ['b', 20]]);
  });

  test('RP4: an element keeps its object until a step changes it', () => {
    const board = new ReplayBoard();
    board.setSteps(steps);
    const before = board.seek(2).get(B);
    expect(board.seek(3).get(B)).toBe(before);
    expect(board.seek(3).get(A)).not.toBe(board.seek(1).get(A));
  });

  test('RP3: playback waits each gap divided by the speed, a long pause at most MAX_IDLE_MS', () => {
    expect(delayBefore(steps, 1, 1)).toBe(500);
    expect(delayBefore(steps, 1, 4)).toBe(125);
    expect(delayBefore(steps, 4, 1)).toBe(MAX_IDLE_MS);
    expect(delayBefore(steps, 4, 16)).toBe(MAX_IDLE_MS / 16);
    // The first step shows at once; 600 ms more shows the second and owes 100 toward the third.
    expect(advance(steps, { position: 0, owedMs: 0 }, 0, 1)).toEqual({ position: 1, owedMs: 0 });
    expect(advance(steps, { position: 1, owedMs: 0 }, 600, 1)).toEqual({ position: 2, owedMs: 100 });
    // At 16x the whole lesson (0.5 + 0.5 + 0.1 + 2 (capped) + 0 s) plays in under 200 ms.
    expect(advance(steps, { position: 0, owedMs: 0 }, 200, 16)).toEqual({ position: 6, owedMs: 0 });
    expect(advance(steps, { position: 0, owedMs: 0 }, 200, 1).position).toBeLessThan(6);
  });

  test('lesson time and its clock text', () => {
    expect(lessonTimeAt(steps, 0)).toBe(0);
    expect(lessonTimeAt(steps, 5)).toBe(61_100);
    expect(clockText(61_100)).toBe('1:01');
    expect(clockText(3_723_000)).toBe('1:02:03');
  });
});
