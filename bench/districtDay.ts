/**
 * The district day (issue 25): the same lesson load against one server process and against three
 * behind a balancer (tcpBalancer.ts), each on its own scratch Postgres database, the three joined
 * through Redis (sharded adapter, a key prefix of the run's own). Per 1,000 users: Postgres
 * statements per second and connections, the nodes' CPU and memory. Lids close at the window's
 * start: each lease must expire exactly once across the fleet (attendance facts, server counters,
 * client events). On the fleet, the sweeper's leader is killed (SIGKILL) a third into the window:
 * its users must be live again on the others within MOVE_BOUND_MS, nobody on the surviving nodes
 * may be evicted, and attendance must not show the moved users as lost.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import type { DistrictResult } from './generatorMessages.ts';
import { GeneratorHandle } from './generatorHandle.ts';
import { backendCpuSeconds, cpuSecondsBetween, type PostgresTarget } from './postgresBackends.ts';
import { coresUsed, loadAverage, type ProcSample } from './procStats.ts';
import { metricTotal, ServerUnderTest, statementCounters } from './serverUnderTest.ts';
import { TcpBalancer } from './tcpBalancer.ts';

const run = promisify(execFile);

/** The issue's bound: a killed node's users live again on the others within 5 s. */
export const MOVE_BOUND_MS = 5_000;
const LEASE_TTL_MS = 9_000;
const SWEEP_INTERVAL_MS = 1_000;

export interface DistrictOptions {
  /** Admin URL of the Postgres server; the run creates and drops `<dbPrefix>_district_*` databases there. */
  adminUrl: string;
  redisUrl: string;
  dbPrefix: string;
  /** First server port; the fleet uses the next three, the balancer `balancerPort`. */
  basePort: number;
  balancerPort: number;
  rooms: number;
  warmupMs: number;
  windowMs: number;
  lidCloses: number;
}

export interface DistrictPhase {
  label: string;
  nodes: number;
  users: number;
  /** Handshakes retried before the window (they timed out on a loaded machine). */
  connectRetries: number;
  liveAtEnd: number;
  windowS: number;
  /** Every statement the nodes sent (wb_db_statements_total), per second, and per second per 1,000 users. */
  statementsPerSec: number;
  statementsPerSecPer1000: number;
  statementsPerSecByKind: Record<string, number>;
  /** Before any kill: the load's own cost (the whole window on one process, up to the kill on the fleet). */
  steady: { seconds: number; statementsPerSecPer1000: number; statementsPerSecByKind: Record<string, number> };
  /** Backends connected to the phase's database: the most seen in the window, and per 1,000 users. */
  connectionsMax: number;
  connectionsPer1000: number;
  nodeCores: number[];
  nodeRssMb: number[];
  postgresCores: number;
  generatorCores: number;
  expiry: {
    lidCloses: number;
    /** lease_expired attendance facts of the lid-closed sessions (the database's count). */
    attendanceFacts: number;
    /** wb_lease_expiries_total summed over the nodes (a killed node's as last read). */
    serverExpiries: number;
    clientEvents: number;
    duplicateDeliveries: number;
    exactlyOnce: boolean;
  };
  kill: null | {
    atS: number;
    node: string;
    wasLeader: boolean;
    dropped: number;
    movedLive: number;
    moveMs: DistrictResult['moveMs'];
    moveAttemptsFailed: number;
    falseEvictionsStayed: number;
    falseEvictionsMoved: number;
    /** Attendance facts of the moved sessions in the window: lease_expired must be 0. */
    movedLost: number;
    movedReconnected: number;
    movedOtherFacts: number;
    balancerConnections: Record<string, number>;
    /** Statements after the kill beyond the steady rate's share: roughly the failover's cost per moved user. */
    statementsPerMovedUser: number;
  };
  falseEvictions: number;
  pass: boolean;
  failedBecause: string[];
  loadAverage1m: number;
}

export interface DistrictDayResult {
  rooms: number;
  users: number;
  moveBoundMs: number;
  single: DistrictPhase | null;
  fleet: DistrictPhase | null;
  pass: boolean;
}

