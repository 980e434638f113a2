import { describe, expect, test } from 'vitest';
import { AdaptiveTick } from '../src/realtime/adaptiveTick.ts';

describe('adaptive cursor tick', () => {
  test('a calm loop gets the shortest tick, a busy one the longest, and the tick never leaves its bounds', () => {
    const tick = new AdaptiveTick({ minMs: 12, maxMs: 33, smoothing: 1 });
    expect(tick.ms).toBe(12);
    tick.observe(0.3);
    expect(tick.ms).toBe(12);
    tick.observe(0.95);
    expect(tick.ms).toBe(33);
    tick.observe(0.65); // halfway between calm (0.5) and busy (0.8)
    expect(tick.ms).toBeCloseTo(22.5, 5);
    tick.observe(7); // clamped to 1
    expect(tick.ms).toBe(33);
    tick.observe(-1);
    expect(tick.ms).toBe(12);
  });

  test('graceful overload (issue 42): past 90 % busy the tick stretches from maxMs to overloadMs, and comes back as the load drops', () => {
    const tick = new AdaptiveTick({ minMs: 12, maxMs: 33, overloadMs: 66, smoothing: 1 });
    tick.observe(0.85);
    expect(tick.ms).toBe(33);
    expect(tick.shedding).toBe(false);
    tick.observe(0.9);
    expect(tick.ms).toBe(33);
    tick.observe(0.95);
    expect(tick.ms).toBeCloseTo(49.5, 5);
    expect(tick.shedding).toBe(true);
    tick.observe(1);
    expect(tick.ms).toBe(66);
    tick.observe(0.3);
    expect(tick.ms).toBe(12);
    expect(tick.shedding).toBe(false);
    // Without overloadMs nothing is shed: the busy tick is the longest.
    const plain = new AdaptiveTick({ minMs: 12, maxMs: 33, smoothing: 1 });
    plain.observe(1);
    expect(plain.ms).toBe(33);
    expect(() => new AdaptiveTick({ minMs: 12, maxMs: 33, overloadMs: 20 })).toThrow(RangeError);
  });

  test('an overloaded node is back to its busy tick within 5 s of the load dropping (250 ms samples, default smoothing)', () => {
    const tick = new AdaptiveTick({ minMs: 12, maxMs: 33, overloadMs: 66 });
    for (let i = 0; i < 40; i++) tick.observe(1);
    expect(tick.ms).toBeCloseTo(66, 0);
    let samples = 0;
    // The load drops to a busy-but-coping node (70 % busy).
    while (tick.shedding) {
      tick.observe(0.7);
      samples += 1;
    }
    expect(samples * 250).toBeLessThanOrEqual(5_000);
  });

  test('one slow callback does not swing the tick: samples are smoothed', () => {
    const tick = new AdaptiveTick({ minMs: 12, maxMs: 33, smoothing: 0.3 });
    tick.observe(1);
    expect(tick.load).toBeCloseTo(0.3, 5);
    expect(tick.ms).toBe(12);
    for (let i = 0; i < 20; i++) tick.observe(1);
    expect(tick.ms).toBe(33);
  });

  test('non-finite samples are ignored and bad bounds are refused', () => {
    const tick = new AdaptiveTick({ minMs: 10, maxMs: 20, smoothing: 1 });
    tick.observe(0.9);
    tick.observe(Number.NaN);
    expect(tick.ms).toBe(20);
    expect(() => new AdaptiveTick({ minMs: 30, maxMs: 20 })).toThrow(RangeError);
    expect(() => new AdaptiveTick({ minMs: 0, maxMs: 20 })).toThrow(RangeError);
    expect(() => new AdaptiveTick({ minMs: 10, maxMs: 20, calm: 0.9, busy: 0.5 })).toThrow(RangeError);
  });

  test('equal bounds give a fixed tick', () => {
    const tick = new AdaptiveTick({ minMs: 33, maxMs: 33, smoothing: 1 });
    tick.observe(0);
    expect(tick.ms).toBe(33);
    tick.observe(1);
    expect(tick.ms).toBe(33);
  });
});
