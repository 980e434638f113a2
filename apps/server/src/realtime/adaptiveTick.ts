/**
 * The cursor tick follows the server's load: short when the event loop is mostly idle (a cursor
 * waits on average half a tick before it is sent, so a quiet classroom gets low latency), long
 * when it is busy (one batch per room per tick is what keeps a loaded node's cost per delivered
 * update low). The signal is the event loop's utilization, the share of wall time the main
 * thread spent running callbacks, smoothed so one slow callback does not swing the tick.
 */
export interface AdaptiveTickOptions {
  /** The tick when the loop is calm. */
  minMs: number;
  /** The tick when the loop is busy; never longer. */
  maxMs: number;
  /** At or below this utilization the tick is `minMs`. */
  calm?: number;
  /** At or above this utilization the tick is `maxMs`. */
  busy?: number;
  /** Weight of the newest sample in the moving average (0..1]. */
  smoothing?: number;
}

export class AdaptiveTick {
  private utilization = 0;
  private readonly calm: number;
  private readonly busy: number;
  private readonly smoothing: number;

  constructor(private readonly options: AdaptiveTickOptions) {
    if (!(options.minMs > 0 && options.minMs <= options.maxMs)) {
      throw new RangeError(`tick bounds must satisfy 0 < min <= max (got ${options.minMs}, ${options.maxMs})`);
    }
    this.calm = options.calm ?? 0.5;
    this.busy = options.busy ?? 0.8;
    this.smoothing = options.smoothing ?? 0.3;
    if (!(this.calm < this.busy)) throw new RangeError('calm utilization must be below busy utilization');
  }

  /** Feeds one utilization sample (0..1); out-of-range or non-finite samples are clamped or ignored. */
  observe(sample: number): void {
    if (!Number.isFinite(sample)) return;
    const clamped = Math.min(1, Math.max(0, sample));
    this.utilization += this.smoothing * (clamped - this.utilization);
  }

  /** The smoothed utilization the tick is derived from. */
  get load(): number {
    return this.utilization;
  }

  /** The current tick in milliseconds, between `minMs` and `maxMs`. */
  get ms(): number {
    const { minMs, maxMs } = this.options;
    if (this.utilization <= this.calm) return minMs;
    if (this.utilization >= this.busy) return maxMs;
    const share = (this.utilization - this.calm) / (this.busy - this.calm);
    return minMs + share * (maxMs - minMs);
  }
}
