/**
 * The IPC contract between the benchmark's orchestrator (run.ts) and the load-generator process.
 * The generator runs in its own process so that its CPU is neither the server's nor hidden in it.
 */
import type { CursorVisibility } from '@wb/protocol';
import type { LatencySummary, SparseHistogram } from './latencyHistogram.ts';
import type { StrokeCounts, StrokeSummaryHistograms } from './strokeAccounting.ts';

export type TargetKind = 'product' | 'bare';

export interface GeneratorCommands {
  /** Joins (product) or names (bare) enough rooms of `usersPerRoom` clients. */
  setup: { params: { rooms: number }; result: { rooms: number; users: number; ms: number } };
  /** Connects every client of `rooms` rooms from `firstRoom` (default 0) and waits until each is live. */
  /** `members`: only each room's first `members` clients (the lecture hall grows one room). */
  connect: { params: { rooms: number; firstRoom?: number; withLastRevision?: boolean; members?: number }; result: ConnectResult };
  disconnect: { params: Record<string, never>; result: { closed: number } };
  cursorLoad: { params: CursorLoadParams; result: CursorLoadResult };
  /** The drawing class (drawingWorkload.ts) with the cursor load beside it. */
  drawingLoad: { params: DrawingLoadParams; result: DrawingLoadResult };
  ghost: { params: GhostParams; result: GhostResult };
  churn: { params: ChurnParams; result: ChurnResult };
  storm: { params: { rooms: number; timeoutMs: number }; result: StormResult };
  /** The district day (districtDay.ts): a lesson window on a balanced fleet; dropped clients come back on their own. */
  district: { params: DistrictParams; result: DistrictResult };
  /** Lock contention in one room of connected clients (lockWorkload.ts). */
  locks: { params: LockWorkloadParams; result: LockWorkloadResult };
  /** Signs every client of `rooms` rooms from `firstRoom` (default 0) out, so their leases end now instead of expiring later. */
  signOut: { params: { rooms: number; firstRoom?: number }; result: { signedOut: number; failed: number } };
  /** The generator's own CPU and event-loop delay since the last call. */
  selfStats: { params: Record<string, never>; result: SelfStats };
}

export type CommandName = keyof GeneratorCommands;

export interface CommandMessage<N extends CommandName = CommandName> {
  kind: 'command';
  id: number;
  name: N;
  params: GeneratorCommands[N]['params'];
}

export type GeneratorMessage =
  | { kind: 'ready' }
  | { kind: 'reply'; id: number; ok: true; result: unknown }
  | { kind: 'reply'; id: number; ok: false; error: string }
  /** A moment the orchestrator samples the server at (window start and end). */
  | { kind: 'mark'; name: string };

export interface ConnectResult {
  connected: number;
  failed: number;
  ms: number;
  errors: string[];
  snapshots: number;
  replays: number;
}

export interface CursorLoadParams {
  rooms: number;
  hz: number;
  warmupMs: number;
  windowMs: number;
  drainMs: number;
  /** 'all': every client moves (the capacity load); 'one': one mover per room (a quiet room). */
  movers: 'all' | 'one';
  /**
   * The rooms' cursor visibility for this load (default `everyone`): each room's teacher sets it
   * first where it differs. The bare relay knows only `everyone`.
   */
  visibility?: CursorVisibility;
}

export interface SelfStats {
  /** Cores used by the generator process (1.0 = one core busy). */
  cores: number;
  eventLoopP99Ms: number;
}

export interface CursorLoadResult {
  /** The rooms' cursor visibility the load ran under. */
  visibility: CursorVisibility;
  senders: number;
  /** Receivers owed one update, on average over the updates sent (30 under `everyone`). */
  receiversPerUpdate: number;
  intended: number;
  sent: number;
  /** volatile packets the client library dropped because the transport was not writable. */
  discardedByClient: number;
  /** (update, receiver) pairs that should have arrived. */
  expected: number;
  received: number;
  /** Not received, but a newer update from the same sender reached that receiver within 100 ms. */
  supersededInTime: number;
  supersededLate: number;
  duplicates: number;
  /** In-window entries that reached a receiver the visibility does not allow them (must be 0). */
  forbidden: number;
  /** Of `expected`: the pairs owed to the rooms' teachers, and of those delivered (received or superseded in time). */
  expectedAtTeacher: number;
  deliveredAtTeacher: number;
  /** Today's figure: packets that arrived themselves. */
  latency: LatencySummary;
  /**
   * The same receives with every superseded in-window packet counted as arriving with its
   * replacement (cursorAccounting.ts): the figure the pass rule reads.
   */
  latencyMergedCounted: LatencySummary;
  /**
   * The latency samples themselves, between a generator's threads only (merged, then dropped
   * before the result leaves the generator process).
   */
  histogram?: SparseHistogram;
  mergedHistogram?: SparseHistogram;
  /** Cursor messages (product: batches) received per second per client. */
  messagesPerClientPerSec: number;
  generator: SelfStats;
  notices: number;
  disconnects: number;
}

