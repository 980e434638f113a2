/**
 * I14, no student starves the class (issue 18, finding 2): one student with 3 tabs floods
 * `sync.request {lastRevision: 0}` at FAULTS_SYNC_FLOOD_RATE (150) a second per tab for
 * FAULTS_SYNC_FLOOD_MS (8 s) in a room of ~300 logged events, while honest students renew their
 * leases and keep asking for what they missed. Every honest renewal is accepted, every honest
 * request answered ok, and the honest requests' p99 under the flood stays within 2x the quiet p99
 * of the same run (plus P99_TOLERANCE_MS). PGlite, or Postgres with TEST_DATABASE_URL.
 * FAULTS_SYNC_FLOOD_ROOMS=10 runs the issue's larger case: one such student in each of 10 rooms at
 * once (CI runs one room; the 10-room figures are in docs/reliability.md).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { setPriority } from 'node:os';
import { ClientEvent } from '@wb/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FaultClient, createRoom, joinRoom, requestId, type RenewalRecord } from './support/client.ts';
import { counterSum, cpuWindow, describeCpu } from './support/cpuShare.ts';
import { reportFigures } from './support/results.ts';
import { killAll, repoRoot, spawnServer, track, type ServerProcess } from './support/serverProcess.ts';
import { STORES, databaseOn, skipNote } from './support/stores.ts';

const FLOOD_MS = Number(process.env.FAULTS_SYNC_FLOOD_MS ?? 8_000);
const FLOOD_RATE = Number(process.env.FAULTS_SYNC_FLOOD_RATE ?? 150);
const ROOMS = Number(process.env.FAULTS_SYNC_FLOOD_ROOMS ?? 1);
const TABS = 3;
const HONEST = 4;
const LOGGED_EVENTS = 300;
/** How often each honest member asks (ms): within an honest member's sync budget (2 a second). */
const ASK_EVERY_MS = 600;
/**
 * Honest p99 under the flood may be at most 2x the quiet p99 of the same run, plus this much. The
 * tolerance is for the machine, not the product: on a shared 2-core machine the flooder process's
 * own CPU (450 packets a second) and other work land on the server's scheduling (at load average
 * ~12 a quiet window's p99 moved between 72 and 231 ms from one run to the next; in a CI run of
 * 2026-12-02, the other lanes keeping both cores busy, the flood's p99 was 616 ms against a quiet
 * 116 ms, every renewal accepted, the server's main thread using 0.06 cores: a wait for a core,
 * not the flood; in a clean-clone CI run of 2026-12-03 21:20, nothing else on the machine but CI's
 * own lanes holding 2.00 cores, PGlite's flood p99 was 1,591 ms against a quiet 470 ms (bound 1,440
 * at 500 ms), all 89 renewals accepted, 0 requests unanswered, the server's main thread at 0.04
 * cores and its event loop lagging 230 ms p99: again a wait for a core). Starvation, what this test
 * is for, costs seconds: 2.5-4 s in the issue, 9 s with the member budget switched off, so 1,000 ms
 * still tells it from the machine's share.
 */
const P99_TOLERANCE_MS = Number(process.env.FAULTS_SYNC_FLOOD_P99_TOLERANCE_MS ?? 1_000);
/**
 * The flooder processes' scheduling priority (nice, 0-19; default 0). A flooding student's tabs run
 * on the student's laptop, not on the server's cores; here 10 of them share 2 cores with the server
 * and want more CPU than the machine has (about 0.7 ms of flooder CPU per request: 2.5-3 cores for
 * 36,000 requests in 8 s). A higher nice lets them have only what the server and the honest clients
 * leave, as if elsewhere, to tell the server's own share of the honest p99 from theirs; on a machine
 * loaded by other work it also starves the flooders (they send late and miss their own 10 s reply
 * timeouts: `unanswered` then counts the flooder's slowness, not the server's), so the default
 * keeps them equal.
 */
const FLOODER_NICE = Number(process.env.FAULTS_SYNC_FLOOD_NICE ?? 0);

interface SyncFloodTally {
  sent: number;
  ok: number;
  rateLimited: number;
  other: number;
  unanswered: number;
  disconnected: number;
  sendingMs: number;
  /** The flooder process's own CPU (ms): on a 2-core machine, taken from the server's share. */
  cpuMs: number;
}

function runFlooder(url: string, token: string): Promise<SyncFloodTally> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/faults/support/syncFlooder.ts', url, token, String(TABS), String(FLOOD_RATE), String(FLOOD_MS)], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  if (FLOODER_NICE !== 0 && child.pid !== undefined) setPriority(child.pid, FLOODER_NICE);
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((done, fail) =>
    child.once('exit', (code) => {
      if (code === 0) done(JSON.parse(out.trim().split('\n').at(-1) ?? '') as SyncFloodTally);
      else fail(new Error(`sync flooder exited with ${code}: ${out.slice(-2_000)}`));
    }),
  );
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : Number.NaN;
};

