import { describe, expect, test } from 'vitest';
import { LatencyHistogram } from '../bench/latencyHistogram.ts';

/**
 * A threaded load generator measures each room on one thread and merges the threads' latency
 * histograms: the merged figures must be those of one histogram that saw every sample.
 */
describe('bench latency histogram', () => {
  test('merging two threads’ histograms gives the percentiles of all samples together', () => {
    const one = new LatencyHistogram();
    const a = new LatencyHistogram();
    const b = new LatencyHistogram();
    // Deterministic, skewed samples: thread a sees a fast tail, thread b a slow one.
    for (let i = 0; i < 5_000; i++) {
      const fast = (i * 7919) % 400 / 10; // 0-40 ms
      const slow = 20 + ((i * 104729) % 900) / 10; // 20-110 ms
      one.record(fast);
      one.record(slow);
      a.record(fast);
      b.record(slow);
    }
    const merged = new LatencyHistogram();
    merged.merge(a.toSparse());
    merged.merge(b.toSparse());
    expect(merged.summary()).toEqual(one.summary());
    // And the merge is not trivially one side: p99 comes from the slow thread, p50 from both.
    expect(merged.summary().p99).toBeGreaterThan(a.summary().max);
    expect(merged.summary().count).toBe(10_000);
  });

  test('the sparse form holds only non-empty buckets', () => {
    const h = new LatencyHistogram();
    h.record(1.05);
    h.record(1.07);
    h.record(250);
    expect(h.toSparse()).toEqual({ buckets: [10, 2, 2500, 1], total: 3, sum: 1.05 + 1.07 + 250, max: 250 });
  });
});
