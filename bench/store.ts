/**
 * Store benchmark: lease renewals per second on embedded PGlite and on real Postgres, one
 * renewLeases call per renewal ("single") and one call per tick for every lease of a node
 * ("batched"), and how many SQL statements a tick costs.
 *
 *   node --import tsx bench/store.ts
 *
 * Env: BENCH_DATABASE_URL (else TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test;
 * a scratch database is created on that server and dropped), BENCH_SECONDS per measurement
 * (default 4), BENCH_LEASES leases per node tick (default 1000), BENCH_SKIP_POSTGRES=1.
 * Writes bench/results/store-<date>.json and prints a table.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { createStore, openDatabase, type Database, type RenewRequest, type Store } from '@wb/db';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const LEASES = Number(process.env.BENCH_LEASES ?? 1_000);
/** The production lease term: renewals arrive about every third of it. */
const LEASE_TTL_MS = 9_000;

interface Measurement {
  driver: 'pglite' | 'postgres';
  mode: 'single' | 'batched';
  leasesPerTick: number;
  renewals: number;
  seconds: number;
  renewalsPerSecond: number;
  calls: number;
  statementsPerCall: number;
  /** Median and 95th percentile latency of one renewLeases call, ms. */
  p50Ms: number;
  p95Ms: number;
  accepted: number;
}

/** Counts statements the store sends, by wrapping the one method every store query goes through. */
function countStatements(database: Database): { count: () => number } {
  let statements = 0;
  const db = database.db;
  const execute = db.execute.bind(db);
  db.execute = ((query: Parameters<typeof execute>[0]) => {
    statements++;
    return execute(query);
  }) as typeof db.execute;
  return { count: () => statements };
}

