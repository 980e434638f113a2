import { expect, test } from 'vitest';
import { isSettled, smoothToward } from './cursorSmoothing.ts';

test('cursor smoothing: frame-rate independent', () => {
  const from = { x: 0, y: 0 };
  const to = { x: 100, y: -50 };
  const twoSmall = smoothToward(smoothToward(from, to, 8), to, 8);
  const oneBig = smoothToward(from, to, 16);
  expect(twoSmall.x).toBeCloseTo(oneBig.x, 9);
  expect(twoSmall.y).toBeCloseTo(oneBig.y, 9);
});

test('cursor smoothing: never overshoots and settles', () => {
  let p = { x: 0, y: 0 };
  const to = { x: 10, y: 10 };
  for (let i = 0; i < 60; i++) {
    p = smoothToward(p, to, 16);
    expect(p.x).toBeLessThanOrEqual(10);
  }
  expect(isSettled(p, to)).toBe(true);
});

test('cursor smoothing: a zero or negative frame time does not move', () => {
  expect(smoothToward({ x: 1, y: 1 }, { x: 5, y: 5 }, 0)).toEqual({ x: 1, y: 1 });
  expect(smoothToward({ x: 1, y: 1 }, { x: 5, y: 5 }, -3)).toEqual({ x: 1, y: 1 });
});