export async function districtDay(options: DistrictOptions, log: (line: string) => void): Promise<DistrictDayResult> {
  // Short (a database name and a REDIS_PREFIX of at most 40 characters are built from it).
  const stamp = `${process.pid.toString(36)}${Date.now().toString(36)}`;
  const single = await phase(options, { label: 'one process', nodes: 1, database: `${options.dbPrefix}_district_one_${stamp}`, kill: false }, log);
  const fleet = await phase(options, { label: 'three processes behind a balancer', nodes: 3, database: `${options.dbPrefix}_district_three_${stamp}`, kill: true }, log);
  return { rooms: options.rooms, users: fleet.users, moveBoundMs: MOVE_BOUND_MS, single, fleet, pass: single.pass && fleet.pass };
}

async function phase(
  options: DistrictOptions,
  plan: { label: string; nodes: number; database: string; kill: boolean },
  log: (line: string) => void,
): Promise<DistrictPhase> {
  if (!/^[a-z0-9_]+$/.test(plan.database)) throw new Error(`unexpected database name ${plan.database}`);
  const psql = (sql: string) => execFileSync('psql', [options.adminUrl, '-v', 'ON_ERROR_STOP=1', '-Atc', sql], { stdio: 'pipe', encoding: 'utf8' });
  psql(`CREATE DATABASE ${plan.database}`);
  const databaseUrl = new URL(options.adminUrl);
  databaseUrl.pathname = `/${plan.database}`;
  const target: PostgresTarget = { adminUrl: options.adminUrl, database: plan.database };
  const nodes: ServerUnderTest[] = [];
  let balancer: TcpBalancer | null = null;
  let generator: GeneratorHandle | null = null;
  try {
    const env: Record<string, string> = {
      DATABASE_URL: databaseUrl.toString(),
      LEASE_TTL_MS: String(LEASE_TTL_MS),
      SWEEP_INTERVAL_MS: String(SWEEP_INTERVAL_MS),
      ...(plan.nodes > 1 ? { REDIS_URL: options.redisUrl, REDIS_ADAPTER: 'sharded', REDIS_PREFIX: `${plan.database}` } : {}),
    };
    // The first node migrates alone; the others start on a migrated database, as behind `db:migrate`.
    const portOf = (i: number) => options.basePort + (plan.nodes > 1 ? 1 + i : 0);
    nodes.push(await ServerUnderTest.start('product', { env: { ...env, PORT: String(portOf(0)) } }));
    nodes.push(...(await Promise.all(Array.from({ length: plan.nodes - 1 }, (_, i) => ServerUnderTest.start('product', { env: { ...env, PORT: String(portOf(i + 1)) } })))));
    balancer = await TcpBalancer.start(
      nodes.map((n) => n.url),
      options.balancerPort,
    );
    generator = await GeneratorHandle.start({ url: balancer.url, kind: 'product' });
    log(`district (${plan.label}): ${nodes.map((n) => n.url).join(', ')} behind ${balancer.url}; setting up ${options.rooms} rooms`);
    const setup = await generator.call('setup', { rooms: options.rooms });
    log(`district (${plan.label}): ${setup.users} users joined in ${(setup.ms / 1000).toFixed(1)} s; lesson window ${options.windowMs / 1000} s`);

    // Window edges: every node's /metrics and /proc, the backends' CPU, the generator's CPU.
    // Filled in by the mark listener (an object, so the reads below are not narrowed to null).
    const marks: { start: Promise<Edge> | null; end: Promise<Edge> | null; killed: Promise<KillRecord> | null } = { start: null, end: null, killed: null };
    const connectionSamples: number[] = [];
    let sampler: NodeJS.Timeout | null = null;
    let killTimer: NodeJS.Timeout | null = null;
    const killAtMs = Math.round(options.windowMs / 3);
    const stopMarks = generator.onMark((name) => {
      if (name === 'windowStart') {
        marks.start = readEdge(nodes, target, generator!);
        sampler = setInterval(() => {
          void countConnections(options.adminUrl, plan.database).then((n) => connectionSamples.push(n), () => undefined);
        }, 1_000);
        if (plan.kill) killTimer = setTimeout(() => (marks.killed = killLeader(nodes, log)), killAtMs);
      } else if (name === 'windowEnd') {
        marks.end = readEdge(nodes, target, generator!);
        if (sampler) clearInterval(sampler);
      }
    });
    let result: DistrictResult;
    try {
      result = await generator.call('district', {
        rooms: options.rooms,
        warmupMs: options.warmupMs,
        windowMs: options.windowMs,
        lidCloses: options.lidCloses,
        // The web client's first reconnect: Socket.IO's reconnectionDelay 500 ms ± 50 % (roomClient.ts).
        reconnectDelayMs: { min: 250, max: 750 },
        settleBoundMs: 15_000,
      });
    } finally {
      stopMarks();
      if (sampler) clearInterval(sampler);
      if (killTimer) clearTimeout(killTimer);
    }
    if (!marks.start || !marks.end) throw new Error('the generator marked no window');
    const start = await marks.start;
    const end = await marks.end;
    const kill = marks.killed ? await marks.killed : null;
    const windowS = options.windowMs / 1000;

    // Counters: a killed node's are as read just before the kill.
    const statementDelta: Record<string, number> = {};
    let statements = 0;
    let serverExpiries = 0;
    const nodeCores: number[] = [];
    const nodeRssMb: number[] = [];
    nodes.forEach((node, i) => {
      const from = start.nodes[i];
      const to = kill?.index === i ? kill.edge : end.nodes[i];
      if (!from || !to) return;
      statements += metricTotal(to.metrics, 'wb_db_statements_total') - metricTotal(from.metrics, 'wb_db_statements_total');
      serverExpiries += metricTotal(to.metrics, 'wb_lease_expiries_total') - metricTotal(from.metrics, 'wb_lease_expiries_total');
      const fromKinds = statementCounters(from.metrics);
      for (const [kind, value] of Object.entries(statementCounters(to.metrics))) {
        if (!kind.startsWith('db:')) continue;
        statementDelta[kind] = (statementDelta[kind] ?? 0) + value - (fromKinds[kind] ?? 0);
      }
      nodeCores.push(coresUsed(from.proc, to.proc));
      nodeRssMb.push(to.proc.rssBytes / 2 ** 20);
    });
    const users = result.users;
    const per1000 = (value: number) => (value / users) * 1000;
    // Steady state: the whole window on one process; on the fleet, the window up to the kill
    // (after it, the moved users' handshakes and syncs are the failover's cost, reported apart).
    const steadyTo = kill ? kill.nodes : end.nodes;
    let steadyStatements = 0;
    let steadyS = 0;
    const steadyByKind: Record<string, number> = {};
    nodes.forEach((_, i) => {
      const from = start.nodes[i];
      const to = steadyTo[i];
      if (!from || !to) return;
      steadyStatements += metricTotal(to.metrics, 'wb_db_statements_total') - metricTotal(from.metrics, 'wb_db_statements_total');
      steadyS = Math.max(steadyS, (to.proc.at - from.proc.at) / 1000);
      const fromKinds = statementCounters(from.metrics);
      for (const [kind, value] of Object.entries(statementCounters(to.metrics))) {
        if (kind.startsWith('db:')) steadyByKind[kind.slice(3)] = (steadyByKind[kind.slice(3)] ?? 0) + value - (fromKinds[kind] ?? 0);
      }
    });
    // After the kill, beyond what the steady rate would have sent in that time.
    const afterKillS = Math.max(0, windowS - steadyS);
    const failoverStatements = kill && steadyS > 0 ? statements - steadyStatements - (steadyStatements / steadyS) * afterKillS : 0;
    const connectionsMax = connectionSamples.length ? Math.max(...connectionSamples) : Number.NaN;

    const facts = await attendanceFacts(options.adminUrl, plan.database, [...result.movedSessions, ...result.lidClosedSessions]);
    const closedExpiries = result.lidClosedSessions.map((s) => facts.get(s)?.lease_expired ?? 0);
    const moved = result.movedSessions.map((s) => facts.get(s) ?? {});
    const sumKind = (rows: Record<string, number>[], kind: string) => rows.reduce((t, r) => t + (r[kind] ?? 0), 0);
    const movedLost = sumKind(moved, 'lease_expired');
    const movedReconnected = sumKind(moved, 'reconnected');
    const movedAll = moved.reduce((t, r) => t + Object.values(r).reduce((a, b) => a + b, 0), 0);

    const expiry = {
      lidCloses: result.lidClosedSessions.length,
      attendanceFacts: closedExpiries.reduce((a, b) => a + b, 0),
      serverExpiries,
      clientEvents: result.expiredEventsForClosed,
      duplicateDeliveries: result.duplicateDeliveries,
      exactlyOnce:
        closedExpiries.every((n) => n === 1) &&
        serverExpiries === result.lidClosedSessions.length &&
        result.expiredEventsForClosed === result.lidClosedSessions.length &&
        result.duplicateDeliveries === 0,
    };
    const phaseResult: DistrictPhase = {
      label: plan.label,
      nodes: plan.nodes,
      users,
      connectRetries: result.connectRetries,
      liveAtEnd: result.liveAtEnd,
      windowS,
      statementsPerSec: statements / windowS,
      statementsPerSecPer1000: per1000(statements / windowS),
      statementsPerSecByKind: Object.fromEntries(Object.entries(statementDelta).map(([k, v]) => [k.slice(3), v / windowS])),
      steady: {
        seconds: steadyS,
        statementsPerSecPer1000: steadyS > 0 ? per1000(steadyStatements / steadyS) : Number.NaN,
        statementsPerSecByKind: Object.fromEntries(Object.entries(steadyByKind).map(([k, v]) => [k, steadyS > 0 ? v / steadyS : Number.NaN])),
      },
      connectionsMax,
      connectionsPer1000: per1000(connectionsMax),
      nodeCores,
      nodeRssMb,
      postgresCores: cpuSecondsBetween(start.backends, end.backends) / windowS,
      generatorCores: coresUsed(start.generator, end.generator),
      expiry,
      kill: kill
        ? {
            atS: killAtMs / 1000,
            node: kill.url,
            wasLeader: kill.wasLeader,
            dropped: result.dropped,
            movedLive: result.movedLive,
            moveMs: result.moveMs,
            moveAttemptsFailed: result.moveAttemptsFailed,
            falseEvictionsStayed: result.falseEvictionsStayed,
            falseEvictionsMoved: result.falseEvictionsMoved,
            movedLost,
            movedReconnected,
            movedOtherFacts: movedAll - movedLost - movedReconnected,
            balancerConnections: balancer.connectionsByBackend(),
            statementsPerMovedUser: result.dropped > 0 ? failoverStatements / result.dropped : Number.NaN,
          }
        : null,
      falseEvictions: result.falseEvictionsStayed + result.falseEvictionsMoved,
      pass: false,
      failedBecause: [],
      loadAverage1m: loadAverage()[0],
    };
    const failed = phaseResult.failedBecause;
    const aliveUsers = users - expiry.lidCloses;
    if (result.liveAtEnd !== aliveUsers) failed.push(`${aliveUsers - result.liveAtEnd} users not live at the end`);
    if (!expiry.exactlyOnce) failed.push('an expiry was not exactly once');
    if (phaseResult.falseEvictions > 0) failed.push(`${phaseResult.falseEvictions} false evictions`);
    if (plan.kill) {
      const k = phaseResult.kill;
      if (!k) failed.push('no node was killed');
      else {
        if (k.dropped === 0) failed.push('the kill dropped nobody');
        if (k.movedLive !== k.dropped) failed.push(`${k.dropped - k.movedLive} dropped users never came back`);
        if (!(k.moveMs.max <= MOVE_BOUND_MS)) failed.push(`slowest move ${k.moveMs.max.toFixed(0)} ms > ${MOVE_BOUND_MS} ms`);
        if (k.movedLost > 0) failed.push(`${k.movedLost} moved users recorded as lost`);
      }
    }
    phaseResult.pass = failed.length === 0;
    log(
      `district (${plan.label}): ${result.liveAtEnd}/${aliveUsers} live; ${phaseResult.statementsPerSecPer1000.toFixed(1)} statements/s and ${phaseResult.connectionsPer1000.toFixed(1)} connections per 1,000 users; ` +
        `expiries ${expiry.attendanceFacts}/${expiry.lidCloses} (server ${serverExpiries}, clients ${expiry.clientEvents})` +
        (phaseResult.kill
          ? `; killed ${phaseResult.kill.node}${phaseResult.kill.wasLeader ? ' (sweeper leader)' : ''}: ${phaseResult.kill.movedLive}/${phaseResult.kill.dropped} moved, max ${phaseResult.kill.moveMs.max.toFixed(0)} ms, false evictions ${phaseResult.kill.falseEvictionsStayed} stayed / ${phaseResult.kill.falseEvictionsMoved} moved, lost in attendance ${movedLost}`
          : '') +
        `${failed.length ? `; FAILED: ${failed.join('; ')}` : ''}`,
    );
    return phaseResult;
  } finally {
    await generator?.stop();
    await balancer?.stop();
    await Promise.all(nodes.map((n) => n.stop()));
    psql(`DROP DATABASE IF EXISTS ${plan.database} WITH (FORCE)`);
    if (plan.nodes > 1) await dropRedisKeys(options.redisUrl, plan.database).catch(() => undefined);
  }
}

