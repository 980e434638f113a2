/**
 * The cursor tick follows the server's load: short when the event loop is mostly idle (a cursor
 * waits on average half a tick before it is sent, so a quiet classroom gets low latency), long
 * when it is busy (one batch per room per tick is what keeps a loaded node's cost per delivered
 * update low), and longer still when it is overloaded (issue 42: the ephemeral path sheds first,
 * fewer and larger batches, so strokes, lock grants and renewals keep their time). The signal is the event loop's utilization, the share of wall time the main
 * thread spent running callbacks, smoothed so one slow callback does not swing the tick.
 */
export interface AdaptiveTickOptions {
  /** The tick when the loop is calm. */
  minMs: number;
  /** The tick when the loop is busy. */
  maxMs: number;
  /**
   * The tick when the loop is overloaded (graceful overload, issue 42): past `overloaded`
   * utilization the tick stretches from `maxMs` toward this, so the ephemeral path (cursors, ink,
   * drags: superseded or merged, never lost mid-stroke) sheds work before the durable one waits.
   * Never longer. Default `maxMs` (no shedding).
   */
  overloadMs?: number;
  /** Past this utilization (default 0.9) the tick stretches from `maxMs`, reaching `overloadMs` at 1. */
  overloaded?: number;
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
  private readonly overloaded: number;

  constructor(private readonly options: AdaptiveTickOptions) {
    if (!(options.minMs > 0 && options.minMs <= options.maxMs)) {
      throw new RangeError(`tick bounds must satisfy 0 < min <= max (got ${options.minMs}, ${options.maxMs})`);
    }
    this.calm = options.calm ?? 0.5;
    this.busy = options.busy ?? 0.8;
    this.smoothing = options.smoothing ?? 0.3;
    this.overloaded = options.overloaded ?? 0.9;
    if (!(this.calm < this.busy)) throw new RangeError('calm utilization must be below busy utilization');
    if (!(this.busy < this.overloaded)) throw new RangeError('busy utilization must be below overloaded utilization');
    if (options.overloadMs !== undefined && !(options.overloadMs >= options.maxMs)) throw new RangeError('the overload tick must not be shorter than the busy one');
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

  /** Whether the tick is past `maxMs`: the node is shedding ephemeral work. */
  get shedding(): boolean {
    return this.ms > this.options.maxMs;
  }

  /** The current tick in milliseconds, between `minMs` and `overloadMs` (`maxMs` unless overloaded). */
  get ms(): number {
    const { minMs, maxMs } = this.options;
    const overloadMs = this.options.overloadMs ?? maxMs;
    if (this.utilization <= this.calm) return minMs;
    if (this.utilization > this.overloaded && overloadMs > maxMs) {
      return maxMs + ((this.utilization - this.overloaded) / (1 - this.overloaded)) * (overloadMs - maxMs);
    }
    if (this.utilization >= this.busy) return maxMs;
    const share = (this.utilization - this.calm) / (this.busy - this.calm);
    return minMs + share * (maxMs - minMs);
  }
}
