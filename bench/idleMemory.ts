/**
 * Memory with ~1,000 idle connected users (they answer lease prompts, move nothing): the server's
 * RSS before and after they connect, and its growth over a soak, which must be flat.
 *
 * RSS is the whole process; each sample also reads the server's /metrics for where it is: the main
 * thread's JS heap in use and its external memory, and (PGlite) the database worker's WebAssembly
 * heap and JS heap. Whatever RSS holds beyond those is native memory (allocator, sockets, code).
 */
import type { GeneratorHandle } from './generatorHandle.ts';
import { coresUsed, loadAverage } from './procStats.ts';
import type { ServerUnderTest } from './serverUnderTest.ts';

export interface IdleMemoryResult {
  users: number;
  /** The server's RSS right after it started, before any scenario of this run. */
  freshRssMb: number;
  connectMs: number;
  failed: number;
  rssBeforeMb: number;
  rssConnectedMb: number;
  /** (RSS after connecting - RSS before) / users. */
  kbPerUser: number;
  soakS: number;
  rssSamplesMb: number[];
  /** Per sample, from /metrics (MB): where the memory is. */
  breakdown: MemoryBreakdown[];
  /** Last soak sample minus the first, MB; positive means growth. */
  growthMb: number;
  serverCoresIdle: number;
  pass: boolean;
  loadAverage1m: number;
}

export async function idleMemory(
  generator: GeneratorHandle,
  server: ServerUnderTest,
  params: { rooms: number; settleMs: number; soakMs: number; sampleEveryMs: number; freshRssMb: number },
): Promise<IdleMemoryResult> {
  await generator.call('setup', { rooms: params.rooms });
  await generator.call('disconnect', {});
  await sleep(2_000);
  const before = server.sample();
  const connected = await generator.call('connect', { rooms: params.rooms }, 180_000);
  await sleep(params.settleMs);
  const settled = server.sample();
  const samples: number[] = [settled.rssBytes / 2 ** 20];
  const soakStart = performance.now();
  const soakEnd = soakStart + params.soakMs;
  const breakdown = [await breakdownOf(server, 0, settled.rssBytes)];
  while (performance.now() < soakEnd) {
    await sleep(Math.min(params.sampleEveryMs, Math.max(0, soakEnd - performance.now())));
    const { rssBytes } = server.sample();
    samples.push(rssBytes / 2 ** 20);
    breakdown.push(await breakdownOf(server, (performance.now() - soakStart) / 1000, rssBytes));
  }
  const last = server.sample();
  await generator.call('disconnect', {});
  const users = connected.connected;
  const growthMb = (samples[samples.length - 1] ?? 0) - (samples[0] ?? 0);
  return {
    users,
    freshRssMb: params.freshRssMb,
    connectMs: connected.ms,
    failed: connected.failed,
    rssBeforeMb: before.rssBytes / 2 ** 20,
    rssConnectedMb: settled.rssBytes / 2 ** 20,
    kbPerUser: users > 0 ? (settled.rssBytes - before.rssBytes) / 1024 / users : Number.NaN,
    soakS: params.soakMs / 1000,
    rssSamplesMb: samples,
    breakdown,
    growthMb,
    serverCoresIdle: coresUsed(settled, last),
    // "Flat": under 5% of the connected RSS over the soak (GC and allocator noise stay well below).
    pass: connected.failed === 0 && growthMb < 0.05 * (settled.rssBytes / 2 ** 20),
    loadAverage1m: loadAverage()[0],
  };
}

export interface MemoryBreakdown {
  atS: number;
  rssMb: number;
  mainHeapUsedMb: number;
  mainExternalMb: number;
  dbWasmMb: number;
  dbHeapUsedMb: number;
}

async function breakdownOf(server: ServerUnderTest, atS: number, rssBytes: number): Promise<MemoryBreakdown> {
  const m = await server.metrics();
  const mb = (key: string) => (m.get(key) ?? Number.NaN) / 2 ** 20;
  return {
    atS,
    rssMb: rssBytes / 2 ** 20,
    mainHeapUsedMb: mb('wb_nodejs_heap_size_used_bytes'),
    mainExternalMb: mb('wb_nodejs_external_memory_bytes'),
    dbWasmMb: mb('wb_embedded_db_memory_bytes{kind="wasm"}'),
    dbHeapUsedMb: mb('wb_embedded_db_memory_bytes{kind="heap_used"}'),
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
