import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';

/**
 * Lanes in front of the database's connections (I14: renewals have a lane nothing else can block).
 *
 * A store operation runs in a lane: `priority` for lease renewals and the handshake's statements
 * (PRIORITY_OPERATIONS), `normal` for everything else. A connection is handed out by a gate that
 * serves waiting priority work first and keeps `reserved` connections that normal work may never
 * hold, so:
 *   - on PGlite (one connection, reserved 0) a renewal batch or a handshake waits for the one
 *     statement or transaction running, never behind the queue of strokes, syncs and snapshots;
 *   - on Postgres (a pool) edits and snapshots can occupy every connection but the reserved ones,
 *     which only renewals and handshakes use when the rest are busy.
 * Within the priority lane the order is first come, first served. Within the normal lane it is
 * round-robin by party (`withWork`: a member's reads name the member): one waiter of each party
 * in turn, so one member's queued reads cannot all sit ahead of another member's one; work that
 * names no party (writes, the sweeper) is one party of its own. Work may also name a deadline:
 * still waiting for a connection when it passes, it is refused with `DeadlineExceeded` and never
 * runs (I14: work nobody waits for any more is dropped, not queued).
 */
export const Lane = { PRIORITY: 'priority', NORMAL: 'normal' } as const;
export type Lane = (typeof Lane)[keyof typeof Lane];

/** The store operations that run in the priority lane: what keeps a member present and connected. */
export const PRIORITY_OPERATIONS: ReadonlySet<string> = new Set(['renewLeases', 'authenticateSession', 'openLease']);

const currentLane = new AsyncLocalStorage<Lane>();

/** Runs `fn` with the connections it asks for taken in `lane`. */
export function inLane<T>(lane: Lane, fn: () => T): T {
  return currentLane.run(lane, fn);
}

/** Who a piece of work is for, and until when anyone waits for it. */
export interface Work {
  /** The normal lane takes parties in turn (e.g. `room/user` for a member's reads). */
  party?: string;
  /** performance.now() after which the work is refused instead of started. */
  deadline?: number;
}

const currentWork = new AsyncLocalStorage<Work>();

/** Runs `fn` with the connections it asks for taken for `work` (its party and deadline). */
export function withWork<T>(work: Work, fn: () => T): T {
  return currentWork.run(work, fn);
}

/** Work refused because its deadline passed before it got a connection: nothing of it ran. */
export class DeadlineExceeded extends Error {
  constructor(lane: Lane) {
    super(`deadline passed while waiting for a database connection (${lane} lane)`);
    this.name = 'DeadlineExceeded';
  }
}

/** Whether `error` is, or was caused by (the query builder wraps driver errors), a `DeadlineExceeded`. */
export function isDeadlineExceeded(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof DeadlineExceeded) return true;
  }
  return false;
}

/** The party of work that names none. */
const NO_PARTY = '';

/** Connections a Postgres pool of `size` keeps for the priority lane. */
export function reservedFor(size: number): number {
  return size >= 4 ? 2 : size >= 2 ? 1 : 0;
}

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout | null;
  party: string;
}

/** Waiters of one lane: FIFO per party, parties taken in turn (round-robin). */
class FairQueue {
  private readonly parties = new Map<string, Waiter[]>();
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(waiter: Waiter): void {
    const queue = this.parties.get(waiter.party);
    if (queue) queue.push(waiter);
    else this.parties.set(waiter.party, [waiter]);
    this.count++;
  }

  /** The next party's first waiter; that party then goes to the back of the turn. */
  shift(): Waiter | undefined {
    const next = this.parties.entries().next();
    if (next.done) return undefined;
    const [party, queue] = next.value;
    const waiter = queue.shift()!;
    this.parties.delete(party);
    if (queue.length > 0) this.parties.set(party, queue);
    this.count--;
    return waiter;
  }

  remove(waiter: Waiter): boolean {
    const queue = this.parties.get(waiter.party);
    const at = queue ? queue.indexOf(waiter) : -1;
    if (!queue || at < 0) return false;
    queue.splice(at, 1);
    if (queue.length === 0) this.parties.delete(waiter.party);
    this.count--;
    return true;
  }
}

/** Hands out at most `capacity` slots: priority waiters first; normal work never past `capacity - reserved`. */
export class LaneGate {
  private inUse = 0;
  private readonly waiting: Record<Lane, FairQueue> = { priority: new FairQueue(), normal: new FairQueue() };
  /** Slots granted per lane, and the total time spent waiting for them (ms), for /metrics. */
  readonly stats: Record<Lane, { granted: number; waitedMs: number; pastDeadline: number }> = {
    priority: { granted: 0, waitedMs: 0, pastDeadline: 0 },
    normal: { granted: 0, waitedMs: 0, pastDeadline: 0 },
  };

