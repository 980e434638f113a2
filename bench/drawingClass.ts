/**
 * The drawing class (issue 19): rooms of 1 teacher + 30 students, every one of them drawing pen
 * strokes as the web client sends them (drawingWorkload.ts, about 26 strokes/s per room) with
 * their cursors at 30 Hz beside, on the product server. Measures pointer-up to the other 30
 * members, client timeouts, `unavailable` answers, renewals lost, and the server's CPU (and, on
 * Postgres, its backends') and statements per stroke. Swept upward in rooms to the knee
 * (knee.ts), then one window at 1.5x the knee (the overload target).
 *
 * Each window uses rooms of its own, joined just before and signed out after: a window's rooms
 * start with an empty board whatever ran before, so a point measured alone (`--points=8`) and the
 * same point in a sweep start alike.
 */
import type { CursorVisibility } from '@wb/protocol';
import type { DrawingLoadResult } from './generatorMessages.ts';
import type { GeneratorHandle } from './generatorHandle.ts';
import { kneeOf, type Knee } from './knee.ts';
import type { OtherLoad } from './otherLoad.ts';
import { placement, type PlacementMode } from './placement.ts';
import { backendCpuSeconds, cpuSecondsBetween, type PostgresTarget } from './postgresBackends.ts';
import { coresUsed, loadAverage, type ProcSample } from './procStats.ts';
import type { ServerUnderTest, WindowEdge } from './serverUnderTest.ts';
import { STROKES_PER_MEMBER_PER_SEC } from './drawingWorkload.ts';
import { USERS_PER_ROOM } from './cursorAccounting.ts';

/** The drawing targets of issue 19: the pass rule of a window, and the rule under overload. */
export const DRAWING_PASS = { strokeP99Ms: 100 } as const;
export const OVERLOAD_PASS = { strokeP99Ms: 1_000 } as const;
/** The server's busy tick (CURSOR_TICK_MS default): past it, it sheds ephemeral work. */
export const BUSY_TICK_MS = 33;
/** Issue 42: an overloaded server recovers within 5 s of the load dropping; watched this long at most. */
export const RECOVERY_BOUND_MS = 10_000;

/** Ms until the server's tick is at most `ms` (polled every 100 ms), or NaN past `boundMs`. */
async function untilTickAtMost(server: ServerUnderTest, ms: number, boundMs: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < boundMs) {
    const tick = (await server.metrics().catch(() => new Map<string, number>())).get('wb_cursor_tick_ms');
    if (tick === undefined || tick <= ms) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Number.NaN;
}

/** The overload point: this many times the knee (rounded up). */
export const OVERLOAD_FACTOR = 1.5;

export interface DrawingTiming {
  warmupMs: number;
  windowMs: number;
  drainBoundMs: number;
  repeats: number;
}

export interface DrawingOptions {
  cursorHz: number;
  liveInk: boolean;
  /** Run the overload point after the sweep. */
  overload: boolean;
  /** Windows a point needs to pass (null: all). */
  windowsNeeded: number | null;
}

/** What a window's verdicts rest on (all counts over the window's strokes and renewals). */
export interface DrawingWindowFigures {
  strokeP99Ms: number;
  strokesDrawn: number;
  timeouts: number;
  unavailable: number;
  otherErrors: number;
  refused: number;
  missingAtEnd: number;
  renewalsLost: number;
  /** Why they were not accepted: error codes and decisions other than `accepted`, and `unanswered`. */
  renewalsLostBy: Record<string, number>;
  expiriesSeen: number;
  connectFailures: number;
}

/** Why a window fails the drawing pass rule (empty: it passes). */
export function drawingWindowFailures(w: DrawingWindowFigures): string[] {
  return judge(w, DRAWING_PASS.strokeP99Ms);
}

/**
 * Why a window fails the overload rule (issue 19: at 1.5x the knee or beside one core of other
 * load, edits slow down but nothing times out, nothing is `unavailable`, no renewal is lost, p99 <= 1 s).
 */
export function overloadWindowFailures(w: DrawingWindowFigures): string[] {
  return judge(w, OVERLOAD_PASS.strokeP99Ms);
}