export interface GhostParams {
  rooms: number;
  closesPerRoom: number;
  rounds: number;
  hz: number;
  /** Give up on a lid close after this long (a bounded loop). */
  timeoutMs: number;
}

export interface GhostSample {
  /** From the client's last accepted renewal (its ack) to the first / last observer's removal. */
  firstMs: number;
  lastMs: number;
  observers: number;
}

export interface GhostResult {
  closes: number;
  observed: number;
  timedOut: number;
  samples: GhostSample[];
  /** presence.expired deliveries per (observer, expired lease): must be 1. */
  duplicateExpiries: number;
}

export interface ChurnParams {
  rooms: number;
  windowMs: number;
  warmupMs: number;
  /** Share of users that disconnect and reconnect per minute. */
  churnPerMinute: number;
  /** Clients whose lid closes during the window: their leases must expire exactly once each. */
  lidCloses: number;
}

export interface ChurnResult {
  users: number;
  reconnects: number;
  reconnectFailures: number;
  renewalAcks: Record<string, number>;
  renewalErrors: number;
  /** Leases that expired although their client kept answering (must be 0). */
  falseEvictions: number;
  lidCloses: number;
  /** Distinct presence.expired events seen for the lid-closed sessions. */
  expiredEventsForClosed: number;
  /** Deliveries of an already-seen expiry event id to the same observer. */
  duplicateDeliveries: number;
}

export interface StormResult {
  clients: number;
  live: number;
  failed: number;
  /** From the moment every socket dropped to the moment each one had welcome + sync again. */
  allLiveMs: number;
  p50Ms: number;
  p99Ms: number;
  snapshots: number;
  replays: number;
  errors: string[];
}

export interface LockWorkloadParams {
  /** The generator's room index whose clients take part (all of them, teacher included). */
  room: number;
  elements: number;
  windowMs: number;
  /** Students that hold a grant silently until it is taken over, then commit late (stale). */
  laggards: number;
  movesPerDrag: number;
  /** Bound on every acknowledged request; a lost ack is counted as `timeout`. */
  ackTimeoutMs: number;
  /** How long a laggard waits for someone else's newer grant before it gives up on that one. */
  takeoverTimeoutMs: number;
}

export interface LockWorkloadResult {
  users: number;
  elements: number;
  laggards: number;
  elapsedS: number;
  acquires: number;
  grants: number;
  grantsPerSec: number;
  /** Refused acquires by error code (`timeout` for a lost ack). */
  refusals: Record<string, number>;
  /** lock.acquire from emit to ack: all answers, grants only, refusals only. */
  acquireRtt: LatencySummary;
  grantRtt: LatencySummary;
  refusalRtt: LatencySummary;
  /** Honest pointer-ups (lock.release with the final shape), emit to ack. */
  releaseRtt: LatencySummary;
  movesSent: number;
  releasesApplied: number;
  releaseRefusals: Record<string, number>;
  /** The same (element, generation) acknowledged as a grant to two different sessions: must be 0. */
  doubleGrants: number;
  /** The same (element, generation) acknowledged twice to one session (fresh request ids: expect 0). */
  duplicateGrantAcks: number;
  watchers: number;
  grantEventsPerWatcher: { min: number; max: number };
  /** lock.granted in revision order whose generation did not exceed the element's previous one (summed over watchers): must be 0. */
  generationRegressions: number;
  /** The same in arrival order. */
  arrivalOrderInversions: number;
  /** (acknowledged grant, watcher) pairs with no lock.granted at that watcher. */
  missedGrantEvents: number;
  grantEventSessionMismatches: number;
  grantEventsWithoutAck: number;
  duplicateEventDeliveries: number;
  stale: {
    /** Laggard grants taken over by a newer generation (each then commits late). */
    takeovers: number;
    commitsSent: number;
    /** Refused with stale_generation, as they must be. */
    rejected: number;
    /** Applied: must be 0. */
    accepted: number;
    otherRefusals: Record<string, number>;
    movesSent: number;
    /** (stale move, receiver) pairs that came back in a cursor batch: must be 0. */
    movesRelayed: number;
    /** element.updated deliveries carrying a laggard's marker position: must be 0. */
    updatesSeen: number;
    /** Laggard grants nobody took over before the window ended (released without a shape). */
    abandoned: number;
    /** Outcomes of those shapeless releases by code (`ok` when the lock was still theirs). */
    abandonedReleases: Record<string, number>;
  };
  /** (drag entry, receiver) pairs of honest moves, and those older than the receiver's latest grant. */
  dragEntriesSeen: number;
  lateDragEntries: number;
  /** Commits whose ack was lost: the final-state check cannot be exact when this is not 0. */
  uncertainCommits: number;
  finalState: {
    checked: number;
    missing: number;
    /** Elements not where their last acknowledged commit put them. */
    positionMismatches: number;
    /** Elements whose version is not created version + acknowledged commits. */
    versionMismatches: number;
    /** Elements at a laggard's marker position: must be 0. */
    staleMarkerFound: number;
    stillLocked: number;
    details: string[];
  };
  generator?: SelfStats;
}