for (const store of STORES) describe.skipIf(store.skip !== null)(`a student's 3 tabs flooding sync.request (${store.label})${skipNote(store)}`, () => {
  let server: ServerProcess;
  const clients: FaultClient[] = [];
  const cleanups: (() => Promise<void> | void)[] = [];

  beforeAll(async () => {
    server = await spawnServer(await databaseOn(store, cleanups));
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await killAll();
    for (const cleanup of cleanups) await cleanup();
  });

  test(`I14: 0 honest renewals lost, every honest request answered and honest p99 within 2x quiet while one member ${ROOMS > 1 ? `in each of ${ROOMS} rooms ` : ''}floods from 3 tabs`, async () => {
    /** A room with ~300 logged events, HONEST + 1 honest students and the flooder's grant. */
    const floodedRoom = async () => {
      const teacherGrant = await createRoom(server.url);
      const code = teacherGrant.room.code;
      const teacher = new FaultClient(server.url, teacherGrant);
      clients.push(teacher);
      await teacher.ready();
      // The room's log: ~300 events, paced under the socket's 90 a second.
      for (let i = 0; i < LOGGED_EVENTS; i += 30) {
        await Promise.all(
          Array.from({ length: 30 }, (_, j) =>
            teacher.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_CREATE, {
              requestId: requestId(),
              id: randomUUID(),
              shape: { kind: 'rect', x: i + j, y: 5, w: 4, h: 4, stroke: '#000000', fill: 'transparent', strokeWidth: 1 },
            }),
          ),
        );
        await new Promise((done) => setTimeout(done, 400));
      }
      const grants = [];
      for (let i = 0; i < HONEST + 1; i++) grants.push(await joinRoom(server.url, code, `Student ${i}`));
      const flooderGrant = await joinRoom(server.url, code, 'Flo');
      const members = grants.map((g) => new FaultClient(server.url, g));
      clients.push(...members);
      await Promise.all(members.map((c) => c.ready()));
      return { members, flooderToken: flooderGrant.token };
    };
    const rooms = await Promise.all(Array.from({ length: ROOMS }, floodedRoom));
    const honest = rooms.flatMap((room) => room.members);

    // Every honest member asks for what it missed now and then, and renews when prompted: the
    // latencies of both are the honest requests' figure.
    const measure = async (during: () => Promise<unknown>) => {
      const latencies: number[] = [];
      let refused = 0;
      let asking = true;
      const asks = honest.map(async (watcher, i) => {
        await new Promise((done) => setTimeout(done, (i * ASK_EVERY_MS) / honest.length));
        while (asking) {
          const started = performance.now();
          const reply = await watcher.socket
            .timeout(10_000)
            .emitWithAck(ClientEvent.SYNC_REQUEST, { lastRevision: watcher.lastRevision() })
            .catch(() => null);
          if (reply?.ok) latencies.push(performance.now() - started);
          else refused++;
          await new Promise((done) => setTimeout(done, ASK_EVERY_MS));
        }
      });
      const renewalsFrom = honest.map((c) => c.renewals.length);
      // Where the window's time goes: the server's threads, the machine, the database's work.
      const metricsBefore = await scrape();
      const cpu = cpuWindow(server.child.pid!);
      const result = await during();
      asking = false;
      await Promise.all(asks);
      const cpuShare = cpu();
      const metricsAfter = await scrape();
      const counted = (name: string, labels?: string) => counterSum(metricsAfter, name, labels) - counterSum(metricsBefore, name, labels);
      const normalGrants = counted('wb_db_lane_grants_total', 'lane="normal"');
      const diagnosis = {
        cpu: describeCpu(cpuShare),
        syncStatements: counted('wb_db_statements_total', 'kind="sync"'),
        normalLaneMeanWaitMs: normalGrants > 0 ? (1_000 * counted('wb_db_lane_wait_seconds_total', 'lane="normal"')) / normalGrants : 0,
        loopLagP99Ms: 1_000 * counterSum(metricsAfter, 'wb_nodejs_eventloop_lag_p99_seconds'),
      };
      const renewals = honest.flatMap((c, i) => c.renewals.slice(renewalsFrom[i]));
      // A renewal is lost when its lease revision was never renewed: neither it nor a twin asking
      // for the same or a later revision of the same lease was accepted. A twin comes from a
      // second `lease.due` sent while the first renewal was still in flight (replies of 1-1.5 s
      // under CI's load); the one that lands second is answered `ignored_old_revision`, as the
      // lease contract says of a late or duplicated renewal, and the lease is renewed all the same.
      const unrenewed = honest.flatMap((c, i) => {
        const mine = c.renewals.slice(renewalsFrom[i]);
        const accepted = (r: RenewalRecord) => r.reply.ok && r.reply.decision === 'accepted';
        return mine.filter((r) => !accepted(r) && !mine.some((o) => accepted(o) && o.revision >= r.revision));
      });
      const ended = honest.filter((c) => c.received['session.ended'].length > 0).length;
      const renewalMs = renewals.filter((r) => r.reply.ok).map((r) => r.ms);
      return { result, latencies: [...latencies, ...renewalMs], askCount: latencies.length, syncMs: latencies, refused, renewals, unrenewed, ended, renewalMs, diagnosis };
    };

    const scrape = async () => (await fetch(`${server.url}/metrics`)).text();
    const quiet = await measure(() => new Promise((done) => setTimeout(done, FLOOD_MS)));
    const flood = await measure(() => Promise.all(rooms.map((room) => runFlooder(server.url, room.flooderToken))));
    const tally = (flood.result as SyncFloodTally[]).reduce((sum, t) => ({
      sent: sum.sent + t.sent,
      ok: sum.ok + t.ok,
      rateLimited: sum.rateLimited + t.rateLimited,
      other: sum.other + t.other,
      unanswered: sum.unanswered + t.unanswered,
      disconnected: sum.disconnected + t.disconnected,
      sendingMs: Math.max(sum.sendingMs, t.sendingMs),
      cpuMs: sum.cpuMs + t.cpuMs,
    }));
    const lost = flood.unrenewed;
    const twins = flood.renewals.filter((r) => r.reply.ok && r.reply.decision === 'ignored_old_revision').length;
    const q = { p50: percentile(quiet.latencies, 50), p99: percentile(quiet.latencies, 99), renewP99: percentile(quiet.renewalMs, 99) };
    const f = { p50: percentile(flood.latencies, 50), p99: percentile(flood.latencies, 99), renewP99: percentile(flood.renewalMs, 99) };
    reportFigures(`sync flood from 3 tabs${ROOMS > 1 ? ` in each of ${ROOMS} rooms` : ''} (${store.label})`, {
      'flood sent / ok / rate_limited / other / unanswered': `${tally.sent} / ${tally.ok} / ${tally.rateLimited} / ${tally.other} / ${tally.unanswered}`,
      'flood sending (ms)': tally.sendingMs,
      'honest renewals accepted during the flood': `${flood.renewals.length - lost.length - twins} of ${flood.renewals.length} (${twins} twins answered ignored_old_revision, their lease renewed by the other; ${lost.length} lost)`,
      'honest requests (syncs and renewals) p50 / p99, quiet (ms)': `${q.p50.toFixed(1)} / ${q.p99.toFixed(1)} (${quiet.askCount} + ${quiet.renewalMs.length})`,
      'honest requests (syncs and renewals) p50 / p99, flood (ms)': `${f.p50.toFixed(1)} / ${f.p99.toFixed(1)} (${flood.askCount} + ${flood.renewalMs.length})`,
      'honest syncs alone p50 / p99, quiet / flood (ms)': `${percentile(quiet.syncMs, 50).toFixed(1)} / ${percentile(quiet.syncMs, 99).toFixed(1)}, ${percentile(flood.syncMs, 50).toFixed(1)} / ${percentile(flood.syncMs, 99).toFixed(1)}`,
      'honest renewals p99, quiet / flood (ms)': `${q.renewP99.toFixed(1)} / ${f.renewP99.toFixed(1)}`,
      'p99 bound: 2 x quiet + tolerance (ms)': (2 * q.p99 + P99_TOLERANCE_MS).toFixed(1),
      'honest requests refused, quiet / flood': `${quiet.refused} / ${flood.refused}`,
      'server CPU, quiet': quiet.diagnosis.cpu,
      'server CPU, flood': flood.diagnosis.cpu,
      'flooder processes CPU (ms), nice': `${tally.cpuMs}, ${FLOODER_NICE}`,
      'sync statements, quiet / flood': `${quiet.diagnosis.syncStatements} / ${flood.diagnosis.syncStatements}`,
      'normal lane mean wait, quiet / flood (ms)': `${quiet.diagnosis.normalLaneMeanWaitMs.toFixed(1)} / ${flood.diagnosis.normalLaneMeanWaitMs.toFixed(1)}`,
      'event loop lag p99, quiet / flood (ms)': `${quiet.diagnosis.loopLagP99Ms.toFixed(1)} / ${flood.diagnosis.loopLagP99Ms.toFixed(1)}`,
    });
    expect(tally.rateLimited).toBeGreaterThan(0);
    expect(tally.unanswered).toBe(0);
    expect(flood.renewals.length).toBeGreaterThan(HONEST * 3 * ROOMS);
    expect(lost).toEqual([]);
    expect(flood.ended).toBe(0);
    expect(flood.refused).toBe(0);
    expect(quiet.refused).toBe(0);
    expect(f.p99).toBeLessThanOrEqual(2 * q.p99 + P99_TOLERANCE_MS);
  });
});