function judge(w: DrawingWindowFigures, p99Ms: number): string[] {
  const failed: string[] = [];
  if (w.connectFailures > 0) failed.push(`${w.connectFailures} clients failed to connect`);
  if (w.strokesDrawn === 0) failed.push('no stroke drawn');
  if (!(w.strokeP99Ms <= p99Ms)) failed.push(`stroke p99 ${w.strokeP99Ms.toFixed(0)} ms`);
  if (w.timeouts > 0) failed.push(`${w.timeouts} client timeouts`);
  if (w.unavailable > 0) failed.push(`${w.unavailable} unavailable`);
  if (w.otherErrors > 0) failed.push(`${w.otherErrors} other error answers`);
  if (w.refused > 0) failed.push(`${w.refused} strokes refused`);
  if (w.missingAtEnd > 0) failed.push(`${w.missingAtEnd} deliveries missing at the end`);
  if (w.renewalsLost > 0) {
    const why = Object.entries(w.renewalsLostBy).map(([reason, count]) => `${reason} ${count}`).join(', ');
    failed.push(`${w.renewalsLost} renewals lost${why ? ` (${why})` : ''}`);
  }
  if (w.expiriesSeen > 0) failed.push(`${w.expiriesSeen} leases expired`);
  return failed;
}

/** The reasons renewals were not accepted, from the generator's counts. */
export function renewalsLostBy(r: DrawingLoadResult['renewals']): Record<string, number> {
  const why: Record<string, number> = { ...r.errors };
  for (const [decision, count] of Object.entries(r.byDecision)) if (decision !== 'accepted') why[decision] = (why[decision] ?? 0) + count;
  if (r.unanswered > 0) why.unanswered = r.unanswered;
  return why;
}

/**
 * Database statements per stroke from two readings of the statement counters (serverUnderTest.ts's
 * statementCounters), over the strokes the server acknowledged in the window: the creates'
 * statements (`db:create`, BEGIN and COMMIT included) where the product counts them by kind; from
 * an older product, every counter but the renewals' (they do not scale with strokes). NaN while
 * the product exposes no other statement counter.
 */
export function statementsPerStroke(start: Record<string, number>, end: Record<string, number>, strokesAcked: number): number {
  const names = 'db:create' in end ? ['db:create'] : Object.keys(end).filter((name) => name !== 'wb_lease_renewal_statements_total' && !name.startsWith('db:'));
  if (names.length === 0 || strokesAcked <= 0) return Number.NaN;
  const statements = names.reduce((total, name) => total + (end[name] ?? 0) - (start[name] ?? 0), 0);
  return statements / strokesAcked;
}

export interface DrawingWindow {
  target: 'product' | 'bare';
  mode: PlacementMode;
  database: string;
  rooms: number;
  users: number;
  repeat: number;
  /** 'sweep' or 'overload' (the point at 1.5x the knee). */
  phase: 'sweep' | 'overload';
  otherLoadProcesses: number;
  pass: boolean;
  failedBecause: string[];
  passOverloadRule: boolean;
  failedBecauseOverload: string[];
  strokesPerSec: number;
  /** What the stroke and pause lengths give on average for these rooms. */
  nominalStrokesPerSec: number;
  strokeP50Ms: number;
  strokeP95Ms: number;
  strokeP99Ms: number;
  strokeMaxMs: number;
  ackP50Ms: number;
  ackP99Ms: number;
  meanPayloadBytes: number;
  meanPoints: number;
  timeouts: number;
  unavailable: number;
  rateLimited: number;
  renewalsSent: number;
  renewalsLost: number;
  renewalP99Ms: number;
  serverCores: number;
  serverEventLoopP99Ms: number;
  /** Server process CPU per stroke acknowledged in the window (the cursors' share included). */
  serverCpuMsPerStroke: number;
  /** Cursor batches sent per room per second in the window (one a tick while anything moves): the ephemeral rate, lower when the server sheds. */
  batchesPerRoomPerSec: number;
  /** The cursor tick at the window's end (ms; `wb_cursor_tick_ms`): past CURSOR_TICK_MS the server is shedding. */
  tickAtEndMs: number;
  /** The server's write system calls per stroke acknowledged (socket writes: contention does not move it). */
  serverWritesPerStroke: number;
  /** Postgres backends' CPU per stroke (NaN on PGlite, whose CPU is in the server's). */
  postgresCpuMsPerStroke: number;
  postgresCores: number;
  statementsPerStroke: number;
  /** Statement counters' deltas per second of the window, by counter. */
  statementsPerSec: Record<string, number>;
  cursorP99Ms: number;
  cursorP99MergedCountedMs: number;
  cursorDelivery: number;
  liveInkP99Ms: number;
  otherLoadCores: number;
  generatorCores: number;
  generatorSaturated: boolean;
  connectMs: number;
  loadAverage1m: number;
  raw: DrawingLoadResult;
}

