/**
 * Probes and shutdown for a fleet behind a balancer (docs/operations.md, "Probes" and "Shutdown").
 *
 * 1. Postgres cut off from one server process (a TCP proxy between them resets every connection
 *    and refuses new ones) for longer than the old liveness bound: `/healthz` (liveness: the event
 *    loop and the sweeper loop) stays 200 the whole time while `/readyz` (the database) answers
 *    503; after the proxy is restored both answer 200. An orchestrator restarting every node on a
 *    database failover is exactly what this prevents.
 * 2. SIGTERM drains in order: readiness fails at once while sockets stay connected and liveness
 *    stays 200; only after SHUTDOWN_DRAIN_MS are clients sent `notice` `server_restarting` with
 *    `reconnectWithinMs`; from then on new handshakes are refused as `server_restarting`; a client
 *    that ignores the notice is closed after the window; then the process exits 0.
 */
import { ErrorCode, PROTOCOL_VERSION, type ServerNotice } from '@wb/protocol';
import { io } from 'socket.io-client';
import { afterAll, describe, expect, test } from 'vitest';
import { FaultClient, createRoom, joinRoom } from './support/client.ts';
import { createScratchDatabase, killAll, postgresSkipReason, spawnServer, waitFor, type ServerProcess } from './support/serverProcess.ts';
import { STORES, databaseOn, skipNote } from './support/stores.ts';
import { TcpProxy } from './support/tcpProxy.ts';

const pgSkip = postgresSkipReason();
afterAll(killAll);

const status = async (url: string) => (await fetch(url, { signal: AbortSignal.timeout(5_000) }).catch(() => null))?.status ?? 0;

describe.skipIf(pgSkip !== null)(`probes on real Postgres${pgSkip ? ` (skipped: ${pgSkip})` : ''}`, () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });

  test('liveness stays 200 and readiness fails while Postgres is cut off; both recover', async () => {
    const db = await createScratchDatabase();
    cleanups.push(db.drop);
    const direct = new URL(db.url);
    const proxy = new TcpProxy(direct.hostname, Number(direct.port || 5432));
    await proxy.start();
    cleanups.push(() => proxy.close());
    const server = await spawnServer({ databaseUrl: proxy.via(db.url) });
    cleanups.push(() => server.kill9());
    expect(await status(`${server.url}/readyz`)).toBe(200);

    // Longer than the former liveness bound (5 sweeps + 5 s = 6.25 s at the fault timings).
    const OUTAGE_MS = 9_000;
    proxy.cut();
    const cutAt = Date.now();
    const samples: { at: number; live: number; ready: number }[] = [];
    while (Date.now() - cutAt < OUTAGE_MS) {
      const [live, ready] = await Promise.all([status(`${server.url}/healthz`), status(`${server.url}/readyz`)]);
      samples.push({ at: Date.now() - cutAt, live, ready });
      await new Promise((done) => setTimeout(done, 250));
    }
    const report = await (await fetch(`${server.url}/readyz`)).json();
    proxy.restore();

    expect(samples.length).toBeGreaterThan(10);
    expect(samples.filter((s) => s.live !== 200)).toEqual([]);
    expect(samples.filter((s) => s.ready !== 503)).toEqual([]);
    expect(report).toMatchObject({ ok: false, databaseOk: false, draining: false });
    await waitFor(async () => (await status(`${server.url}/readyz`)) === 200, '/readyz after the database is back', 30_000);
    expect(await status(`${server.url}/healthz`)).toBe(200);
    await server.stop();
  });
});

for (const store of STORES) describe.skipIf(store.skip !== null)(`shutdown on ${store.label}${skipNote(store)}`, () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  test('SIGTERM drains in order: readiness fails, sockets stay for the drain period, then a reconnect window, then exit', async () => {
    const where = await databaseOn(store, cleanups);
    const DRAIN_MS = 2_000;
    const SPREAD_MS = 1_500;
    const server: ServerProcess = await spawnServer({
      ...where,
      env: { SHUTDOWN_DRAIN_MS: String(DRAIN_MS), SHUTDOWN_RECONNECT_SPREAD_MS: String(SPREAD_MS), LOG_LEVEL: 'info' },
    });
    cleanups.push(() => server.kill9());
    const teacher = await createRoom(server.url);
    const student = await joinRoom(server.url, teacher.room.code, 'Ada');
    // This client ignores the notice (an old tab): the server must close it after the window.
    const stubborn = new FaultClient(server.url, student);
    await stubborn.ready();
    let noticeAt = 0;
    let notice: ServerNotice | undefined;
    stubborn.socket.on('notice', (n) => {
      notice ??= n;
      noticeAt ||= Date.now();
    });
    let disconnectedAt = 0;
    stubborn.socket.on('disconnect', () => (disconnectedAt = Date.now()));

    const exited = new Promise<number | null>((done) => server.child.once('exit', (code) => done(code)));
    const termAt = Date.now();
    server.child.kill('SIGTERM');
    const notReadyAt = await waitFor(async () => ((await status(`${server.url}/readyz`)) === 503 ? Date.now() : null), '/readyz 503', 5_000);
    // Readiness fails at once; nothing else has happened yet. DRAIN_MS / 2: the next step (the
    // notice) is due at DRAIN_MS, so half of it tells "at once" from "with the drain" under any load.
    expect(notReadyAt - termAt).toBeLessThan(DRAIN_MS / 2);
    expect(stubborn.socket.connected).toBe(true);
    expect(noticeAt).toBe(0);
    expect(await status(`${server.url}/healthz`)).toBe(200);

    await waitFor(() => noticeAt > 0, 'the reconnect notice', DRAIN_MS + 5_000);
    expect(noticeAt - termAt).toBeGreaterThanOrEqual(DRAIN_MS - 50);
    expect(notice).toMatchObject({ code: ErrorCode.SERVER_RESTARTING, reconnectWithinMs: SPREAD_MS });

    // During the window a new handshake is refused as retryable server_restarting.
    const late = io(server.url, { transports: ['websocket'], reconnection: false, forceNew: true, auth: { token: student.token, protocol: PROTOCOL_VERSION } });
    const refusal = await new Promise<{ code?: string }>((done) => {
      late.on('connect_error', (error: Error & { data?: { code?: string } }) => done(error.data ?? {}));
      late.on('connect', () => done({ code: 'connected' }));
    });
    late.close();
    expect(refusal.code).toBe(ErrorCode.SERVER_RESTARTING);

    await waitFor(() => disconnectedAt > 0, 'the ignoring client closed', SPREAD_MS + 5_000);
    expect(disconnectedAt - noticeAt).toBeGreaterThanOrEqual(SPREAD_MS - 50);
    expect(await exited).toBe(0);
    const phases = ['shutdown 1/3', 'shutdown 2/3', 'shutdown 3/3'].map((p) => server.output().indexOf(p));
    expect(phases.every((i) => i >= 0)).toBe(true);
    expect([...phases].sort((a, b) => a - b)).toEqual(phases);
    stubborn.close();
  });
});
