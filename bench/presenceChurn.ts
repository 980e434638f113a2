/**
 * Presence churn: ~500 users answering lease prompts (the server jitters them +-20%) while 10% of
 * them disconnect and reconnect each minute (reloads and wifi blips, back within the lease), and a
 * few close their lids for good. Reports renewals/s and renewal statements/s from /metrics, false
 * evictions (a lease lost by a client that kept answering: must be 0), and expiries per expired
 * lease (must be 1.00: one sweeper win, one event).
 */
import type { ChurnResult } from './generatorMessages.ts';
import type { GeneratorHandle } from './generatorHandle.ts';
import { coresUsed, loadAverage, type ProcSample } from './procStats.ts';
import { metricTotal, type ServerUnderTest } from './serverUnderTest.ts';

export interface PresenceChurnResult {
  users: number;
  windowS: number;
  renewalsPerSec: number;
  renewalStatementsPerSec: number;
  renewalsPerStatement: number;
  reconnects: number;
  reconnectFailures: number;
  falseEvictions: number;
  lidCloses: number;
  serverExpiries: number;
  /** Server-side expiries (wb_lease_expiries_total) per lid-closed lease. */
  expiriesPerExpiredLease: number;
  /** Distinct presence.expired events seen by clients per lid-closed lease. */
  expiryEventsPerExpiredLease: number;
  duplicateDeliveries: number;
  serverCores: number;
  serverRssMb: number;
  pass: boolean;
  loadAverage1m: number;
  raw: ChurnResult;
}

export async function presenceChurn(
  generator: GeneratorHandle,
  server: ServerUnderTest,
  params: { rooms: number; warmupMs: number; windowMs: number; lidCloses: number; leaseTtlMs: number; sweepMs: number },
): Promise<PresenceChurnResult> {
  await generator.call('setup', { rooms: params.rooms });
  let startMetrics: Promise<Map<string, number>> | null = null;
  let endMetrics: Promise<Map<string, number>> | null = null;
  let start: ProcSample | null = null;
  let end: ProcSample | null = null;
  const stop = generator.onMark((name) => {
    if (name === 'windowStart') {
      start = server.sample();
      startMetrics = server.metrics();
    } else if (name === 'windowEnd') {
      end = server.sample();
      endMetrics = server.metrics();
    }
  });
  let raw: ChurnResult;
  try {
    raw = await generator.call('churn', {
      rooms: params.rooms,
      warmupMs: params.warmupMs,
      windowMs: params.windowMs,
      churnPerMinute: 0.1,
      lidCloses: params.lidCloses,
    });
  } finally {
    stop();
  }
  // The last lid closes expire term + sweep after the window starts; the window is longer.
  const before = await (startMetrics ?? Promise.resolve(new Map<string, number>()));
  const after = await (endMetrics ?? Promise.resolve(new Map<string, number>()));
  const delta = (name: string) => metricTotal(after, name) - metricTotal(before, name);
  const windowS = params.windowMs / 1000;
  const renewals = delta('wb_lease_renewals_total');
  const statements = delta('wb_lease_renewal_statements_total');
  const serverExpiries = delta('wb_lease_expiries_total');
  const s0 = start as ProcSample | null;
  const s1 = end as ProcSample | null;
  const result: PresenceChurnResult = {
    users: raw.users,
    windowS,
    renewalsPerSec: renewals / windowS,
    renewalStatementsPerSec: statements / windowS,
    renewalsPerStatement: statements > 0 ? renewals / statements : Number.NaN,
    reconnects: raw.reconnects,
    reconnectFailures: raw.reconnectFailures,
    falseEvictions: raw.falseEvictions,
    lidCloses: raw.lidCloses,
    serverExpiries,
    expiriesPerExpiredLease: raw.lidCloses > 0 ? serverExpiries / raw.lidCloses : Number.NaN,
    expiryEventsPerExpiredLease: raw.lidCloses > 0 ? raw.expiredEventsForClosed / raw.lidCloses : Number.NaN,
    duplicateDeliveries: raw.duplicateDeliveries,
    serverCores: s0 && s1 ? coresUsed(s0, s1) : Number.NaN,
    serverRssMb: s1 ? s1.rssBytes / 2 ** 20 : Number.NaN,
    pass: false,
    loadAverage1m: loadAverage()[0],
    raw,
  };
  result.pass =
    result.falseEvictions === 0 &&
    result.expiriesPerExpiredLease === 1 &&
    result.expiryEventsPerExpiredLease === 1 &&
    result.duplicateDeliveries === 0 &&
    result.reconnectFailures === 0;
  return result;
}
