import type { RoomEvent } from '@wb/protocol';
import type { LeaderLock } from './database.ts';
import { eventId } from './eventIds.ts';
import type { Store } from './store.ts';

/** Where a won expiry goes once its transaction has committed. */
export type Publish = (events: readonly RoomEvent[]) => void | Promise<void>;

/** The subset of pino's interface the store logs through: one structured line per decision. */
export interface DecisionLog {
  info(fields: Record<string, unknown>, message: string): void;
}

export interface SweepResult {
  found: number;
  expired: number;
  lost: number;
  locksExpired?: number;
}

/** Retries of an element request come within seconds; an hour of idempotency records is plenty. */
const APPLIED_REQUEST_MAX_AGE_MS = 3_600_000;

/**
 * Element versions kept per room (a lesson's page or a private board) for the teacher's history
 * and for replay (shareLinks.ts), which reads every version of a board for as long as the lesson
 * is kept (RETENTION_DAYS): a lively 45-minute lesson of 30 students makes about 2,000, so 50,000
 * keeps the whole of any real lesson (I10: still bounded; a board past it replays from its
 * 50,000th-newest change). Older ones go; the lesson's purge deletes them all.
 */
export const HISTORY_KEEP_PER_ROOM = 50_000;

/** Expired drag locks (holder alive but silent): compare-and-release on the exact generation. */
export async function sweepExpiredLocks(
  store: Store,
  publish: Publish,
  log: DecisionLog,
  options: { batch: number },
): Promise<number> {
  let won = 0;
  for (const lock of await store.findExpiredLocks(options.batch)) {
    const result = await store.expireLockIfGeneration(lock);
    log.info(
      { room: lock.roomId, element: lock.elementId, generation: lock.generation, decision: result.won ? 'expired' : 'lost_race' },
      'lock expiry decision',
    );
    if (!result.won) continue;
    won++;
    await publish(result.events);
  }
  return won;
}

/**
 * One sweep (I5): read the expired leases, then compare-and-delete each on its exact revision.
 * Only a won delete publishes. A crash between a won delete and its publish loses only the
 * notification: the event is in the room log, so clients get it by replay on their next resync.
 */
export async function sweepExpiredLeases(
  store: Store,
  publish: Publish,
  log: DecisionLog,
  options: { batch: number },
): Promise<SweepResult> {
  const expired = await store.findExpiredLeases(options.batch);
  let won = 0;
  for (const lease of expired) {
    const result = await store.deleteLeaseIfRevision(lease);
    log.info(
      {
        room: lease.roomId,
        session: lease.sessionId,
        event_id: eventId('presence.expired', lease.roomId, { sessionId: lease.sessionId, leaseRevision: lease.revision }),
        prior_revision: lease.revision,
        new_revision: result.won ? null : lease.revision,
        decision: result.won ? 'expired' : 'lost_race',
      },
      'lease expiry decision',
    );
    if (!result.won) continue;
    won++;
    await publish(result.events);
  }
  return { found: expired.length, expired: won, lost: expired.length - won };
}

export interface SweeperOptions {
  intervalMs: number;
  leaseTtlMs: number;
  lockTtlMs: number;
  batch: number;
  eventLogKeep: number;
  /** Prune the room log every this many passes. */
  pruneEvery: number;
}

/**
 * The sweeper loop. Every node may run one; an advisory lock picks one at a time (I9). Before its
 * first sweep, and after any pass that failed because the database was unreachable, it grants
 * in-flight leases a full term (I8): the server's absence is not the clients' fault.
 * `lastPassAt` moves only when a pass walked the real path (the database answered); `lastTickAt`
 * moves when a pass ended either way, and `passStartedAt` names the pass in flight. Liveness
 * reads the latter two (the loop ticks whatever the database says); readiness asks the database.
 */
export class Sweeper {
  lastPassAt: number | null = null;
  /** When the last pass ended, whether or not the database answered. */
  lastTickAt: number | null = null;
  /** When the pass in flight started (null between passes). */
  passStartedAt: number | null = null;
  leader = false;
  private timer: NodeJS.Timeout | null = null;
  private needsGrace = true;
  private passes = 0;
  private running: Promise<void> | null = null;

  constructor(
    private readonly store: Store,
    private readonly lock: LeaderLock,
    private readonly publish: Publish,
    private readonly log: DecisionLog & { warn(fields: Record<string, unknown>, message: string): void },
    private readonly options: SweeperOptions,
    private readonly onPass: (result: SweepResult) => void = () => {},
  ) {}

  start(): void {
    if (this.timer) return;
    // Fixed rate, not fixed delay: a pass starts one interval after the previous one started, so
    // a lease is found at most one interval after it expired (term + sweep), however long the pass.
    const tick = () => {
      const startedAt = performance.now();
      this.running = this.pass().finally(() => {
        this.running = null;
        const wait = Math.max(0, this.options.intervalMs - (performance.now() - startedAt));
        if (this.timer) this.timer = setTimeout(tick, wait);
      });
    };
    this.timer = setTimeout(tick, 0);
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    await this.lock.release();
  }

  /**
   * Test hook (I9): one lease sweep as a leader would run it, without taking the leader lock, as if
   * the lock had been lost. Correctness must not depend on the lock: each delete is conditional.
   */
  async sweepWithoutLeaderLock(): Promise<SweepResult> {
    return sweepExpiredLeases(this.store, this.publish, this.log, { batch: this.options.batch });
  }

  /** One pass; exposed for tests that decide when time moves. */
  async pass(): Promise<void> {
    this.passStartedAt = Date.now();
    try {
      this.leader = await this.lock.tryAcquire();
      if (this.leader) {
        if (this.needsGrace) {
          const graced = await this.store.graceLeases(this.options.leaseTtlMs);
          const gracedLocks = await this.store.graceLocks(this.options.lockTtlMs);
          // A crash may have emptied the UNLOGGED lease table: give back the leases attendance
          // says were held, so a client that never returns is still expired (no ghost).
          const restored = await this.store.restoreLostLeases(this.options.leaseTtlMs);
          this.log.info(
            { graced, graced_locks: gracedLocks, restored },
            'restart grace: in-flight leases and locks extended to a full term, lost leases restored',
          );
          this.needsGrace = false;
        }
        const result = await sweepExpiredLeases(this.store, this.publish, this.log, { batch: this.options.batch });
        result.locksExpired = await sweepExpiredLocks(this.store, this.publish, this.log, { batch: this.options.batch });
        this.onPass(result);
        if (++this.passes % this.options.pruneEvery === 0) {
          await this.store.pruneRoomLog(this.options.eventLogKeep);
          await this.store.pruneAppliedRequests(APPLIED_REQUEST_MAX_AGE_MS);
          await this.store.pruneElementVersions(HISTORY_KEEP_PER_ROOM);
        }
      } else {
        await this.store.database.ping();
        // A follower that becomes leader later must grace first: the old leader may have died.
        this.needsGrace = true;
      }
      this.lastPassAt = Date.now();
    } catch (error) {
      this.needsGrace = true;
      this.log.warn({ err: String(error) }, 'sweeper pass failed; leases will be graced on recovery');
    } finally {
      this.passStartedAt = null;
      this.lastTickAt = Date.now();
    }
  }
}