  /** When a statement last came back without an error (performance.now()), or null. */
  private lastAnsweredAt: number | null = null;

  constructor(
    readonly capacity: number,
    readonly reserved: number,
    /** A waiter still waiting after this long is refused (0: waits as long as it takes). */
    private readonly waitTimeoutMs = 0,
  ) {
    if (reserved >= capacity && capacity > 0 && reserved > 0) throw new Error('a lane gate must leave normal work a slot');
  }

  /** Notes a connection handed back after its work succeeded: the database is answering. */
  answered(): void {
    this.lastAnsweredAt = performance.now();
  }

  /**
   * Whether the database answered within the last `ms`: a request missing its deadline then is
   * the database behind (load), not the database away (an outage).
   */
  answeredWithin(ms: number): boolean {
    return this.lastAnsweredAt !== null && performance.now() - this.lastAnsweredAt <= ms;
  }

  /** Waiting callers, by lane. */
  queued(): Record<Lane, number> {
    return { priority: this.waiting.priority.length, normal: this.waiting.normal.length };
  }

  /**
   * Resolves with the function that frees the slot (call it exactly once). `work` names the
   * waiter's party (normal lane: parties in turn) and deadline (refused once past it).
   */
  acquire(lane: Lane, work: Work = {}): Promise<() => void> {
    const started = performance.now();
    return new Promise((resolve, reject) => {
      if (work.deadline !== undefined && started >= work.deadline) {
        this.stats[lane].pastDeadline++;
        reject(new DeadlineExceeded(lane));
        return;
      }
      const granted = () => {
        this.inUse++;
        this.stats[lane].granted++;
        this.stats[lane].waitedMs += performance.now() - started;
        let freed = false;
        resolve(() => {
          if (freed) return;
          freed = true;
          this.inUse--;
          this.pump();
        });
      };
      if (this.waiting.priority.length === 0 && (lane === Lane.PRIORITY || this.waiting.normal.length === 0) && this.fits(lane)) {
        granted();
        return;
      }
      // Priority work is served first come, first served: its party does not matter.
      const waiter: Waiter = { grant: granted, timer: null, party: lane === Lane.PRIORITY ? NO_PARTY : (work.party ?? NO_PARTY) };
      const untilDeadline = work.deadline === undefined ? Infinity : work.deadline - started;
      const waitMs = Math.min(this.waitTimeoutMs > 0 ? this.waitTimeoutMs : Infinity, untilDeadline);
      if (waitMs < Infinity) {
        waiter.timer = setTimeout(() => {
          if (!this.waiting[lane].remove(waiter)) return;
          if (waitMs === untilDeadline) {
            this.stats[lane].pastDeadline++;
            reject(new DeadlineExceeded(lane));
          } else {
            reject(new Error(`timeout exceeded when trying to connect (${lane} lane)`));
          }
        }, Math.max(0, waitMs));
        waiter.timer.unref();
      }
      this.waiting[lane].push(waiter);
    });
  }

  private fits(lane: Lane): boolean {
    return this.inUse < (lane === Lane.PRIORITY ? this.capacity : this.capacity - this.reserved);
  }

  private pump(): void {
    for (const lane of [Lane.PRIORITY, Lane.NORMAL] as const) {
      const queue = this.waiting[lane];
      while (queue.length > 0 && this.fits(lane)) {
        const waiter = queue.shift()!;
        if (waiter.timer) clearTimeout(waiter.timer);
        waiter.grant();
      }
    }
  }
}

type ConnectCallback = (error: Error | undefined, client?: pg.PoolClient, done?: (release?: unknown) => void) => void;

/**
 * A node-postgres pool whose clients are handed out through a LaneGate of the pool's size, so the
 * pool's own first-come queue never decides the order. Everything that takes a client goes through
 * `connect` (the pool's `query` and drizzle's transactions included).
 */
export class LanePool extends pg.Pool {
  readonly gate: LaneGate;

  constructor(config: pg.PoolConfig & { max: number }, reserved: number, waitTimeoutMs = 0) {
    super(config);
    this.gate = new LaneGate(config.max, reserved, waitTimeoutMs);
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
    const lane = currentLane.getStore() ?? Lane.NORMAL;
    const checkedOut = this.gate.acquire(lane, currentWork.getStore()).then(async (free) => {
      let client: pg.PoolClient;
      try {
        client = await super.connect();
      } catch (error) {
        free();
        throw error;
      }
      const release = client.release.bind(client);
      client.release = (error?: Error | boolean) => {
        if (!error) this.gate.answered();
        try {
          release(error);
        } finally {
          free();
        }
      };
      return client;
    });
    if (!callback) return checkedOut;
    checkedOut.then(
      (client) => callback(undefined, client, (release?: unknown) => client.release(release as Error | boolean | undefined)),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
    );
  }
}