export interface DrawingLoadParams {
  /** The rooms drawing: `rooms` of them from `firstRoom` (fresh rooms per window, see drawingClass.ts). */
  firstRoom: number;
  rooms: number;
  warmupMs: number;
  windowMs: number;
  /** After the window the load goes on until every in-window stroke reached everyone, at most this long. */
  drainBoundMs: number;
  /** Cursor packets per second per member beside the strokes (0: no cursors). */
  cursorHz: number;
  /** Live ink on (refused while the protocol has no message for it). */
  liveInk: boolean;
  /** Only each room's first `members` clients take part (default: all): the lecture hall's points. */
  members?: number;
  /** Only the first `drawers` of them draw (default: all); the others move their cursors. */
  drawers?: number;
  /** The rooms' cursor visibility, set by their teachers first (default: as created, everyone's). */
  visibility?: CursorVisibility;
}

export interface RenewalCounts {
  /** lease.renew sent while the load ran. */
  sent: number;
  /** ...answered `accepted`, at any time before the end. */
  accepted: number;
  /** Sent and not accepted: refused, answered otherwise, or never answered (issue 19: 0 lost). */
  lost: number;
  /** Accepted, but answered after the web client's 5 s reply timeout. */
  late: number;
  byDecision: Record<string, number>;
  errors: Record<string, number>;
  unanswered: number;
  /** lease.renew send to answer. */
  latency: LatencySummary;
}

export interface DrawingLoadResult {
  users: number;
  windowMs: number;
  strokes: StrokeCounts;
  /** Pointer-up to each other member's element.created (missing pairs at the end time). */
  strokeLatency: LatencySummary;
  /** Pointer-up to the author's acknowledgement. */
  ackLatency: LatencySummary;
  /** Live-ink chunk send to arrival (empty while live ink is off). */
  liveInkLatency: LatencySummary;
  /** From the window's end until every in-window stroke settled (or the bound). */
  drainMs: number;
  renewals: RenewalCounts;
  /** presence.expired events the members saw (nobody left: each one is a false eviction). */
  expiriesSeen: number;
  /** The cursor load beside the strokes (null when cursorHz is 0). */
  cursors: {
    senders: number;
    intended: number;
    sent: number;
    expected: number;
    received: number;
    supersededInTime: number;
    latency: LatencySummary;
    latencyMergedCounted: LatencySummary;
  } | null;
  generator: SelfStats;
  notices: number;
  disconnects: number;
  /** Between a generator's threads only (merged, then dropped before leaving the process). */
  histograms?: StrokeSummaryHistograms & { cursor: SparseHistogram | null; cursorMerged: SparseHistogram | null; renewal: SparseHistogram };
}

export interface DistrictParams {
  rooms: number;
  warmupMs: number;
  windowMs: number;
  /** Clients whose lid closes at the window's start: each lease must expire exactly once, fleet-wide. */
  lidCloses: number;
  /** A dropped client waits a random time in [min, max) before reconnecting (the web client's jitter). */
  reconnectDelayMs: { min: number; max: number };
  /** After the window, reconnects still in flight get at most this long. */
  settleBoundMs: number;
}

export interface DistrictResult {
  users: number;
  /** First handshakes that timed out or failed before the window and were retried (a loaded machine). */
  connectRetries: number;
  /** Clients live (welcome and sync) at the window's end, lid-closed ones excepted. */
  liveAtEnd: number;
  /** Clients whose socket dropped without their asking (a node killed): they reconnect through the balancer. */
  dropped: number;
  /** ...of which live again, and how long it took from the drop to their sync. */
  movedLive: number;
  moveMs: { p50: number; p99: number; max: number };
  /** Connect attempts that failed on the way (retried until the bound). */
  moveAttemptsFailed: number;
  /** Sessions of the moved clients, for the attendance check. */
  movedSessions: string[];
  lidClosedSessions: string[];
  /** Expiries of sessions that kept answering, among clients that stayed on their node / that moved: both must be 0. */
  falseEvictionsStayed: number;
  falseEvictionsMoved: number;
  /** Distinct presence.expired events seen for the lid-closed sessions (must equal lidCloses). */
  expiredEventsForClosed: number;
  duplicateDeliveries: number;
  renewalAcks: Record<string, number>;
  renewalErrors: number;
}
