/**
 * Lock contention (issue 9 figure 5) and the lock acquire round trip under cursor load (issue 6):
 * one room of 31 users hammering 10 elements with drag locks (lockWorkload.ts), first alone on
 * the product server, then again while the capacity benchmark's cursor load (the product
 * generator, 31-user rooms at 30 Hz) runs on the same server.
 *
 * The lock room lives in a second generator process: the cursor load's 124 clients must not
 * share an event loop with the clients whose round trips are measured (in a classroom each
 * person has their own machine), and the generator's own CPU is reported per process.
 */
import { formatPointLine, measurePoint, type PointResult, type Timing } from './cursorCapacity.ts';
import type { LockWorkloadParams, LockWorkloadResult } from './generatorMessages.ts';
import { GeneratorHandle } from './generatorHandle.ts';
import { coresUsed, loadAverage } from './procStats.ts';
import type { ServerUnderTest } from './serverUnderTest.ts';

export interface LockContentionParams {
  windowMs: number;
  elements: number;
  laggards: number;
  /** Rooms of the concurrent cursor load (31 users each, 30 Hz). */
  cursorRooms: number;
}

export interface LockPhase {
  label: 'alone' | 'under cursor load';
  workload: LockWorkloadResult;
  /** Server cores and event-loop delay p99 over the phase (under load: over the cursor window). */
  serverCores: number;
  serverEventLoopP99Ms: number;
  /** Server-side refusals during the phase, by code (wb_refused_packets_total). */
  serverRefusals: Record<string, number>;
  pass: boolean;
  failedBecause: string[];
  loadAverage1m: number;
}

export interface LockContentionResult {
  params: LockContentionParams;
  alone: LockPhase;
  underLoad: LockPhase | null;
  /**
   * The same cursor load without lock traffic, measured just before (the baseline in the same
   * run: what the lock traffic costs the cursors), and the concurrent one, whose measured window
   * covers the whole lock run.
   */
  cursorBaseline: PointResult | null;
  cursorPoint: PointResult | null;
  errors: string[];
}

/** Offset of the lock generator's loopback source addresses (127.0.3.x): see loadGenerator.ts. */
const LOCK_GENERATOR_ADDRESS_OFFSET = '500';
/** Lock room's index in the lock generator. */
const LOCK_ROOM = 0;

export async function lockContention(
  product: ServerUnderTest,
  cursorGenerator: GeneratorHandle,
  params: LockContentionParams,
  log: (line: string) => void,
): Promise<LockContentionResult> {
  const generator = await GeneratorHandle.start(product, { BENCH_ROOM_ADDRESS_OFFSET: LOCK_GENERATOR_ADDRESS_OFFSET });
  const errors: string[] = [];
  try {
    await generator.call('setup', { rooms: 1 });
    const connected = await generator.call('connect', { rooms: 1 });
    if (connected.failed > 0) throw new Error(`locks: ${connected.failed} clients failed to connect (${connected.errors.join(', ')})`);
    const workloadParams: LockWorkloadParams = {
      room: LOCK_ROOM,
      elements: params.elements,
      windowMs: params.windowMs,
      laggards: params.laggards,
      movesPerDrag: 3,
      ackTimeoutMs: 15_000,
      // The laggard's grant is never confirmed, so it lapses after the 2 s first term; then the
      // next acquire takes it over. Beyond that the element was simply not wanted in time.
      takeoverTimeoutMs: 6_000,
    };
    const callTimeoutMs = params.windowMs + 120_000;

    // Alone: the server's CPU and event-loop delay over just the lock run.
    await product.eventLoopP99Ms().catch(() => Number.NaN); // resets the server's monitor
    const before = { sample: product.sample(), metrics: await product.metrics() };
    const aloneRaw = await generator.call('locks', workloadParams, callTimeoutMs);
    const after = { sample: product.sample(), lag: await product.eventLoopP99Ms().catch(() => Number.NaN), metrics: await product.metrics() };
    const alone = judge('alone', aloneRaw, coresUsed(before.sample, after.sample), after.lag, refusalDelta(before.metrics, after.metrics));
    log(formatPhaseLine(alone));

    // The cursor load alone, a moment before, on the same rooms: its baseline in this run.
    log(`cursor load without locks: ${params.cursorRooms} rooms x 31 users at 30 Hz`);
    let cursorBaseline: PointResult | null = null;
    try {
      cursorBaseline = await measurePoint(cursorGenerator, product, params.cursorRooms, { warmupMs: 1_000, windowMs: 4_000, drainMs: 500, repeats: 1 }, 1);
      log(formatPointLine(cursorBaseline));
    } catch (error) {
      errors.push(`cursor baseline: ${String(error)}`);
    }

    // Under cursor load: the lock run starts once the cursor load's measured window has begun,
    // and that window is longer than the lock run, so every acquire happens under full load.
    let underLoad: LockPhase | null = null;
    let cursorPoint: PointResult | null = null;
    let windowStarted = () => {};
    const started = new Promise<void>((resolve) => (windowStarted = resolve));
    const stopListening = cursorGenerator.onMark((name) => {
      if (name === 'windowStart') windowStarted();
    });
    const cursorTiming: Timing = { warmupMs: 2_000, windowMs: params.windowMs + 3_000, drainMs: 500, repeats: 1 };
    log(`locks under cursor load: ${params.cursorRooms} rooms x 31 users at 30 Hz`);
    const cursorRun = measurePoint(cursorGenerator, product, params.cursorRooms, cursorTiming, 1).then(
      (point) => ({ ok: true as const, point }),
      (error: unknown) => ({ ok: false as const, error: String(error) }),
    );
    try {
      const inWindow = await Promise.race([started.then(() => true), cursorRun.then(() => false)]);
      if (inWindow) {
        const before2 = await product.metrics();
        const raw = await generator.call('locks', workloadParams, callTimeoutMs);
        const after2 = await product.metrics();
        const cursor = await cursorRun;
        if (cursor.ok) {
          cursorPoint = cursor.point;
          log(formatPointLine(cursor.point));
        }
        else errors.push(`cursor load: ${cursor.error}`);
        underLoad = judge('under cursor load', raw, cursorPoint?.serverCores ?? Number.NaN, cursorPoint?.serverEventLoopP99Ms ?? Number.NaN, refusalDelta(before2, after2));
        log(formatPhaseLine(underLoad));
      } else {
        const cursor = await cursorRun;
        errors.push(`cursor load ended before its window started${cursor.ok ? '' : `: ${cursor.error}`}`);
      }
    } finally {
      stopListening();
      // Never leave the cursor load running into the next scenario, even when the lock run failed.
      await cursorRun;
    }
    // Signed out rather than dropped: 31 leases expiring in the middle of a later scenario
    // (presence churn counts server expiries) would be this benchmark's leftovers.
    await generator.call('signOut', { rooms: 1 }).catch((error: unknown) => errors.push(`sign-out: ${String(error)}`));
    return { params, alone, underLoad, cursorBaseline, cursorPoint, errors };
  } finally {
    await generator.stop();
  }
}

