/**
 * Fault: the database becomes unreachable for one server process (a TCP proxy between them is cut)
 * for FAULTS_DB_OUTAGE_MS (default 30 s, the issue's figure), then comes back. Nobody may be expired
 * by the server's local clock while it cannot read the database, every write attempted meanwhile is
 * refused visibly (`unavailable`), nothing acknowledged is lost, and on recovery the sweeper graces
 * in-flight leases before its first sweep (I8), so clients that kept answering are not expired.
 */
import { randomUUID } from 'node:crypto';
import { ClientEvent, ErrorCode } from '@wb/protocol';
import { afterAll, describe, expect, test } from 'vitest';
import { attendance, rect, storedSnapshot } from './support/board.ts';
import { FaultClient, createRoom, joinRoom, requestId } from './support/client.ts';
import { reportFigures } from './support/results.ts';
import { FAULT_TIMINGS, createScratchDatabase, killAll, postgresSkipReason, spawnServer, waitFor } from './support/serverProcess.ts';
import { TcpProxy } from './support/tcpProxy.ts';

const OUTAGE_MS = Number(process.env.FAULTS_DB_OUTAGE_MS ?? 30_000);
const skip = postgresSkipReason();

describe.skipIf(skip !== null)(`database unreachable for ${OUTAGE_MS / 1000} s (TCP proxy cut, real Postgres)${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const clients: FaultClient[] = [];
  const cleanups: (() => Promise<void>)[] = [];

  afterAll(async () => {
    for (const c of clients) c.close();
    await killAll();
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  });

  test(`database unreachable ${OUTAGE_MS / 1000} s: acknowledged-but-lost writes = 0, false expiries = 0, writes refused visibly as unavailable`, async () => {
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
    const attempt = async (x: number) => {
      const id = randomUUID();
      const reply = await writer.socket
        .timeout(15_000)
        .emitWithAck(ClientEvent.ELEMENT_CREATE, { requestId: requestId(), id, shape: rect(x, 0) })
        .catch(() => null);
      if (reply?.ok) acknowledged.push(id);
      return reply === null ? 'no answer' : reply.ok ? 'ok' : reply.error.code;
    };
    for (let i = 0; i < 3; i++) expect(await attempt(i * 10)).toBe('ok');

    // Let a few renewals through first, so every client is mid-term when the cut comes.
    await waitFor(() => [t, ...others].every((c) => c.renewals.some((r) => r.reply.ok)), 'a renewal from everyone');
    const renewalsBefore = [t, ...others].map((c) => c.renewals.length);
    const cutAt = Date.now();
    proxy.cut();

    const during: string[] = [];
    let readyzDown = false;
    let healthzDown = false;
    while (Date.now() - cutAt < OUTAGE_MS) {
      during.push(await attempt(1_000 + during.length));
      readyzDown ||= (await fetch(`${server.url}/readyz`)).status === 503;
      healthzDown ||= (await fetch(`${server.url}/healthz`)).status === 503;
      await new Promise((done) => setTimeout(done, 1_000));
    }
    const expiredDuring = t.events('presence.expired').length;
    const renewalRefusals = [t, ...others]
      .flatMap((c, i) => c.renewals.slice(renewalsBefore[i]))
      .filter((r) => !r.reply.ok)
      .map((r) => (r.reply.ok ? 'ok' : r.reply.error.code));
    proxy.restore();
    const restoredAt = Date.now();

    await waitFor(async () => (await fetch(`${server.url}/readyz`)).ok, '/readyz after recovery', 30_000);
    await waitFor(async () => (await fetch(`${server.url}/healthz`)).ok, '/healthz after recovery', 30_000);
    const firstWriteAfter = await waitFor(async () => ((await attempt(5_000)) === 'ok' ? Date.now() : null), 'a write after recovery', 30_000);
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
    const refusedVisibly = during.filter((d) => d === ErrorCode.UNAVAILABLE).length;
    const acceptedDuring = during.filter((d) => d === 'ok').length;
    reportFigures('database unreachable', {
      'outage (ms)': restoredAt - cutAt,
      'acknowledged-but-lost writes': lost,
      'acknowledged writes checked': acknowledged.length,
      'false expiries': falseExpiries,
      'expiries during the outage': expiredDuring,
      'writes attempted during the outage': during.length,
      'refused as unavailable': refusedVisibly,
      'unanswered (timed out)': during.filter((d) => d === 'no answer').length,
      'acknowledged during the outage': acceptedDuring,
      'renewals refused during the outage': renewalRefusals.length,
      '/readyz 503 during the outage': readyzDown,
      '/healthz 503 during the outage': healthzDown,
      'first write accepted after recovery (ms)': firstWriteAfter - restoredAt,
      'sessions present after recovery': snapshot.presence.length,
      'proxy connections refused': proxy.refused,
    });
    expect(lost).toBe(0);
    expect(falseExpiries).toBe(0);
    expect(acceptedDuring).toBe(0);
    expect(refusedVisibly).toBe(during.length);
    expect(new Set(renewalRefusals)).toEqual(new Set([ErrorCode.UNAVAILABLE]));
    expect(readyzDown).toBe(true);
    expect(snapshot.presence.map((p) => p.sessionId).sort()).toEqual([teacher, ...students].map((g) => g.sessionId).sort());
    await server.stop();
  });
});
