/**
 * Cursor fan-out capacity: how many 31-user rooms moving their cursors at 30 Hz one server
 * process holds while p99 < 100 ms, >= 90% of the intended packets were sent and >= 99% of
 * updates reached every other member of the room. Searched upward, product and bare relay
 * interleaved point by point so both see the same machine (load from other work drifts).
 */
import type { CursorLoadResult } from './generatorMessages.ts';
import type { GeneratorHandle } from './generatorHandle.ts';
import { coresUsed, loadAverage } from './procStats.ts';
import type { ServerUnderTest, WindowEdge } from './serverUnderTest.ts';

export const PASS = { p99Ms: 100, sentRatio: 0.9, deliveryRatio: 0.99 } as const;

export interface Timing {
  warmupMs: number;
  windowMs: number;
  drainMs: number;
  repeats: number;
}

export interface PointResult {
  target: 'product' | 'bare';
  rooms: number;
  users: number;
  repeat: number;
  movers: 'all' | 'one';
  pass: boolean;
  failedBecause: string[];
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  sentRatio: number;
  /** Received / expected (update, receiver) pairs: every single packet. */
  exactDelivery: number;
  /** Received, or replaced by a newer update from the same sender within 100 ms (the pass rule). */
  delivery: number;
  serverCores: number;
  serverRssMb: number;
  serverEventLoopP99Ms: number;
  /** Share of the window the product server's main thread spent in garbage collection (bare: NaN). */
  serverGcShare: number;
  /**
   * Cursor batches the product sent per room per second in the window: the tick as it really
   * ran (1000 / this is the mean interval in ms). NaN for the bare relay, which does not batch.
   */
  batchesPerRoomPerSec: number;
  /** Server CPU microseconds per delivered cursor update (one entry at one receiver). */
  serverCpuUsPerDelivered: number;
  generatorCores: number;
  generatorEventLoopP99Ms: number;
  /** A generator near one full core cannot keep up: the point then measures the generator. */
  generatorSaturated: boolean;
  connectMs: number;
  loadAverage1m: number;
  raw: CursorLoadResult;
}

export async function measurePoint(
  generator: GeneratorHandle,
  server: ServerUnderTest,
  rooms: number,
  timing: Timing,
  repeat: number,
  movers: 'all' | 'one' = 'all',
): Promise<PointResult> {
  await generator.call('setup', { rooms });
  const connected = await generator.call('connect', { rooms });
  const samples: {
    start?: ReturnType<ServerUnderTest['sample']>;
    end?: ReturnType<ServerUnderTest['sample']>;
    startEdge?: Promise<WindowEdge>;
    endEdge?: Promise<WindowEdge>;
  } = {};
  const failedEdge: WindowEdge = { lagP99Ms: Number.NaN, gcSeconds: Number.NaN, cursorBatches: Number.NaN };
  const stopListening = generator.onMark((name) => {
    if (name === 'windowStart') {
      samples.start = server.sample();
      // Reading resets the server's event-loop monitor: the end read covers the window only.
      samples.startEdge = server.windowEdge().catch(() => failedEdge);
    } else if (name === 'windowEnd') {
      samples.end = server.sample();
      samples.endEdge = server.windowEdge().catch(() => failedEdge);
    }
  });
  let raw: CursorLoadResult;
  try {
    raw = await generator.call('cursorLoad', {
      rooms,
      hz: 30,
      warmupMs: timing.warmupMs,
      windowMs: timing.windowMs,
      drainMs: timing.drainMs,
      movers,
    });
  } finally {
    stopListening();
  }
  const startEdge = (await samples.startEdge) ?? failedEdge;
  const endEdge = (await samples.endEdge) ?? failedEdge;
  const lagMs = endEdge.lagP99Ms;
  const gcShare = endEdge.gcSeconds - startEdge.gcSeconds;
  const batches = endEdge.cursorBatches - startEdge.cursorBatches;
  await generator.call('disconnect', {});
  const { start, end } = samples;
  if (!start || !end) throw new Error('the window marks did not arrive');

  const delivered = raw.received + raw.supersededInTime;
  const sentRatio = raw.intended > 0 ? raw.sent / raw.intended : 0;
  const exactDelivery = raw.expected > 0 ? raw.received / raw.expected : 0;
  const delivery = raw.expected > 0 ? delivered / raw.expected : 0;
  const serverCpuSeconds = end.cpuSeconds - start.cpuSeconds;
  const failedBecause: string[] = [];
  if (connected.failed > 0) failedBecause.push(`${connected.failed} clients failed to connect (${connected.errors.join(', ')})`);
  if (!(raw.latency.p99 < PASS.p99Ms)) failedBecause.push(`p99 ${raw.latency.p99.toFixed(1)} ms`);
  if (sentRatio < PASS.sentRatio) failedBecause.push(`sent ${(sentRatio * 100).toFixed(1)}%`);
  if (delivery < PASS.deliveryRatio) failedBecause.push(`delivered ${(delivery * 100).toFixed(2)}%`);
  return {
    target: server.kind,
    rooms,
    users: rooms * 31,
    repeat,
    movers,
    pass: failedBecause.length === 0,
    failedBecause,
    p50Ms: raw.latency.p50,
    p95Ms: raw.latency.p95,
    p99Ms: raw.latency.p99,
    maxMs: raw.latency.max,
    sentRatio,
    exactDelivery,
    delivery,
    serverCores: coresUsed(start, end),
    serverRssMb: end.rssBytes / 2 ** 20,
    serverEventLoopP99Ms: lagMs,
    serverGcShare: gcShare / ((end.at - start.at) / 1000),
    batchesPerRoomPerSec: batches / rooms / ((end.at - start.at) / 1000),
    serverCpuUsPerDelivered: raw.received > 0 ? (serverCpuSeconds * 1e6) / raw.received : Number.NaN,
    generatorCores: raw.generator.cores,
    generatorEventLoopP99Ms: raw.generator.eventLoopP99Ms,
    generatorSaturated: raw.generator.cores > 0.9,
    connectMs: connected.ms,
    loadAverage1m: loadAverage()[0],
    raw,
  };
}

