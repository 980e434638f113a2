import { describe, expect, test } from 'vitest';
import { DRAIN_WINDOW_MAX_MS, drainReconnectDelay } from './drain.ts';

describe('reconnecting away from a draining server', () => {
  test('each client picks its own moment across the whole window (jitter, not a herd)', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16_807) % 2_147_483_647) - 1) / 2_147_483_646;
    const delays = Array.from({ length: 1_000 }, () => drainReconnectDelay(5_000, random));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...delays)).toBeLessThan(5_000);
    // Spread: every second of the window gets a fair share of the reconnects.
    const perSecond = [0, 1, 2, 3, 4].map((s) => delays.filter((d) => Math.floor(d / 1_000) === s).length);
    for (const n of perSecond) expect(n).toBeGreaterThan(150);
  });

  test('a window out of range is clamped: never negative, never past the cap', () => {
    expect(drainReconnectDelay(-5, () => 0.9)).toBe(0);
    expect(drainReconnectDelay(10 * DRAIN_WINDOW_MAX_MS, () => 0.999_999)).toBeLessThan(DRAIN_WINDOW_MAX_MS);
  });
});
