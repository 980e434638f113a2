/**
 * A fixed-resolution latency histogram: millions of samples per point would not fit in arrays,
 * and 0.1 ms resolution is far below what the pass rule (p99 < 100 ms) needs.
 */
const BUCKET_MS = 0.1;
const MAX_MS = 10_000;
const BUCKETS = Math.ceil(MAX_MS / BUCKET_MS);

export interface LatencySummary {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

export interface SparseHistogram {
  /** Pairs: bucket index, count. */
  buckets: number[];
  total: number;
  sum: number;
  max: number;
}

export class LatencyHistogram {
  private counts = new Uint32Array(BUCKETS + 1);
  private total = 0;
  private sum = 0;
  private maxMs = 0;

  record(ms: number): void {
    // Loopback and one clock: a negative value can only be rounding, so count it as zero.
    const value = ms < 0 ? 0 : ms;
    const bucket = Math.min(BUCKETS, Math.floor(value / BUCKET_MS));
    this.counts[bucket] = (this.counts[bucket] ?? 0) + 1;
    this.total += 1;
    this.sum += value;
    if (value > this.maxMs) this.maxMs = value;
  }

  get count(): number {
    return this.total;
  }

  percentile(p: number): number {
    if (this.total === 0) return Number.NaN;
    const rank = Math.ceil((p / 100) * this.total);
    let seen = 0;
    for (let i = 0; i <= BUCKETS; i++) {
      seen += this.counts[i] ?? 0;
      if (seen >= rank) return i >= BUCKETS ? this.maxMs : (i + 1) * BUCKET_MS;
    }
    return this.maxMs;
  }

  /** The non-empty buckets and totals, small enough to post between threads. */
  toSparse(): SparseHistogram {
    const buckets: number[] = [];
    this.counts.forEach((count, bucket) => {
      if (count > 0) buckets.push(bucket, count);
    });
    return { buckets, total: this.total, sum: this.sum, max: this.maxMs };
  }

  /** Adds another histogram's samples (e.g. from another generator thread). */
  merge(other: SparseHistogram): void {
    for (let i = 0; i < other.buckets.length; i += 2) {
      const bucket = other.buckets[i]!;
      this.counts[bucket] = (this.counts[bucket] ?? 0) + other.buckets[i + 1]!;
    }
    this.total += other.total;
    this.sum += other.sum;
    if (other.max > this.maxMs) this.maxMs = other.max;
  }

  summary(): LatencySummary {
    return {
      count: this.total,
      p50: this.percentile(50),
      p95: this.percentile(95),
      p99: this.percentile(99),
      max: this.maxMs,
      mean: this.total === 0 ? Number.NaN : this.sum / this.total,
    };
  }
}

/** Percentiles of a small list of samples (ghost times, reconnect times). */
export function percentileOf(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}