export interface CapacityResult {
  points: PointResult[];
  capacityRooms: { product: number; bare: number };
  ratio: number;
  /** Highest point each sweep reached and why it stopped. */
  stoppedAt: { product: string; bare: string };
}

/**
 * Upward search. A point passes when every repeat passes; each target stops at its first failing
 * point (the sweep is bounded by `points`).
 */
export async function capacitySweep(
  targets: { product: { generator: GeneratorHandle; server: ServerUnderTest }; bare: { generator: GeneratorHandle; server: ServerUnderTest } | null },
  points: number[],
  timing: Timing,
  log: (line: string) => void,
): Promise<CapacityResult> {
  const results: PointResult[] = [];
  const capacity = { product: 0, bare: 0 };
  const stoppedAt = { product: `passed every point up to ${points[points.length - 1]}`, bare: `passed every point up to ${points[points.length - 1]}` };
  const going = { product: true, bare: targets.bare !== null };
  if (!targets.bare) stoppedAt.bare = 'not measured (--product-only)';
  for (const rooms of points) {
    for (const kind of ['product', 'bare'] as const) {
      const target = targets[kind];
      if (!going[kind] || !target) continue;
      const { generator, server } = target;
      let allPass = true;
      for (let repeat = 1; repeat <= timing.repeats; repeat++) {
        const point = await measurePoint(generator, server, rooms, timing, repeat);
        results.push(point);
        log(formatPointLine(point));
        // Every repeat runs even after a failure: the spread between repeats is part of the figure.
        if (!point.pass) allPass = false;
      }
      if (allPass) capacity[kind] = rooms;
      else {
        going[kind] = false;
        stoppedAt[kind] = `first failing point: ${rooms} rooms`;
      }
    }
    if (!going.product && !going.bare) break;
  }
  return {
    points: results,
    capacityRooms: capacity,
    ratio: capacity.bare > 0 ? capacity.product / capacity.bare : Number.POSITIVE_INFINITY,
    stoppedAt,
  };
}

export function formatPointLine(p: PointResult): string {
  return (
    `${p.target.padEnd(7)} rooms=${String(p.rooms).padStart(2)} #${p.repeat} ${p.pass ? 'PASS' : 'FAIL'} ` +
    `p50=${p.p50Ms.toFixed(1)} p95=${p.p95Ms.toFixed(1)} p99=${p.p99Ms.toFixed(1)} ms ` +
    `sent=${(p.sentRatio * 100).toFixed(1)}% delivered=${(p.delivery * 100).toFixed(2)}% (exact ${(p.exactDelivery * 100).toFixed(2)}%) ` +
    `server=${p.serverCores.toFixed(2)} cores ${p.serverRssMb.toFixed(0)} MB lag99=${p.serverEventLoopP99Ms.toFixed(1)} ms ` +
    (Number.isFinite(p.batchesPerRoomPerSec) ? `${p.batchesPerRoomPerSec.toFixed(1)} batches/room/s ` : '') +
    `${p.serverCpuUsPerDelivered.toFixed(2)} us/update gen=${p.generatorCores.toFixed(2)} cores load=${p.loadAverage1m.toFixed(2)}` +
    (p.pass ? '' : ` [${p.failedBecause.join('; ')}]`)
  );
}