export interface DrawingResult {
  /** The product, or the bare relay of the same traffic (bareRelay.ts, issue 42). */
  target?: 'product' | 'bare';
  mode: PlacementMode;
  database: string;
  options: DrawingOptions;
  timing: DrawingTiming;
  otherLoadProcesses: number;
  windows: DrawingWindow[];
  knee: Knee;
  stoppedAt: string;
  /** The point at 1.5x the knee: its verdict, its ephemeral rate and tick, and how soon the tick came back. */
  overload: { rooms: number; pass: boolean; batchesPerRoomPerSec?: number; tickAtEndMs?: number; recoveredMs?: number } | null;
}

interface Targets {
  generator: GeneratorHandle;
  server: ServerUnderTest;
  /** Postgres backends to read, or null on PGlite. */
  postgres: PostgresTarget | null;
  database: string;
  otherLoad: OtherLoad | null;
}

/** A window's room shape other than the drawing class's (the lecture hall: one room, grown point by point). */
export interface WindowShape {
  /** This room (kept between windows: its members are not signed out), not fresh ones. */
  room?: number;
  /** Only the first `members` of each room take part; the first `drawers` of them draw. */
  members?: number;
  drawers?: number;
  visibility?: CursorVisibility;
}

/** Each generator's next window's first room: every window joins rooms of its own (see the file comment). */
const nextFirstRoom = new WeakMap<GeneratorHandle, number>();