function refusalDelta(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of after) {
    const code = /^wb_refused_packets_total\{.*code="([^"]+)"/.exec(key)?.[1];
    if (!code) continue;
    const delta = value - (before.get(key) ?? 0);
    if (delta > 0) out[code] = delta;
  }
  return out;
}

/** The correctness figures must be exactly zero; the path under test must have been exercised. */
function judge(label: LockPhase['label'], w: LockWorkloadResult, serverCores: number, serverEventLoopP99Ms: number, serverRefusals: Record<string, number>): LockPhase {
  const failedBecause: string[] = [];
  const mustBeZero: [string, number][] = [
    ['double grants', w.doubleGrants],
    ['generation regressions at watchers', w.generationRegressions],
    ['grant events naming another session', w.grantEventSessionMismatches],
    ['stale commits applied', w.stale.accepted],
    ['stale moves relayed', w.stale.movesRelayed],
    ['stale positions in element.updated', w.stale.updatesSeen],
    ['elements at a stale position', w.finalState.staleMarkerFound],
    ['elements missing', w.finalState.missing],
  ];
  // Exact final positions and versions can only be demanded when every commit's outcome is known.
  if (w.uncertainCommits === 0) {
    mustBeZero.push(['elements not at their last commit', w.finalState.positionMismatches], ['elements at an unexpected version', w.finalState.versionMismatches]);
  }
  for (const [what, value] of mustBeZero) if (value !== 0) failedBecause.push(`${what}: ${value}`);
  if (w.grants === 0) failedBecause.push('no grants');
  if (w.stale.commitsSent === 0) failedBecause.push('no stale commit was exercised');
  if (w.stale.rejected !== w.stale.commitsSent) failedBecause.push(`stale commits refused with stale_generation: ${w.stale.rejected} of ${w.stale.commitsSent}`);
  return { label, workload: w, serverCores, serverEventLoopP99Ms, serverRefusals, pass: failedBecause.length === 0, failedBecause, loadAverage1m: loadAverage()[0] };
}

export function formatPhaseLine(p: LockPhase): string {
  const w = p.workload;
  const codes = Object.entries(w.refusals)
    .map(([code, n]) => `${code} ${n}`)
    .join(', ');
  return (
    `locks ${p.label}: ${p.pass ? 'PASS' : 'FAIL'} ${w.grants} grants in ${w.elapsedS.toFixed(1)} s (${w.grantsPerSec.toFixed(1)}/s), ` +
    `acquire p50=${w.acquireRtt.p50.toFixed(1)} p99=${w.acquireRtt.p99.toFixed(1)} ms (grants p50=${w.grantRtt.p50.toFixed(1)} p99=${w.grantRtt.p99.toFixed(1)}), ` +
    `refused: ${codes || 'none'}; double grants ${w.doubleGrants}, regressions ${w.generationRegressions}, ` +
    `stale commits ${w.stale.rejected}/${w.stale.commitsSent} rejected (${w.stale.accepted} applied), stale moves relayed ${w.stale.movesRelayed}, ` +
    `final: ${w.finalState.positionMismatches} misplaced, ${w.finalState.versionMismatches} bad versions, ${w.finalState.staleMarkerFound} stale; ` +
    `server ${p.serverCores.toFixed(2)} cores lag99=${p.serverEventLoopP99Ms.toFixed(0)} ms load=${p.loadAverage1m.toFixed(2)}` +
    (p.pass ? '' : ` [${p.failedBecause.join('; ')}]`)
  );
}
