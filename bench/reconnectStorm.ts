/**
 * Reconnect storm: every client of a many-room load drops at once and reconnects at once, each
 * with the last room revision it applied. Reports the time until every client has its welcome and
 * sync again, snapshots vs replays, and the server's CPU during the storm. Cursors are not moving
 * during the storm (this isolates the handshake, lease and sync path).
 */
import type { StormResult } from './generatorMessages.ts';
import type { GeneratorHandle } from './generatorHandle.ts';
import { coresUsed, loadAverage, type ProcSample } from './procStats.ts';
import type { ServerUnderTest } from './serverUnderTest.ts';

export interface ReconnectStormResult extends StormResult {
  rooms: number;
  serverCores: number;
  serverCpuSeconds: number;
  serverEventLoopP99Ms: number;
  pass: boolean;
  loadAverage1m: number;
}

export async function reconnectStorm(
  generator: GeneratorHandle,
  server: ServerUnderTest,
  params: { rooms: number; timeoutMs: number },
): Promise<ReconnectStormResult> {
  await generator.call('setup', { rooms: params.rooms });
  const connected = await generator.call('connect', { rooms: params.rooms });
  if (connected.failed > 0) throw new Error(`storm: ${connected.failed} clients could not connect first`);
  // Settle: the first renewals after connecting, then a quiet baseline.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  let start: ProcSample | null = null;
  let end: ProcSample | null = null;
  let lag: Promise<number> = Promise.resolve(Number.NaN);
  const stop = generator.onMark((name) => {
    if (name === 'stormStart') {
      start = server.sample();
      void server.eventLoopP99Ms().catch(() => Number.NaN);
    } else if (name === 'stormEnd') {
      end = server.sample();
      lag = server.eventLoopP99Ms().catch(() => Number.NaN);
    }
  });
  let storm: StormResult;
  try {
    storm = await generator.call('storm', { rooms: params.rooms, timeoutMs: params.timeoutMs });
  } finally {
    stop();
  }
  const s0 = start as ProcSample | null;
  const s1 = end as ProcSample | null;
  const result = {
    ...storm,
    rooms: params.rooms,
    serverCores: s0 && s1 ? coresUsed(s0, s1) : Number.NaN,
    serverCpuSeconds: s0 && s1 ? s1.cpuSeconds - s0.cpuSeconds : Number.NaN,
    serverEventLoopP99Ms: await lag,
    pass: storm.failed === 0 && storm.live === storm.clients,
    loadAverage1m: loadAverage()[0],
  };
  await generator.call('disconnect', {});
  return result;
}
