/**
 * The retention schedule (docs/privacy.md, docs/operations.md "Retention"): every node, every
 * RETENTION_SWEEP_INTERVAL_MS, deletes the lessons nobody used for RETENTION_DAYS days (0 keeps
 * everything). No leader is needed: each lesson is deleted in its own transaction that locks it
 * first and skips one another node holds (`wb_purge_lesson`, migration 0020), so a fleet deletes
 * each lesson exactly once and the nodes share the work. Batches of `RETENTION_BATCH` until a
 * pass finds fewer, so a backlog (retention switched on over years of lessons) drains in one pass
 * without one long transaction.
 */
import type { Store } from '@wb/db';

/** Lessons read per query; each is deleted in its own transaction. */
export const RETENTION_BATCH = 50;

export interface RetentionLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export class RetentionSchedule {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    private readonly store: Store,
    private readonly log: RetentionLog,
    private readonly options: { days: number; intervalMs: number },
  ) {}

  start(): void {
    if (this.timer || this.options.days <= 0) return;
    const tick = () => {
      this.running = this.pass()
        .catch((error: unknown) => {
          // The database may be away: the next pass tries again; nothing is half deleted.
          this.log.warn({ err: String(error) }, 'retention pass failed');
          return 0;
        })
        .finally(() => {
          this.running = null;
          if (this.timer) this.timer = setTimeout(tick, this.options.intervalMs);
        });
    };
    // The first pass a minute after start: not in the middle of a rolling restart's rush.
    this.timer = setTimeout(tick, Math.min(60_000, this.options.intervalMs));
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One pass; the lessons this node deleted. Exposed for tests that decide when time moves. */
  async pass(): Promise<number> {
    if (this.options.days <= 0) return 0;
    let deleted = 0;
    for (;;) {
      const result = await this.store.sweepRetention({ days: this.options.days, batch: RETENTION_BATCH });
      deleted += result.deleted;
      // Fewer than a batch: nothing more is due. A batch all skipped (another node holds them) ends too.
      if (result.found < RETENTION_BATCH || result.deleted === 0) break;
    }
    if (deleted > 0) this.log.info({ deleted, days: this.options.days }, 'retention: lessons deleted');
    return deleted;
  }
}
