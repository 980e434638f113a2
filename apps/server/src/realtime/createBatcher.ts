import type { CreateRequest, ElementResult, Store } from '@wb/db';

interface Pending {
  request: CreateRequest;
  resolve: (result: ElementResult) => void;
  reject: (error: unknown) => void;
}

interface LessonQueue {
  pending: Pending[];
  /** A batch of this lesson is being written, or about to be (scheduled for the end of this tick). */
  busy: boolean;
}

/**
 * Collects a lesson's `element.create`s and writes them in batches (issue 19): the creates that
 * arrive in the same tick, or while the lesson's previous batch is being written, go to the store
 * together (`createElements`: one transaction of 5 statements, each room's revision moved once).
 * A lesson's batch holds the creates on its class board and on its students' private boards
 * (issue 22: thirty boards each drawn on about once a second would otherwise cost a transaction a
 * stroke). A quiet lesson's stroke is written at the end of the tick it arrived in; a busy one's
 * strokes wait for the batch in flight and then share the next, so batches grow with the load and
 * the database does less work per stroke the more strokes there are.
 *
 * Bounded (I10): at most `maxBatch` creates a batch, at most `maxPending` waiting per lesson (past
 * that a create is refused at once rather than queued).
 */
export class CreateBatcher {
  private readonly lessons = new Map<string, LessonQueue>();

  constructor(
    private readonly store: Pick<Store, 'createElements'>,
    private readonly options: { maxBatch: number; maxPending: number },
    private readonly onBatch: (size: number) => void = () => {},
  ) {}

  /** Creates waiting (not yet being written) in a lesson's batches. */
  waiting(lessonId: string): number {
    return this.lessons.get(lessonId)?.pending.length ?? 0;
  }

  /**
   * Resolves with this create's decision once its batch is written; rejects if the store fails.
   * `lessonId` names the batch: the request's room, or for a private board its lesson's.
   */
  submit(request: CreateRequest, lessonId: string = request.actor.roomId): Promise<ElementResult> {
    let lesson = this.lessons.get(lessonId);
    if (!lesson) {
      lesson = { pending: [], busy: false };
      this.lessons.set(lessonId, lesson);
    }
    if (lesson.pending.length >= this.options.maxPending) return Promise.reject(new CreateQueueFull());
    return new Promise((resolve, reject) => {
      lesson.pending.push({ request, resolve, reject });
      if (!lesson.busy) {
        lesson.busy = true;
        setImmediate(() => void this.flush(lessonId));
      }
    });
  }

  private async flush(lessonId: string): Promise<void> {
    const lesson = this.lessons.get(lessonId);
    if (!lesson) return;
    const batch = lesson.pending.splice(0, this.options.maxBatch);
    if (batch.length === 0) {
      lesson.busy = false;
      this.lessons.delete(lessonId);
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
    await this.flush(lessonId);
  }
}

/** The room's create queue is full: the database is far behind, the sender must slow down. */
export class CreateQueueFull extends Error {
  constructor() {
    super('create queue is full');
  }
}