/** The phase's rate-limit buckets (`<prefix>:limit:*`): they would expire within the hour anyway. */
async function dropRedisKeys(redisUrl: string, prefix: string): Promise<void> {
  const { stdout } = await run('redis-cli', ['-u', redisUrl, '--scan', '--pattern', `${prefix}:*`], { maxBuffer: 16 * 2 ** 20 });
  const keys = stdout.split('\n').filter(Boolean);
  for (let i = 0; i < keys.length; i += 500) await run('redis-cli', ['-u', redisUrl, 'DEL', ...keys.slice(i, i + 500)]);
}

interface NodeEdge {
  metrics: Map<string, number>;
  proc: ProcSample;
}

interface Edge {
  nodes: (NodeEdge | null)[];
  backends: Map<number, number>;
  generator: ProcSample;
}

interface KillRecord {
  index: number;
  url: string;
  wasLeader: boolean;
  edge: NodeEdge;
  /** Every node just before the kill: the fleet's steady state is the window up to here. */
  nodes: (NodeEdge | null)[];
}

async function readNode(node: ServerUnderTest): Promise<NodeEdge | null> {
  try {
    return { proc: node.sample(), metrics: await node.metrics() };
  } catch {
    return null; // killed already
  }
}

async function readEdge(nodes: ServerUnderTest[], target: PostgresTarget, generator: GeneratorHandle): Promise<Edge> {
  const generatorSample = generator.sample();
  const [edges, backends] = await Promise.all([Promise.all(nodes.map(readNode)), backendCpuSeconds(target)]);
  return { nodes: edges, backends, generator: generatorSample };
}

