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
 * Who writes: `writers` writers, each lesson always to the same one (by a hash of its id), each
 * writer taking its lessons' creates in turn, one batch at a time. On the embedded database (one
 * connection, every transaction in a row) one writer takes every lesson's creates, so a stroke
 * waits for at most the batch in flight, not for one batch of every other lesson before its own
 * (each a round trip to the engine's thread). On Postgres a few writers run side by side on the
 * pool's connections: a batch then holds the creates of several lessons, so the database runs
 * fewer, larger statements (measured at 12 rooms: about half the Postgres CPU per stroke of a
 * writer per lesson), while a batch that waits on one lesson's lock holds up only the lessons of
 * its writer. Without `writers`, each lesson has a writer of its own.
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
    private readonly options: { maxBatch: number; maxPending: number; writers?: number },
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
      const writer = this.writerOf(lessonId);
      if (!this.writing.has(writer)) {
        this.writing.add(writer);
        setImmediate(() => void this.flush(writer));
      }
    });
  }

  /** The writer a lesson's creates go to: the lesson itself, or one of `writers` shared ones. */
  writerOf(lessonId: string): string {
    const writers = this.options.writers;
    if (writers === undefined) return lessonId;
    if (writers <= 1) return SHARED_WRITER;
    // FNV-1a of the id: a lesson always goes to the same writer.
    let hash = 0x811c9dc5;
    for (let i = 0; i < lessonId.length; i++) hash = Math.imul(hash ^ lessonId.charCodeAt(i), 0x01000193);
    return `${SHARED_WRITER}${(hash >>> 0) % writers}`;
  }

  /** The next batch of a writer: its lesson's oldest creates, or one of each of its lessons in turn. */
  private take(writer: string): Pending[] {
    if (!writer.startsWith(SHARED_WRITER)) {
      const pending = this.lessons.get(writer);
      if (!pending) return [];
      const batch = pending.splice(0, this.options.maxBatch);
      if (pending.length === 0) this.lessons.delete(writer);
      return batch;
    }
    const mine = [...this.lessons.keys()].filter((lessonId) => this.writerOf(lessonId) === writer);
    const batch: Pending[] = [];
    while (batch.length < this.options.maxBatch && mine.length > 0) {
      for (let i = 0; i < mine.length && batch.length < this.options.maxBatch; ) {
        const lessonId = mine[i]!;
        const pending = this.lessons.get(lessonId)!;
        batch.push(pending.shift()!);
        if (pending.length === 0) {
          this.lessons.delete(lessonId);
          mine.splice(i, 1);
        } else i++;
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

/** Shared writers' names start with this (not a lesson id: those are uuids). */
const SHARED_WRITER = '*';

/** The room's create queue is full: the database is far behind, the sender must slow down. */
export class CreateQueueFull extends Error {
  constructor() {
    super('create queue is full');
  }
}
