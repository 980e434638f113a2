/**
 * Fault: the database becomes unreachable for one server process for FAULTS_DB_OUTAGE_MS (default
 * 30 s, the issue's figure), then comes back. Two kinds of unreachable, side by side in one window
 * (each its own server process, proxy and scratch database), so the suite pays for 30 s once:
 * - refused: the TCP proxy resets every connection and refuses new ones;
 * - black hole: the proxy drops everything silently: open connections hang, new ones are accepted
 *   and never answered, so the server learns only from its own timeouts.
 * Either way nobody may be expired by the server's local clock while it cannot read the database,
 * every write attempted meanwhile is answered (refused as `unavailable`, retryable) instead of
 * hanging past the client's deadline, nothing acknowledged is lost, and on recovery the sweeper
 * graces in-flight leases before its first sweep (I8), so clients that kept answering are not expired.
 */
import { randomUUID } from 'node:crypto';
import { ClientEvent, ErrorCode } from '@wb/protocol';
import { afterAll, describe, test } from 'vitest';
import { attendance, rect, storedSnapshot } from './support/board.ts';
import { FaultClient, createRoom, joinRoom, requestId } from './support/client.ts';
import { reportFigures } from './support/results.ts';
import { FAULT_TIMINGS, createScratchDatabase, killAll, postgresSkipReason, spawnServer, waitFor } from './support/serverProcess.ts';
import { TcpProxy } from './support/tcpProxy.ts';

const OUTAGE_MS = Number(process.env.FAULTS_DB_OUTAGE_MS ?? 30_000);
/**
 * How long a client waits for an answer before it counts the request as hanging: three times the
 * web client's own 5 s (apps/web/src/connection/roomClient.ts REPLY_TIMEOUT_MS), for a loaded machine.
 */
const CLIENT_DEADLINE_MS = 15_000;
const skip = postgresSkipReason();

type Outcome = { id: string; code: string; ms: number; answeredAt: number };

