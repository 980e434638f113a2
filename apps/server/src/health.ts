/**
 * Liveness and readiness, kept apart on purpose (docs/operations.md, "Probes"):
 *
 * - Liveness (`/healthz`) asks "is this process stuck?": its event loop answers timers on time and
 *   its sweeper loop keeps ticking. It never asks the database: a Postgres failover must not make
 *   an orchestrator restart every node at once (and send every student reconnecting together).
 * - Readiness (`/readyz`) asks "should the balancer send users here?": the database answers, the
 *   Redis adapter is connected (when configured), and the node is not draining for shutdown.
 */
import type { Database, Sweeper } from '@wb/db';

/** The event loop heartbeat's period; its lateness is the loop's lag. */
const BEAT_MS = 500;
/** A readiness ping that takes longer than this counts as a failure (a black-holed database). */
const READY_PING_TIMEOUT_MS = 2_000;

export interface LivenessReport {
  ok: boolean;
  /** The worst heartbeat lateness over the last window (ms). */
  eventLoopLagMs: number;
  /** Since the sweeper loop's last tick (a pass ended, whatever the database said); null before the first. */
  sweeperTickAgeMs: number | null;
  /** Since the sweeper's last pass that reached the database (diagnostics, not judged here). */
  sweeperLastPassAgeMs: number | null;
  /** How long the pass in flight has been waiting (on the database, typically); null when idle. */
  sweeperPassInFlightMs: number | null;
  sweeperLeader: boolean;
}

export interface ReadinessReport {
  ok: boolean;
  database: Database['kind'];
  databaseOk: boolean;
  /** null when no Redis adapter is configured. */
  adapterOk: boolean | null;
  draining: boolean;
}

export interface HealthOptions {
  sweepIntervalMs: number;
  /** Liveness fails when the event loop was this late (ms) within the last window. */
  maxEventLoopLagMs: number;
  /**
   * A pass may wait on an unreachable database for a while (driver timeouts, TCP keep-alive) and
   * the process is still alive; a pass in flight longer than this means the loop itself is stuck.
   */
  maxPassInFlightMs: number;
}

/** Event loop heartbeat plus the sweeper loop's ticks: the process's own liveness. */
export class ProcessHealth {
  private lastBeat = performance.now();
  /** Lag of recent beats: [at, lagMs], kept for one window. */
  private readonly lags: [number, number][] = [];
  private readonly timer: NodeJS.Timeout;
  private readonly windowMs: number;

  constructor(
    private readonly sweeper: Sweeper,
    private readonly options: HealthOptions,
  ) {
    this.windowMs = Math.max(10_000, options.sweepIntervalMs * 5);
    this.timer = setInterval(() => this.beat(), BEAT_MS);
    this.timer.unref();
  }

  private beat(): void {
    const now = performance.now();
    const lag = Math.max(0, now - this.lastBeat - BEAT_MS);
    this.lastBeat = now;
    this.lags.push([now, lag]);
    while (this.lags.length > 0 && now - this.lags[0]![0] > this.windowMs) this.lags.shift();
  }

  liveness(now = Date.now()): LivenessReport {
    // A heartbeat that has not run at all for a while is lag too (a loop blocked right now).
    const pending = Math.max(0, performance.now() - this.lastBeat - BEAT_MS);
    const eventLoopLagMs = Math.round(Math.max(pending, ...this.lags.map(([, lag]) => lag)));
    const sweeper = this.sweeper;
    const tickAge = sweeper.lastTickAt === null ? null : now - sweeper.lastTickAt;
    const inFlight = sweeper.passStartedAt === null ? null : now - sweeper.passStartedAt;
    const tickBound = this.options.sweepIntervalMs * 5 + 5_000;
    // The loop ticks when a pass ended recently, or one is waiting on the database (readiness's
    // concern) but not for absurdly long. Before its first tick the process is still starting
    // (the image's HEALTHCHECK has a start period for that).
    const sweeperTicking =
      (tickAge !== null && tickAge < tickBound) || (tickAge !== null && inFlight !== null && inFlight < this.options.maxPassInFlightMs);
    const ok = sweeperTicking && eventLoopLagMs < this.options.maxEventLoopLagMs;
    return {
      ok,
      eventLoopLagMs,
      sweeperTickAgeMs: tickAge,
      sweeperLastPassAgeMs: sweeper.lastPassAt === null ? null : now - sweeper.lastPassAt,
      sweeperPassInFlightMs: inFlight,
      sweeperLeader: sweeper.leader,
    };
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** Readiness: the database answers within READY_PING_TIMEOUT_MS, the adapter is up, not draining. */
export async function readiness(deps: {
  database: Database;
  adapterReady: (() => boolean) | null;
  draining: boolean;
}): Promise<ReadinessReport> {
  let timer: NodeJS.Timeout | undefined;
  const databaseOk = await Promise.race([
    deps.database.ping().then(
      () => true,
      () => false,
    ),
    new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), READY_PING_TIMEOUT_MS);
    }),
  ]);
  clearTimeout(timer);
  const adapterOk = deps.adapterReady ? deps.adapterReady() : null;
  return {
    ok: databaseOk && adapterOk !== false && !deps.draining,
    database: deps.database.kind,
    databaseOk,
    adapterOk,
    draining: deps.draining,
  };
}
