import type { CreateRequest, ElementResult, Store } from '@wb/db';

interface Pending {
  request: CreateRequest;
  resolve: (result: ElementResult) => void;
  reject: (error: unknown) => void;
}

interface RoomQueue {
  pending: Pending[];
  /** A batch of this room is being written, or about to be (scheduled for the end of this tick). */
  busy: boolean;
}

/**
 * Collects a room's `element.create`s and writes them in batches (issue 19): the creates that
 * arrive in the same tick, or while the room's previous batch is being written, go to the store
 * together (`createElements`: one transaction of 5 statements, the room's revision moved once). A
 * quiet room's stroke is written at the end of the tick it arrived in; a busy room's strokes wait
 * for the batch in flight and then share the next, so batches grow with the load and the database
 * does less work per stroke the more strokes there are.
 *
 * Bounded (I10): at most `maxBatch` creates a batch, at most `maxPending` waiting per room (past
 * that a create is refused at once rather than queued).
 */
export class CreateBatcher {
  private readonly rooms = new Map<string, RoomQueue>();

  constructor(
    private readonly store: Pick<Store, 'createElements'>,
    private readonly options: { maxBatch: number; maxPending: number },
    private readonly onBatch: (size: number) => void = () => {},
  ) {}

  /** Creates waiting (not yet being written) in a room. */
  waiting(roomId: string): number {
    return this.rooms.get(roomId)?.pending.length ?? 0;
  }

  /** Resolves with this create's decision once its batch is written; rejects if the store fails. */
  submit(request: CreateRequest): Promise<ElementResult> {
    const roomId = request.actor.roomId;
    let room = this.rooms.get(roomId);
    if (!room) {
      room = { pending: [], busy: false };
      this.rooms.set(roomId, room);
    }
    if (room.pending.length >= this.options.maxPending) return Promise.reject(new CreateQueueFull());
    return new Promise((resolve, reject) => {
      room.pending.push({ request, resolve, reject });
      if (!room.busy) {
        room.busy = true;
        setImmediate(() => void this.flush(roomId));
      }
    });
  }

  private async flush(roomId: string): Promise<void> {
    const room = this.rooms.get(roomId);
    if (!room) return;
    const batch = room.pending.splice(0, this.options.maxBatch);
    if (batch.length === 0) {
      room.busy = false;
      this.rooms.delete(roomId);
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
    await this.flush(roomId);
  }
}

/** The room's create queue is full: the database is far behind, the sender must slow down. */
export class CreateQueueFull extends Error {
  constructor() {
    super('create queue is full');
  }
}
