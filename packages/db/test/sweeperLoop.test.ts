import { afterEach, describe, expect, it, vi } from 'vitest';
import { Sweeper } from '../src/sweeper.ts';
import type { Store } from '../src/store.ts';

/** A sweeper whose passes take a set time and record when they started; no database needed. */
class TimedSweeper extends Sweeper {
  readonly starts: number[] = [];
  constructor(private readonly passMs: number) {
    super(
      {} as Store,
      { tryAcquire: async () => true, release: async () => {} },
      async () => {},
      { info: () => {}, warn: () => {} },
      { intervalMs: 1_000, leaseTtlMs: 9_000, lockTtlMs: 5_000, batch: 100, eventLogKeep: 100, pruneEvery: 10 },
    );
  }
  override async pass(): Promise<void> {
    this.starts.push(performance.now());
    await new Promise((resolve) => setTimeout(resolve, this.passMs));
  }
}

describe('sweeper loop', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ghost time: passes start one interval apart however long each pass takes, so an expiry is found within term + sweep', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const sweeper = new TimedSweeper(300);
    sweeper.start();
    await vi.advanceTimersByTimeAsync(5_050);
    const stop = sweeper.stop();
    await vi.advanceTimersByTimeAsync(1_000);
    await stop;
    const gaps = sweeper.starts.slice(1).map((at, i) => at - sweeper.starts[i]!);
    expect(gaps.length).toBeGreaterThanOrEqual(4);
    for (const gap of gaps) expect(gap).toBe(1_000);
  });

  it('a pass longer than the interval is followed at once, never overlapped', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const sweeper = new TimedSweeper(1_500);
    sweeper.start();
    await vi.advanceTimersByTimeAsync(6_100);
    const stop = sweeper.stop();
    await vi.advanceTimersByTimeAsync(2_000);
    await stop;
    const gaps = sweeper.starts.slice(1).map((at, i) => at - sweeper.starts[i]!);
    expect(gaps.length).toBeGreaterThanOrEqual(3);
    // The next pass follows at once (a zero-delay timer, which fake timers count as 1 ms).
    for (const gap of gaps) expect(gap - 1_500).toBeLessThanOrEqual(1);
  });
});