export async function measureDrawingWindow(
  targets: Targets,
  rooms: number,
  timing: DrawingTiming,
  options: DrawingOptions,
  repeat: number,
  phase: DrawingWindow['phase'],
  shape: WindowShape = {},
): Promise<DrawingWindow> {
  const { generator, server, postgres, otherLoad } = targets;
  const firstRoom = shape.room ?? nextFirstRoom.get(generator) ?? 0;
  if (shape.room === undefined) nextFirstRoom.set(generator, firstRoom + rooms);
  await generator.call('setup', { rooms: firstRoom + rooms }, 900_000);
  const connected = await generator.call('connect', { rooms, firstRoom, ...(shape.members ? { members: shape.members } : {}) });
  const edges: {
    start?: ProcSample;
    end?: ProcSample;
    startEdge?: Promise<WindowEdge | null>;
    endEdge?: Promise<WindowEdge | null>;
    startPg?: Promise<Map<number, number> | null>;
    endPg?: Promise<Map<number, number> | null>;
    otherLoadCores?: number;
  } = {};
  const readPg = () => (postgres ? backendCpuSeconds(postgres).catch(() => null) : Promise.resolve(null));
  const stopListening = generator.onMark((name) => {
    if (name === 'windowStart') {
      edges.start = server.sample();
      edges.startEdge = server.windowEdge().catch(() => null);
      edges.startPg = readPg();
      otherLoad?.coresSinceLastRead();
    } else if (name === 'windowEnd') {
      edges.end = server.sample();
      edges.endEdge = server.windowEdge().catch(() => null);
      edges.endPg = readPg();
      edges.otherLoadCores = otherLoad?.coresSinceLastRead() ?? 0;
    }
  });
  let raw: DrawingLoadResult;
  try {
    raw = await generator.call(
      'drawingLoad',
      {
        firstRoom,
        rooms,
        warmupMs: timing.warmupMs,
        windowMs: timing.windowMs,
        drainBoundMs: timing.drainBoundMs,
        cursorHz: options.cursorHz,
        liveInk: options.liveInk,
        ...(shape.members ? { members: shape.members } : {}),
        ...(shape.drawers ? { drawers: shape.drawers } : {}),
        ...(shape.visibility ? { visibility: shape.visibility } : {}),
      },
      timing.warmupMs + timing.windowMs + timing.drainBoundMs + 120_000,
    );
  } finally {
    stopListening();
  }
  // Signed out, not left to expire: the next window must not share the sweeper with these leases.
  // (The lecture hall keeps its room's members for its next, larger point.)
  if (shape.room === undefined) await generator.call('signOut', { rooms, firstRoom }).catch(() => undefined);
  const { start, end } = edges;
  if (!start || !end) throw new Error('the window marks did not arrive');
  const startEdge = await edges.startEdge;
  const endEdge = await edges.endEdge;
  const startPg = await edges.startPg;
  const endPg = await edges.endPg;
  const windowS = (end.at - start.at) / 1000;
  const s = raw.strokes;
  const acked = s.acksInWindow;
  const pgSeconds = startPg && endPg ? cpuSecondsBetween(startPg, endPg) : Number.NaN;
  const statementsPerSec: Record<string, number> = {};
  if (startEdge && endEdge) for (const [name, value] of Object.entries(endEdge.statements)) statementsPerSec[name] = (value - (startEdge.statements[name] ?? 0)) / windowS;
  const errorTotal = Object.values(s.errors).reduce((a, b) => a + b, 0);
  const unavailable = s.errors.unavailable ?? 0;
  const figures: DrawingWindowFigures = {
    strokeP99Ms: raw.strokeLatency.p99,
    strokesDrawn: s.drawn,
    timeouts: s.timeouts,
    unavailable,
    otherErrors: errorTotal - unavailable,
    refused: Object.values(s.refused).reduce((a, b) => a + b, 0),
    missingAtEnd: s.missingAtEnd,
    renewalsLost: raw.renewals.lost,
    renewalsLostBy: renewalsLostBy(raw.renewals),
    expiriesSeen: raw.expiriesSeen,
    connectFailures: connected.failed,
  };
  const failedBecause = drawingWindowFailures(figures);
  const failedBecauseOverload = overloadWindowFailures(figures);
  const cursors = raw.cursors;
  return {
    target: server.kind,
    mode: placement.mode,
    database: targets.database,
    rooms,
    users: rooms * (shape.members ?? USERS_PER_ROOM),
    repeat,
    phase,
    otherLoadProcesses: otherLoad?.count ?? 0,
    pass: failedBecause.length === 0,
    failedBecause,
    passOverloadRule: failedBecauseOverload.length === 0,
    failedBecauseOverload,
    strokesPerSec: s.drawn / (raw.windowMs / 1000),
    nominalStrokesPerSec: rooms * (shape.drawers ?? shape.members ?? USERS_PER_ROOM) * STROKES_PER_MEMBER_PER_SEC,
    strokeP50Ms: raw.strokeLatency.p50,
    strokeP95Ms: raw.strokeLatency.p95,
    strokeP99Ms: raw.strokeLatency.p99,
    strokeMaxMs: raw.strokeLatency.max,
    ackP50Ms: raw.ackLatency.p50,
    ackP99Ms: raw.ackLatency.p99,
    meanPayloadBytes: s.drawn > 0 ? s.payloadBytes / s.drawn : Number.NaN,
    meanPoints: s.drawn > 0 ? s.points / s.drawn : Number.NaN,
    timeouts: s.timeouts,
    unavailable,
    rateLimited: s.errors.rate_limited ?? 0,
    renewalsSent: raw.renewals.sent,
    renewalsLost: raw.renewals.lost,
    renewalP99Ms: raw.renewals.latency.p99,
    serverCores: coresUsed(start, end),
    serverEventLoopP99Ms: endEdge?.lagP99Ms ?? Number.NaN,
    serverCpuMsPerStroke: acked > 0 ? ((end.cpuSeconds - start.cpuSeconds) * 1000) / acked : Number.NaN,
    batchesPerRoomPerSec: startEdge && endEdge ? (endEdge.cursorBatches - startEdge.cursorBatches) / windowS / rooms : Number.NaN,
    tickAtEndMs: endEdge?.tickMs ?? Number.NaN,
    serverWritesPerStroke: acked > 0 ? (end.writeCalls - start.writeCalls) / acked : Number.NaN,
    postgresCpuMsPerStroke: acked > 0 ? (pgSeconds * 1000) / acked : Number.NaN,
    postgresCores: pgSeconds / windowS,
    statementsPerStroke: startEdge && endEdge ? statementsPerStroke(startEdge.statements, endEdge.statements, acked) : Number.NaN,
    statementsPerSec,
    cursorP99Ms: cursors?.latency.p99 ?? Number.NaN,
    cursorP99MergedCountedMs: cursors?.latencyMergedCounted.p99 ?? Number.NaN,
    cursorDelivery: cursors && cursors.expected > 0 ? (cursors.received + cursors.supersededInTime) / cursors.expected : Number.NaN,
    liveInkP99Ms: raw.liveInkLatency.p99,
    otherLoadCores: edges.otherLoadCores ?? 0,
    generatorCores: raw.generator.cores,
    generatorSaturated: raw.generator.cores > 0.9,
    connectMs: connected.ms,
    loadAverage1m: loadAverage()[0],
    raw,
  };
}

