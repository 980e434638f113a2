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
 * Within a lane the order is first come, first served.
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

/** Connections a Postgres pool of `size` keeps for the priority lane. */
export function reservedFor(size: number): number {
  return size >= 4 ? 2 : size >= 2 ? 1 : 0;
}

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout | null;
}

/** Hands out at most `capacity` slots: priority waiters first; normal work never past `capacity - reserved`. */
export class LaneGate {
  private inUse = 0;
  private readonly waiting: Record<Lane, Waiter[]> = { priority: [], normal: [] };
  /** Slots granted per lane, and the total time spent waiting for them (ms), for /metrics. */
  readonly stats: Record<Lane, { granted: number; waitedMs: number }> = {
    priority: { granted: 0, waitedMs: 0 },
    normal: { granted: 0, waitedMs: 0 },
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

  /** Resolves with the function that frees the slot (call it exactly once). */
  acquire(lane: Lane): Promise<() => void> {
    const started = performance.now();
    return new Promise((resolve, reject) => {
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
      const waiter: Waiter = { grant: granted, timer: null };
      if (this.waitTimeoutMs > 0) {
        waiter.timer = setTimeout(() => {
          const queue = this.waiting[lane];
          const at = queue.indexOf(waiter);
          if (at >= 0) queue.splice(at, 1);
          reject(new Error(`timeout exceeded when trying to connect (${lane} lane)`));
        }, this.waitTimeoutMs);
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
    const checkedOut = this.gate.acquire(lane).then(async (free) => {
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