/**
 * Kills the node that is sweeping now (the leader: the only one sending `sweep` statements), so
 * the kill also proves that another node takes the sweep over. Reads its counters first.
 */
async function killLeader(nodes: ServerUnderTest[], log: (line: string) => void): Promise<KillRecord> {
  const sweeps = async () => Promise.all(nodes.map(async (n) => statementCounters(await n.metrics())['db:sweep'] ?? 0));
  const before = await sweeps();
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  const after = await sweeps();
  const rates = after.map((v, i) => v - (before[i] ?? 0));
  const leader = rates.indexOf(Math.max(...rates));
  const index = leader >= 0 && (rates[leader] ?? 0) > 0 ? leader : 1;
  const node = nodes[index]!;
  const all = await Promise.all(nodes.map(readNode));
  const edge = all[index] ?? null;
  await node.kill();
  log(`district: killed ${node.url} (SIGKILL)${index === leader ? ', the sweeper leader' : ''}`);
  return { index, url: node.url, wasLeader: index === leader && (rates[leader] ?? 0) > 0, edge: edge ?? { metrics: new Map(), proc: node.sample() }, nodes: all };
}

async function countConnections(adminUrl: string, database: string): Promise<number> {
  const { stdout } = await run('psql', [adminUrl, '-Atc', `SELECT count(*) FROM pg_stat_activity WHERE datname = '${database}'`]);
  return Number(stdout.trim());
}

/** Attendance facts after the join, by session and kind, for the given sessions (UUIDs, checked). */
async function attendanceFacts(adminUrl: string, database: string, sessions: string[]): Promise<Map<string, Record<string, number>>> {
  const byKind = new Map<string, Record<string, number>>();
  const ids = sessions.filter((s) => /^[0-9a-f-]{36}$/.test(s));
  if (ids.length === 0) return byKind;
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const list = ids.map((s) => `'${s}'`).join(',');
  const { stdout } = await run('psql', [url.toString(), '-Atc', `SELECT session_id, kind, count(*) FROM attendance WHERE session_id IN (${list}) AND kind <> 'joined' GROUP BY 1, 2`], {
    maxBuffer: 16 * 2 ** 20,
  });
  for (const line of stdout.split('\n')) {
    const [session, kind, count] = line.split('|');
    if (!session || !kind) continue;
    const entry = byKind.get(session) ?? {};
    entry[kind] = Number(count);
    byKind.set(session, entry);
  }
  return byKind;
}