/** A room with `n` students, each with an open session and a lease, inserted in bulk (setup is not measured). */
async function seedLeases(database: Database, n: number): Promise<string[]> {
  const roomId = randomUUID();
  const code = randomBytes(5).toString('hex').toUpperCase();
  // Plain SQL text: bench depends on @wb/db alone, and every value here is generated, not input.
  await database.db.execute(`INSERT INTO rooms (id, code, title) VALUES ('${roomId}', '${code}', 'bench')`);
  await database.db.execute(`
    WITH s AS (SELECT gen_random_uuid() AS user_id, gen_random_uuid() AS session_id, i FROM generate_series(1, ${Math.trunc(n)}) i),
    m AS (
      INSERT INTO memberships (room_id, user_id, display_name, role, member_key_hash)
      SELECT '${roomId}', user_id, 'student ' || i, 'student', md5(session_id::text) FROM s RETURNING user_id),
    ss AS (
      INSERT INTO sessions (id, room_id, user_id, token_hash, expires_at)
      SELECT session_id, '${roomId}', user_id, md5(user_id::text), now() + interval '1 day' FROM s RETURNING id)
    INSERT INTO presence_leases (room_id, user_id, session_id, revision, expires_at)
    SELECT '${roomId}', user_id, session_id, 1, now() + interval '9 seconds' FROM s`);
  const result = (await database.db.execute(
    `SELECT session_id FROM presence_leases WHERE room_id = '${roomId}' ORDER BY session_id`,
  )) as unknown as { rows: Array<{ session_id: string }> };
  return result.rows.map((r) => r.session_id);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

async function measure(
  driver: Measurement['driver'],
  mode: Measurement['mode'],
  store: Store,
  counter: { count: () => number },
  sessions: string[],
  revisions: Map<string, number>,
): Promise<Measurement> {
  const next = (sessionId: string): RenewRequest => {
    const revision = (revisions.get(sessionId) ?? 1) + 1;
    revisions.set(sessionId, revision);
    return { sessionId, revision, requestId: randomUUID() };
  };
  const latencies: number[] = [];
  let renewals = 0;
  let accepted = 0;
  let calls = 0;
  let cursor = 0;
  const statementsBefore = counter.count();
  const start = performance.now();
  const deadline = start + SECONDS * 1_000;
  while (performance.now() < deadline) {
    const requests =
      mode === 'batched' ? sessions.map(next) : [next(sessions[cursor++ % sessions.length]!)];
    const t0 = performance.now();
    const outcomes = await store.renewLeases(requests, LEASE_TTL_MS);
    latencies.push(performance.now() - t0);
    calls++;
    renewals += requests.length;
    accepted += outcomes.filter((o) => o.decision === 'accepted').length;
  }
  const seconds = (performance.now() - start) / 1_000;
  latencies.sort((a, b) => a - b);
  return {
    driver,
    mode,
    leasesPerTick: mode === 'batched' ? sessions.length : 1,
    renewals,
    seconds: Number(seconds.toFixed(2)),
    renewalsPerSecond: Math.round(renewals / seconds),
    calls,
    statementsPerCall: Number(((counter.count() - statementsBefore) / calls).toFixed(2)),
    p50Ms: Number(percentile(latencies, 0.5).toFixed(2)),
    p95Ms: Number(percentile(latencies, 0.95).toFixed(2)),
    accepted,
  };
}

async function benchDriver(driver: Measurement['driver'], database: Database): Promise<Measurement[]> {
  const sessions = await seedLeases(database, LEASES);
  const counter = countStatements(database);
  const store = createStore(database);
  // Warm up plans and caches so the first measurement is not charged for them.
  await store.renewLeases(sessions.slice(0, 10).map((s) => ({ sessionId: s, revision: 1, requestId: randomUUID() })), LEASE_TTL_MS);
  // Shared by both measurements: each renewal must propose a revision above the stored one.
  const revisions = new Map(sessions.map((s) => [s, 1]));
  return [
    await measure(driver, 'single', store, counter, sessions, revisions),
    await measure(driver, 'batched', store, counter, sessions, revisions),
  ];
}

async function withScratchPostgres<T>(serverUrl: string, run: (database: Database) => Promise<T>): Promise<T> {
  const name = `wb_bench_${randomBytes(5).toString('hex')}`;
  // The server's own database, opened without migrating it: only CREATE and DROP DATABASE run there.
  const admin = async (statement: string) => {
    const server = await openDatabase({ kind: 'postgres', url: serverUrl, poolSize: 1, migrate: false });
    try {
      await server.db.execute(statement);
    } finally {
      await server.close();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 4 });
  try {
    return await run(database);
  } finally {
    await database.close();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

async function main(): Promise<void> {
  const results: Measurement[] = [];
  const pglite = await openDatabase({ kind: 'pglite' });
  try {
    results.push(...(await benchDriver('pglite', pglite)));
  } finally {
    await pglite.close();
  }
  let postgresVersion: string | null = null;
  if (process.env.BENCH_SKIP_POSTGRES !== '1') {
    const serverUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
    results.push(
      ...(await withScratchPostgres(serverUrl, async (database) => {
        const version = (await database.db.execute('SHOW server_version')) as unknown as { rows: Array<{ server_version: string }> };
        postgresVersion = version.rows[0]?.server_version ?? null;
        return benchDriver('postgres', database);
      })),
    );
  }

  // The load average says how much of the machine other processes took while this ran.
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    postgres: postgresVersion,
    loadAverage1m: Number((loadavg()[0] ?? 0).toFixed(2)),
  };
  const date = new Date().toISOString().slice(0, 10);
  const resultsDir = new URL('./results/', import.meta.url);
  mkdirSync(resultsDir, { recursive: true });
  const file = new URL(`store-${date}.json`, resultsDir);
  writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), secondsPerMeasurement: SECONDS, leasesPerTick: LEASES, machine, results }, null, 2)}\n`);

  console.log(
    `store bench: ${machine.cpus} cores, Node ${machine.node}, Postgres ${postgresVersion ?? 'skipped'}; ` +
      `${SECONDS} s per row; load average ${machine.loadAverage1m}`,
  );
  console.log('| driver | mode | renewals per call | renewals/s | calls | statements per call | p50 ms | p95 ms |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    console.log(
      `| ${r.driver} | ${r.mode} | ${r.leasesPerTick} | ${r.renewalsPerSecond.toLocaleString('en-US')} | ${r.calls} | ${r.statementsPerCall} | ${r.p50Ms} | ${r.p95Ms} |`,
    );
  }
  console.log(`wrote ${file.pathname}`);
  const rejected = results.filter((r) => r.accepted !== r.renewals);
  if (rejected.length > 0) {
    console.error('some renewals were not accepted; the figures measure the wrong path');
    process.exitCode = 1;
  }
}

await main();