/**
 * Upward sweep to the knee: every repeat of a point runs, the sweep stops after the first point
 * that fails (knee.ts), then one window at 1.5x the knee judged by the overload rule.
 */
export async function drawingSweep(
  targets: Targets,
  points: number[],
  timing: DrawingTiming,
  options: DrawingOptions,
  log: (line: string) => void,
): Promise<DrawingResult> {
  const server = targets.server;
  const windows: DrawingWindow[] = [];
  const need = options.windowsNeeded ?? Number.POSITIVE_INFINITY;
  let stoppedAt = `passed every point up to ${points[points.length - 1]}`;
  for (const rooms of points) {
    const atPoint: DrawingWindow[] = [];
    for (let repeat = 1; repeat <= timing.repeats; repeat++) {
      const window = await measureDrawingWindow(targets, rooms, timing, options, repeat, 'sweep');
      windows.push(window);
      atPoint.push(window);
      log(formatDrawingLine(window));
    }
    if (kneeOf(atPoint.map((w) => ({ rooms, pass: w.pass })), need).firstFailing !== null) {
      stoppedAt = `first failing point: ${rooms} rooms`;
      break;
    }
  }
  const knee = kneeOf(windows.map((w) => ({ rooms: w.rooms, pass: w.pass })), need);
  let overload: DrawingResult['overload'] = null;
  if (options.overload && knee.rooms > 0) {
    const rooms = Math.ceil(knee.rooms * OVERLOAD_FACTOR);
    log(`drawing overload point: ${rooms} rooms (${OVERLOAD_FACTOR}x the knee of ${knee.rooms})`);
    const window = await measureDrawingWindow(targets, rooms, { ...timing, repeats: 1 }, options, 1, 'overload');
    windows.push(window);
    log(formatDrawingLine(window));
    // Graceful overload (issue 42): how long after the load left the server is back to its busy tick.
    const recoveredMs = await untilTickAtMost(targets.server, BUSY_TICK_MS, RECOVERY_BOUND_MS);
    overload = { rooms, pass: window.passOverloadRule, batchesPerRoomPerSec: window.batchesPerRoomPerSec, tickAtEndMs: window.tickAtEndMs, recoveredMs };
    log(`drawing overload: ${n(window.batchesPerRoomPerSec, 1)} batches per room per second, tick ${n(window.tickAtEndMs, 0)} ms at the end; back to ${BUSY_TICK_MS} ms ${Number.isFinite(recoveredMs) ? `${n(recoveredMs, 0)} ms after the load left` : `not within ${RECOVERY_BOUND_MS} ms`}`);
  }
  return {
    target: server.kind,
    mode: placement.mode,
    database: targets.database,
    options,
    timing,
    otherLoadProcesses: targets.otherLoad?.count ?? 0,
    windows,
    knee,
    stoppedAt,
    overload,
  };
}

const n = (v: number, digits = 0) => (Number.isFinite(v) ? v.toFixed(digits) : 'n/a');

export function formatDrawingLine(w: DrawingWindow): string {
  const verdict = w.phase === 'overload' ? `overload rule ${w.passOverloadRule ? 'PASS' : 'FAIL'}` : `${w.pass ? 'PASS' : 'FAIL'}${w.passOverloadRule ? '' : ' (overload rule fails too)'}`;
  const failures = w.phase === 'overload' ? w.failedBecauseOverload : w.failedBecause;
  return (
    `drawing ${w.target === 'bare' ? 'BARE RELAY ' : ''}${w.mode === 'pinned' ? 'pinned ' : ''}rooms=${String(w.rooms).padStart(2)} #${w.repeat} ${verdict} ` +
    `strokes/s=${n(w.strokesPerSec, 1)} (nominal ${n(w.nominalStrokesPerSec, 0)}) stroke p50=${n(w.strokeP50Ms, 1)} p95=${n(w.strokeP95Ms, 1)} p99=${n(w.strokeP99Ms, 1)} max=${n(w.strokeMaxMs)} ms ` +
    `ack p99=${n(w.ackP99Ms, 1)} timeouts=${w.timeouts} unavailable=${w.unavailable} renewals lost=${w.renewalsLost}/${w.renewalsSent} ` +
    `server=${n(w.serverCores, 2)} cores ${n(w.serverCpuMsPerStroke, 2)} ms/stroke ${n(w.serverWritesPerStroke, 0)} writes/stroke` +
    (Number.isFinite(w.postgresCpuMsPerStroke) ? ` pg=${n(w.postgresCpuMsPerStroke, 2)} ms/stroke` : '') +
    (Number.isFinite(w.statementsPerStroke) ? ` ${n(w.statementsPerStroke, 2)} statements/stroke` : '') +
    ` cursor p99=${n(w.cursorP99Ms, 1)} (merged ${n(w.cursorP99MergedCountedMs, 1)}) batches/room/s=${n(w.batchesPerRoomPerSec, 1)} tick=${n(w.tickAtEndMs, 0)} ` +
    `gen=${n(w.generatorCores, 2)} cores` +
    (w.otherLoadProcesses > 0 ? ` other=${n(w.otherLoadCores, 2)} cores` : '') +
    ` load=${n(w.loadAverage1m, 2)}` +
    (failures.length ? ` [${failures.join('; ')}]` : '')
  );
}

