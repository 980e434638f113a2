import type { CreateRequest, ElementResult, Store } from '@wb/db';

interface Pending {
  request: CreateRequest;
  resolve: (result: ElementResult) => void;
  reject: (error: unknown) => void;
}

/**
 * Collects a lesson's `element.create`s and writes them in batches (issue 19): the creates that
 * arrive in the same tick, or while the previous batch is being written, go to the store together
 * (`createElements`: one statement, each room's revision moved once). A lesson's
 * batch holds the creates on its class board and on its students' private boards (issue 22:
 * thirty boards each drawn on about once a second would otherwise cost a transaction a stroke). A
 * quiet lesson's stroke is written at the end of the tick it arrived in; a busy one's strokes wait
 * for the batch in flight and then share the next, so batches grow with the load and the database
 * does less work per stroke the more strokes there are.
 *
 * Who writes: on Postgres each lesson has a writer of its own, so lessons' batches run side by side
 * on the pool's connections. With `oneWriter` (the embedded database: one connection, every
 * transaction in a row) one writer takes every lesson's creates, the lessons in turn, so a stroke
 * waits for at most the batch in flight, not for one batch of every other lesson before its own
 * (each a round trip to the engine's thread).
 *
 * Bounded (I10): at most `maxBatch` creates a batch, at most `maxPending` waiting per lesson (past
 * that a create is refused at once rather than queued).
 */
export class CreateBatcher {
  /** Creates waiting (not yet being written), by lesson. */
  private readonly lessons = new Map<string, Pending[]>();
  /** Writers with a batch scheduled or being written. */
  private readonly writing = new Set<string>();

  constructor(
    private readonly store: Pick<Store, 'createElements'>,
    private readonly options: { maxBatch: number; maxPending: number; oneWriter?: boolean },
    private readonly onBatch: (size: number) => void = () => {},
  ) {}

  /** Creates waiting (not yet being written) in a lesson's batches. */
  waiting(lessonId: string): number {
    return this.lessons.get(lessonId)?.length ?? 0;
  }

  /**
   * Resolves with this create's decision once its batch is written; rejects if the store fails.
   * `lessonId` names the batch: the request's room, or for a private board its lesson's.
   */
  submit(request: CreateRequest, lessonId: string = request.actor.roomId): Promise<ElementResult> {
    let pending = this.lessons.get(lessonId);
    if (!pending) {
      pending = [];
      this.lessons.set(lessonId, pending);
    }
    if (pending.length >= this.options.maxPending) return Promise.reject(new CreateQueueFull());
    const queue = pending;
    return new Promise((resolve, reject) => {
      queue.push({ request, resolve, reject });
      const writer = this.options.oneWriter ? ALL_LESSONS : lessonId;
      if (!this.writing.has(writer)) {
        this.writing.add(writer);
        setImmediate(() => void this.flush(writer));
      }
    });
  }

  /** The next batch of a writer: its lesson's oldest creates, or one of each lesson in turn. */
  private take(writer: string): Pending[] {
    if (writer !== ALL_LESSONS) {
      const pending = this.lessons.get(writer);
      if (!pending) return [];
      const batch = pending.splice(0, this.options.maxBatch);
      if (pending.length === 0) this.lessons.delete(writer);
      return batch;
    }
    const batch: Pending[] = [];
    while (batch.length < this.options.maxBatch && this.lessons.size > 0) {
      for (const [lessonId, pending] of this.lessons) {
        if (batch.length >= this.options.maxBatch) break;
        batch.push(pending.shift()!);
        if (pending.length === 0) this.lessons.delete(lessonId);
      }
    }
    return batch;
  }

  private async flush(writer: string): Promise<void> {
    const batch = this.take(writer);
    if (batch.length === 0) {
      this.writing.delete(writer);
      return;
    }
    this.onBatch(batch.length);
    try {
      const results = await this.store.createElements(batch.map((p) => p.request));
      batch.forEach((p, i) => {
        const result = results[i];
        if (result) p.resolve(result);
        else p.reject(new Error('create missing from its batch result'));
      });
    } catch (error) {
      // One bad request must not fail the others: alone, each gets its own outcome (if the
      // database is away, each fails fast on its own too).
      if (batch.length === 1) batch[0]!.reject(error);
      else {
        for (const p of batch) {
          await this.store.createElements([p.request]).then(
            ([result]) => (result ? p.resolve(result) : p.reject(new Error('create missing from its batch result'))),
            (alone: unknown) => p.reject(alone),
          );
        }
      }
    }
    // The next batch: whatever arrived meanwhile, at once.
    await this.flush(writer);
  }
}

/** The one writer's name when every lesson shares it (not a lesson id: those are uuids). */
const ALL_LESSONS = '*';

/** The room's create queue is full: the database is far behind, the sender must slow down. */
export class CreateQueueFull extends Error {
  constructor() {
    super('create queue is full');
  }
}
