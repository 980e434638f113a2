import type { RenewOutcome, RenewRequest, Store } from '@wb/db';

interface Pending {
  request: RenewRequest;
  resolve: (outcome: RenewOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * Collects the lease renewals that arrive within one tick and writes them in one statement, so a
 * node's renewals for 1,000 users cost one statement per tick, not one per renewal.
 * Bounded (I10): past `maxPending` a renewal is refused at once rather than queued.
 */
export class RenewalBatcher {
  private pending: Pending[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: Pick<Store, 'renewLeases'>,
    private readonly options: { tickMs: number; ttlMs: number; maxPending: number },
    private readonly onFlush: (outcomes: readonly RenewOutcome[]) => void = () => {},
  ) {}

  /** Resolves with this renewal's decision once its batch is written; rejects if the store fails. */
  submit(request: RenewRequest): Promise<RenewOutcome> {
    if (this.pending.length >= this.options.maxPending) {
      return Promise.reject(new Error('renewal queue is full'));
    }
    return new Promise((resolve, reject) => {
      this.pending.push({ request, resolve, reject });
      this.timer ??= setTimeout(() => void this.flush(), this.options.tickMs);
    });
  }

  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    try {
      const outcomes = await this.store.renewLeases(
        batch.map((p) => p.request),
        this.options.ttlMs,
      );
      this.onFlush(outcomes);
      // Outcomes come back in request order, a session's second renewal after its first.
      const queue = new Map<string, RenewOutcome[]>();
      for (const outcome of outcomes) {
        const key = `${outcome.sessionId}/${outcome.requestId}`;
        queue.set(key, [...(queue.get(key) ?? []), outcome]);
      }
      for (const p of batch) {
        const outcome = queue.get(`${p.request.sessionId}/${p.request.requestId}`)?.shift();
        if (outcome) p.resolve(outcome);
        else p.reject(new Error('renewal missing from its batch result'));
      }
    } catch (error) {
      for (const p of batch) p.reject(error);
    }
  }

  async stop(): Promise<void> {
    await this.flush();
  }
}