/** One point of the A/B: the baseline build's window and the candidate's, run back to back on one machine. */
export interface DrawingABPoint {
  rooms: number;
  repeat: number;
  baseline: DrawingWindow;
  candidate: DrawingWindow;
  /** Candidate's server CPU per stroke over the baseline's (issue 42's goal: <= 0.5). */
  cpuPerStrokeRatio: number;
}

export interface DrawingABResult {
  mode: PlacementMode;
  /** The checkouts and commits compared. */
  baseline: { root: string; commit: string };
  candidate: { root: string; commit: string };
  options: DrawingOptions;
  timing: DrawingTiming;
  points: DrawingABPoint[];
  /** Per point: the mean of its repeats' ratios. */
  meanRatioByRooms: Record<string, number>;
}

/**
 * The A/B of issue 42: the same drawing windows on two builds of the product, each on its own
 * server and generator, alternating per window (the baseline first on odd repeats, the candidate
 * first on even ones) so a drift of the machine's load falls on both. No knee: every point runs.
 */
export async function drawingAB(
  baseline: Targets,
  candidate: Targets,
  points: number[],
  timing: DrawingTiming,
  options: DrawingOptions,
  log: (line: string) => void,
): Promise<DrawingABPoint[]> {
  const out: DrawingABPoint[] = [];
  for (const rooms of points) {
    for (let repeat = 1; repeat <= timing.repeats; repeat++) {
      const order = repeat % 2 === 1 ? (['baseline', 'candidate'] as const) : (['candidate', 'baseline'] as const);
      const windows: Partial<Record<'baseline' | 'candidate', DrawingWindow>> = {};
      for (const side of order) {
        const w = await measureDrawingWindow(side === 'baseline' ? baseline : candidate, rooms, timing, options, repeat, 'sweep');
        windows[side] = w;
        log(`A/B ${side.padEnd(9)} ${formatDrawingLine(w)}`);
      }
      const b = windows.baseline!;
      const c = windows.candidate!;
      const point = { rooms, repeat, baseline: b, candidate: c, cpuPerStrokeRatio: c.serverCpuMsPerStroke / b.serverCpuMsPerStroke };
      log(`A/B rooms=${rooms} #${repeat}: CPU per stroke ${n(c.serverCpuMsPerStroke, 2)} / ${n(b.serverCpuMsPerStroke, 2)} ms = ${n(point.cpuPerStrokeRatio, 2)}x; writes per stroke ${n(c.serverWritesPerStroke, 0)} / ${n(b.serverWritesPerStroke, 0)}; stroke p99 ${n(c.strokeP99Ms, 1)} / ${n(b.strokeP99Ms, 1)} ms; ink p99 ${n(c.liveInkP99Ms, 1)} / ${n(b.liveInkP99Ms, 1)} ms`);
      out.push(point);
    }
  }
  return out;
}

/** The mean CPU-per-stroke ratio of each point's repeats. */
export function meanRatios(points: readonly DrawingABPoint[]): Record<string, number> {
  const by = new Map<number, number[]>();
  for (const p of points) by.set(p.rooms, [...(by.get(p.rooms) ?? []), p.cpuPerStrokeRatio]);
  return Object.fromEntries([...by].map(([rooms, ratios]) => [String(rooms), ratios.reduce((a, b) => a + b, 0) / ratios.length]));
}
