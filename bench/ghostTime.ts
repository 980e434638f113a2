/**
 * Ghost time: from a client's last accepted renewal to the moment its cursor is removed at the
 * other clients (they receive presence.expired), over N lid closes. A closed lid keeps the socket
 * open but answers no lease.due and sends nothing: the socket close cannot help, only the lease.
 * Target: max <= lease term + sweep interval.
 */
import type { GhostResult } from './generatorMessages.ts';
import type { GeneratorHandle } from './generatorHandle.ts';
import { percentileOf } from './latencyHistogram.ts';
import { loadAverage } from './procStats.ts';

export interface GhostTimeResult {
  closes: number;
  observed: number;
  timedOut: number;
  /** Ghost time at the last observer of each close (the last screen to drop the cursor). */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The same at the first observer. */
  firstObserverP50Ms: number;
  targetMs: number;
  pass: boolean;
  duplicateExpiries: number;
  loadAverage1m: number;
  raw: GhostResult;
}

export async function ghostTime(
  generator: GeneratorHandle,
  params: { rooms: number; closesPerRoom: number; rounds: number; leaseTtlMs: number; sweepMs: number },
): Promise<GhostTimeResult> {
  await generator.call('setup', { rooms: params.rooms });
  const raw = await generator.call('ghost', {
    rooms: params.rooms,
    closesPerRoom: params.closesPerRoom,
    rounds: params.rounds,
    hz: 30,
    timeoutMs: params.leaseTtlMs + params.sweepMs + 10_000,
  });
  await generator.call('disconnect', {});
  const last = raw.samples.map((s) => s.lastMs);
  const first = raw.samples.map((s) => s.firstMs);
  const targetMs = params.leaseTtlMs + params.sweepMs;
  const maxMs = last.length ? Math.max(...last) : Number.NaN;
  return {
    closes: raw.closes,
    observed: raw.observed,
    timedOut: raw.timedOut,
    p50Ms: percentileOf(last, 50),
    p99Ms: percentileOf(last, 99),
    maxMs,
    firstObserverP50Ms: percentileOf(first, 50),
    targetMs,
    pass: raw.timedOut === 0 && raw.observed === raw.closes && maxMs <= targetMs && raw.duplicateExpiries === 0,
    duplicateExpiries: raw.duplicateExpiries,
    loadAverage1m: loadAverage()[0],
    raw,
  };
}