describe.skipIf(skip !== null)(`database unreachable for ${OUTAGE_MS / 1000} s (TCP proxy, real Postgres)${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const clients: FaultClient[] = [];
  const cleanups: (() => Promise<void>)[] = [];

  afterAll(async () => {
    for (const c of clients) c.close();
    await killAll();
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  });

  for (const kind of ['refused', 'black hole'] as const) {
    // Side by side: both outages share one 30 s window.
    test.concurrent(`database unreachable ${OUTAGE_MS / 1000} s (${kind}): acknowledged-but-lost writes = 0, false expiries = 0, writes refused visibly as unavailable`, async ({ expect }) => {
      const db = await createScratchDatabase();
      cleanups.push(db.drop);
      const target = new URL(db.url);
      const proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
      await proxy.start();
      cleanups.push(() => proxy.close());
      const server = await spawnServer({ databaseUrl: proxy.via(db.url) });

      const teacher = await createRoom(server.url);
      const students = await Promise.all(['Ana', 'Ben'].map((name) => joinRoom(server.url, teacher.room.code, name)));
      const t = new FaultClient(server.url, teacher);
      const others = students.map((grant) => new FaultClient(server.url, grant));
      clients.push(t, ...others);
      await Promise.all([t, ...others].map((c) => c.ready()));
      const writer = others[0]!;

      const acknowledged: string[] = [];
      const attempt = async (x: number): Promise<Outcome> => {
        const id = randomUUID();
        const sentAt = Date.now();
        const reply = await writer.socket
          .timeout(CLIENT_DEADLINE_MS)
          .emitWithAck(ClientEvent.ELEMENT_CREATE, { requestId: requestId(), id, shape: rect(x, 0) })
          .catch(() => null);
        if (reply?.ok) acknowledged.push(id);
        return { id, code: reply === null ? 'no answer' : reply.ok ? 'ok' : reply.error.code, ms: Date.now() - sentAt, answeredAt: Date.now() };
      };
      for (let i = 0; i < 3; i++) expect((await attempt(i * 10)).code).toBe('ok');

      // Let a few renewals through first, so every client is mid-term when the outage starts.
      await waitFor(() => [t, ...others].every((c) => c.renewals.some((r) => r.reply.ok)), 'a renewal from everyone');
      const renewalsBefore = [t, ...others].map((c) => c.renewals.length);
      const cutAt = Date.now();
      if (kind === 'refused') proxy.cut();
      else proxy.blackhole();

      // One write a second, each on its own (a hanging one must not hold back the next).
      const during: Promise<Outcome>[] = [];
      let readyzDown = false;
      let healthzDown = false;
      const probe = async (path: string) =>
        (await fetch(`${server.url}${path}`, { signal: AbortSignal.timeout(CLIENT_DEADLINE_MS) }).catch(() => null))?.status ?? 0;
      while (Date.now() - cutAt < OUTAGE_MS) {
        during.push(attempt(1_000 + during.length));
        if (!readyzDown) void probe('/readyz').then((s) => (readyzDown ||= s === 503));
        if (!healthzDown) void probe('/healthz').then((s) => (healthzDown ||= s === 503));
        await new Promise((done) => setTimeout(done, 1_000));
      }
      const expiredDuring = t.events('presence.expired').length;
      proxy.restore();
      const restoredAt = Date.now();
      // Every write sent during the outage has its answer (or its deadline) by now or soon.
      const outcomes = await Promise.all(during);
      const renewalRefusals = [t, ...others]
        .flatMap((c, i) => c.renewals.slice(renewalsBefore[i]))
        .filter((r) => r.at < restoredAt && !r.reply.ok)
        .map((r) => (r.reply.ok ? 'ok' : r.reply.error.code));

      await waitFor(async () => (await fetch(`${server.url}/readyz`)).ok, '/readyz after recovery', 30_000);
      await waitFor(async () => (await fetch(`${server.url}/healthz`)).ok, '/healthz after recovery', 30_000);
      const firstWriteAfter = await waitFor(async () => ((await attempt(5_000)).code === 'ok' ? Date.now() : null), 'a write after recovery', 30_000);
      await waitFor(
        () => [t, ...others].every((c) => c.renewals.some((r) => r.at > restoredAt && r.reply.ok)),
        'everyone’s renewals accepted again',
        30_000,
      );
      // A whole term and some sweeps after recovery: any false expiry would have happened by now.
      await new Promise((done) => setTimeout(done, FAULT_TIMINGS.LEASE_TTL_MS + 1_000));

      const snapshot = await storedSnapshot(server.url, teacher);
      const stored = new Set(snapshot.elements.map((e) => e.id));
      const lost = acknowledged.filter((id) => !stored.has(id)).length;
      const facts = await attendance(server.url, teacher);
      const falseExpiries = t.events('presence.expired').length + facts.filter((f) => f.kind === 'lease_expired').length;
      const count = (code: string) => outcomes.filter((o) => o.code === code).length;
      // A write refused because its query hung may still commit when the packets flow again: not
      // lost (never acknowledged), and its room event reaches every client; a retry with the same
      // requestId answers with the stored element.
      // Writes sent in the outage's last seconds may be answered after it ended, and then succeed.
      const okDuring = outcomes.filter((o) => o.code === 'ok' && o.answeredAt < restoredAt).length;
      const okAfter = count('ok') - okDuring;
      const landedLate = outcomes.filter((o) => o.code !== 'ok' && stored.has(o.id)).length;
      const slowest = Math.max(...outcomes.map((o) => o.ms));
      reportFigures(`database unreachable (${kind})`, {
        'outage (ms)': restoredAt - cutAt,
        'acknowledged-but-lost writes': lost,
        'acknowledged writes checked': acknowledged.length,
        'false expiries': falseExpiries,
        'expiries during the outage': expiredDuring,
        'writes attempted during the outage': outcomes.length,
        'refused as unavailable': count(ErrorCode.UNAVAILABLE),
        [`unanswered within ${CLIENT_DEADLINE_MS / 1000} s`]: count('no answer'),
        'acknowledged during the outage': okDuring,
        'sent during, acknowledged after the outage': okAfter,
        'refused, then committed once the database answered': landedLate,
        'answer times during the outage (ms, median / slowest)': `${median(outcomes.map((o) => o.ms))} / ${slowest}`,
        'renewals refused during the outage': `${renewalRefusals.length} (${[...new Set(renewalRefusals)].join(', ') || 'none'})`,
        '/readyz 503 during the outage': readyzDown,
        '/healthz 503 during the outage': healthzDown,
        'first write accepted after recovery (ms)': firstWriteAfter - restoredAt,
        'sessions present after recovery': snapshot.presence.length,
        'proxy connections refused / swallowed': `${proxy.refused} / ${proxy.swallowed}`,
      });
      expect(lost).toBe(0);
      expect(falseExpiries).toBe(0);
      expect(count('no answer')).toBe(0);
      expect(okDuring).toBe(0);
      expect(count(ErrorCode.UNAVAILABLE) + okAfter).toBe(outcomes.length);
      expect(count(ErrorCode.UNAVAILABLE)).toBeGreaterThan(0);
      expect(new Set(renewalRefusals)).toEqual(new Set([ErrorCode.UNAVAILABLE]));
      expect(readyzDown).toBe(true);
      expect(snapshot.presence.map((p) => p.sessionId).sort()).toEqual([teacher, ...students].map((g) => g.sessionId).sort());
      await server.stop();
    });
  }
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
