/**
 * `pnpm bench` (short, under 5 minutes, plus about 3 for the district day) and `pnpm bench --full` (the whole sweep): the realtime
 * benchmarks of issue 9. Starts the servers under test and one load-generator process per server,
 * runs the scenarios in order, prints markdown tables and writes JSON to bench/results/.
 *
 * Options: --full; --only=capacity,quiet,locks,ghost,churn,storm,memory,pages,drawing,boards,pdf,district (a subset, for
 * development); --points=1,2,4 (the room points of the capacity and drawing sweeps;
 * --drawing-points= for the drawing sweep alone); --cpu-prof (profile the product server of the
 * capacity sweep into bench/results/profiles/); --database=postgres or --postgres=<url> (the product
 * on a real Postgres database that this run creates and drops, instead of PGlite); --client=socket.io
 * (the generator on socket.io-client instead of its wire client, see benchSocket.ts); --soak-min=N
 * (the memory soak's length in minutes); --server-node-flags="--flag ..." (Node flags for the product
 * server, e.g. GC settings); --generator-threads=N (the cursor-load generators run their rooms on N
 * threads); --repeats=N (windows per point) and --product-only (no bare relay), for comparing builds;
 * --pass-windows=N (a point passes when N of its windows pass; default all); --lines=product,
 * productTeacher,bare (the capacity sweep's lines: students see everyone's cursor, only the
 * teacher's (a new lesson's default), and the bare relay; default all three).
 * Placement (placement.ts): --pin (the server under test on core 0, generators on core 1;
 * --pin=S:G for other cores) or --pin=both (the capacity and drawing sweeps shared, then pinned).
 * Drawing class (drawingClass.ts): --other-load=N (N busy processes beside it), --cursor-hz=N
 * (its cursors; 0 for none), --no-overload (no window at 1.5x the knee), --live-ink (strokes also
 * sent as live ink while drawn, its point delivery measured: see drawingWorkload.ts).
 * District day (districtDay.ts, always on Postgres and Redis): --quick (310 users), --district-users=N,
 * --redis=<url>, --db-prefix=<name> (its scratch databases are <name>_district_*; default wb_bench),
 * --district-port=N (its servers on N..N+3, the balancer on N+9; default 3341).
 * Issue 42: --only=ab with --baseline=<checkout> or --baseline-ref=<git ref> (the A/B of two builds
 * on the drawing class with live ink, same run; --ab-points=4,8), --tick=<ms> (a fixed cursor tick
 * for both builds), --only=lecture (1 teacher + 150 students in one lesson; --lecture-members=);
 * the drawing sweep also runs the bare relay of its traffic unless --product-only.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { capacitySweep, measurePoint, LEGACY_PASS, PASS, SWEEP_LINES, formatPointLine, type CapacityResult, type PointResult, type SweepLine, type Timing } from './cursorCapacity.ts';
import { pagesLesson, type PagesLessonResult } from './pagesLesson.ts';
import { BOARDS_PASS, privateClassSweep, type PrivateClassPoint, type PrivateClassTiming } from './privateClass.ts';
import { DRAWING_PASS, drawingAB, drawingSweep, meanRatios, OVERLOAD_PASS, type DrawingABResult, type DrawingResult, type DrawingTiming } from './drawingClass.ts';
import { baselineCheckout, commitOf, protocolVersionOf } from './baseline.ts';
import { LECTURE_MEMBERS, lectureHall, type LectureResult } from './lectureHall.ts';
import { OtherLoad } from './otherLoad.ts';
import { parsePinOption, placement, type PlacementMode } from './placement.ts';
import type { PostgresTarget } from './postgresBackends.ts';
import { GeneratorHandle } from './generatorHandle.ts';
import { districtDay, type DistrictDayResult } from './districtDay.ts';
import { pdfBench, type PdfBenchResult } from './pdfInOut.ts';
import { ghostTime, type GhostTimeResult } from './ghostTime.ts';
import { idleMemory, type IdleMemoryResult } from './idleMemory.ts';
import { presenceChurn, type PresenceChurnResult } from './presenceChurn.ts';
import { lockContention, type LockContentionResult } from './lockContention.ts';
import { loadAverage } from './procStats.ts';
import { reconnectStorm, type ReconnectStormResult } from './reconnectStorm.ts';
import { productRoot, repoRoot, ServerUnderTest } from './serverUnderTest.ts';
import { renderReport } from './report.ts';

// The drawing class runs last: it leaves thousands of strokes in the database, and its overload
// point may leave the server busy for a while.
// The district day runs after everything else, on servers of its own (Postgres and Redis).
// PDF in and out (pdfInOut.ts) runs on servers and a browser of its own, before the district day.
const SCENARIOS = ['capacity', 'quiet', 'locks', 'ghost', 'churn', 'storm', 'memory', 'pages', 'drawing', 'ab', 'lecture', 'boards', 'pdf', 'district'] as const;
type Scenario = (typeof SCENARIOS)[number];

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(`--${name}`);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const full = flag('full');
const only = new Set((option('only')?.split(',') ?? SCENARIOS) as Scenario[]);
const LEASE_TTL_MS = 9_000;
const SWEEP_INTERVAL_MS = 1_000;

/** Every duration and count below is bounded; the short profile fits in under five minutes (the district day's servers aside). */
const profile = full
  ? {
      // Past 48 only the default-mode line (students see the teacher's cursor) is expected to pass.
      points: [1, 2, 4, 8, 12, 16, 20, 24, 28, 32, 40, 48, 64, 80, 96],
      timing: { warmupMs: 5_000, windowMs: 20_000, drainMs: 1_000, repeats: 2 } satisfies Timing,
      locks: { windowMs: 20_000, elements: 10, laggards: 5, cursorRooms: 4 },
      ghost: { rooms: 4, closesPerRoom: 5, rounds: 5 },
      churn: { rooms: 17, warmupMs: 5_000, windowMs: 120_000, lidCloses: 10 },
      storm: { rooms: 16, timeoutMs: 120_000 },
      memory: { rooms: 33, settleMs: 10_000, soakMs: 600_000, sampleEveryMs: 30_000 },
      drawingPoints: [1, 2, 3, 4, 6, 8, 12],
      drawing: { warmupMs: 5_000, windowMs: 20_000, drainBoundMs: 30_000, repeats: 2 } satisfies DrawingTiming,
      abPoints: [4, 8],
      lecture: { warmupMs: 5_000, windowMs: 20_000, drainBoundMs: 30_000, repeats: 1 } satisfies DrawingTiming,
      ab: { warmupMs: 5_000, windowMs: 20_000, drainBoundMs: 30_000, repeats: 2 } satisfies DrawingTiming,
      boardsPoints: [1, 2, 4],
      boards: { warmupMs: 5_000, windowMs: 20_000, grouped: !flag('boards-ungrouped') } satisfies PrivateClassTiming,
      district: { rooms: 33, warmupMs: 5_000, windowMs: 60_000, lidCloses: 10 },
    }
  : {
      // The default-mode line may pass all of these: the short run bounds its time, not the line
      // (--points=...,48,64 to go on; --full does).
      points: [1, 2, 4, 8, 16, 24, 32],
      timing: { warmupMs: 2_000, windowMs: 5_000, drainMs: 500, repeats: 1 } satisfies Timing,
      // Two 8 s lock runs, a 4 s cursor baseline and setup: about 45 s on this machine.
      locks: { windowMs: 8_000, elements: 10, laggards: 5, cursorRooms: 4 },
      ghost: { rooms: 2, closesPerRoom: 5, rounds: 1 },
      churn: { rooms: 17, warmupMs: 3_000, windowMs: 20_000, lidCloses: 5 },
      storm: { rooms: 16, timeoutMs: 60_000 },
      memory: { rooms: 33, settleMs: 3_000, soakMs: 15_000, sampleEveryMs: 5_000 },
      drawingPoints: [1, 2, 4],
      drawing: { warmupMs: 2_000, windowMs: 5_000, drainBoundMs: 10_000, repeats: 1 } satisfies DrawingTiming,
      abPoints: [4],
      lecture: { warmupMs: 3_000, windowMs: 8_000, drainBoundMs: 10_000, repeats: 1 } satisfies DrawingTiming,
      ab: { warmupMs: 2_000, windowMs: 8_000, drainBoundMs: 10_000, repeats: 2 } satisfies DrawingTiming,
      boardsPoints: [1, 2, 4],
      boards: { warmupMs: 2_000, windowMs: 8_000, grouped: !flag('boards-ungrouped') } satisfies PrivateClassTiming,
      district: { rooms: 20, warmupMs: 3_000, windowMs: 40_000, lidCloses: 8 },
    };
// --quick: the district day at 310 users and a 30 s window (a third in, the kill; then a lease
// term and more for any false eviction to show); --district-users=N: rooms of 31 for N users.
if (flag('quick')) profile.district = { rooms: 10, warmupMs: 3_000, windowMs: 30_000, lidCloses: 5 };
const districtUsers = option('district-users');
if (districtUsers) profile.district = { ...profile.district, rooms: Math.ceil(Number(districtUsers) / 31) };
// The generator's client: the wire client by default, socket.io-client to cross-check it.
if (option('client') === 'socket.io') process.env.BENCH_CLIENT = 'socket.io';
const points = option('points')?.split(',').map(Number) ?? profile.points;
// For comparing two builds of the product: more repeats per point, and the bare relay left out.
const repeatsOption = option('repeats');
if (repeatsOption) {
  profile.timing = { ...profile.timing, repeats: Number(repeatsOption) };
  profile.drawing = { ...profile.drawing, repeats: Number(repeatsOption) };
  profile.ab = { ...profile.ab, repeats: Number(repeatsOption) };
}
const abPoints = option('ab-points')?.split(',').map(Number) ?? profile.abPoints;
/**
 * The A/B's baseline build (issue 42): a checkout given by --baseline=<dir> (installed), or a git
 * ref given by --baseline-ref=<ref>, checked out and installed beside this one (baseline.ts).
 */
const baselineDirOption = option('baseline');
/** --tick=<ms>: the product servers' cursor tick fixed at this (both builds of an A/B), so CPU per stroke compares the work at one tick rate rather than the adaptive tick's reading of the machine's load. */
const tickOption = option('tick');
const tickEnv: Record<string, string> = tickOption ? { CURSOR_TICK_MIN_MS: tickOption, CURSOR_TICK_MS: tickOption, CURSOR_TICK_OVERLOAD_MS: tickOption } : {};
const baselineRefOption = option('baseline-ref');
const drawingPoints = option('drawing-points')?.split(',').map(Number) ?? (option('points') ? points : profile.drawingPoints);
const passWindowsOption = option('pass-windows');
const windowsNeeded = passWindowsOption ? Number(passWindowsOption) : null;
// --pin: every scenario pinned; --pin=both: the capacity and drawing sweeps shared, then pinned.
const pinOption = args.find((a) => a === '--pin' || a.startsWith('--pin='))?.slice('--pin='.length);
const modes: PlacementMode[] = pinOption === undefined ? ['shared'] : pinOption === 'both' ? ['shared', 'pinned'] : ['pinned'];
if (pinOption !== undefined) placement.configure(parsePinOption(pinOption || undefined));
const otherLoadCores = Number(option('other-load') ?? 0);
const drawingOptions = {
  cursorHz: Number(option('cursor-hz') ?? 30),
  liveInk: flag('live-ink'),
  overload: !flag('no-overload'),
  windowsNeeded,
};
/** The admin database `--database=postgres` creates its scratch database from (as the Postgres runs did). */
const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const postgresUrl = option('postgres') ?? (option('database') === 'postgres' ? DEFAULT_POSTGRES_URL : undefined);
if (option('database') && !['postgres', 'pglite'].includes(option('database') ?? '')) throw new Error('--database is postgres or pglite');
const productOnly = flag('product-only');
/** The capacity sweep's lines (--lines=product,productTeacher,bare; default all three, see cursorCapacity.ts). */
const lines = (option('lines')?.split(',') ?? SWEEP_LINES) as SweepLine[];
for (const line of lines) if (!SWEEP_LINES.includes(line)) throw new Error(`--lines takes ${SWEEP_LINES.join(', ')} (not ${line})`);
// A longer memory soak than the profile's, in minutes (e.g. --soak-min=40), sampled every 30 s.
const soakMin = option('soak-min');
/**
 * Threads of the capacity and quiet-room generators (--generator-threads=N): each thread runs its
 * own share of the rooms, so no single event loop of the generator is near saturation.
 */
// Two by default: one generator thread reached 35 ms event-loop p99 at 16 rooms, its own queueing
// then counted as the server's latency (bench/HISTORY.md, 2026-11-30 20:19).
const generatorThreads = Number(option('generator-threads') ?? 2);
const threadsEnv: Record<string, string> = { BENCH_GENERATOR_THREADS: String(generatorThreads) };
/** Loopback source addresses of a threaded cursor generator's rooms (the lock generator uses 500+). */
const CURSOR_GENERATOR_ADDRESS_OFFSET = '1000';
/** ...and the drawing class's (each window joins rooms of its own, so it needs many). */
const DRAWING_GENERATOR_ADDRESS_OFFSET = '2000';
/** ...and the A/B's two generators' (each build's rooms from addresses of their own). */
const AB_CANDIDATE_ADDRESS_OFFSET = '5000';
const AB_BASELINE_ADDRESS_OFFSET = '7000';
/** ...and the lecture hall's. */
const LECTURE_ADDRESS_OFFSET = '9000';
if (soakMin) profile.memory = { ...profile.memory, soakMs: Number(soakMin) * 60_000, sampleEveryMs: 30_000 };

export interface BenchReport {
  name: string;
  command: string;
  startedAt: string;
  finishedAt: string;
  durationS: number;
  client: string;
  /** Threads of the capacity and quiet-room generators (--generator-threads). */
  generatorThreads: number;
  machine: { cores: number; cpuModel: string; memoryGb: number; node: string; loadAverageStart: number[]; loadAverageEnd: number[] };
  database: string;
  /** The cursor pass rule (merged counted p99) and today's, which the capacity also reports. */
  passRule: typeof PASS;
  legacyPassRule: typeof LEGACY_PASS;
  drawingPassRule: { pass: typeof DRAWING_PASS; overload: typeof OVERLOAD_PASS };
  /** Placement modes of the run ('shared' only before issue 19). */
  modes: PlacementMode[];
  timing: Timing;
  /** The capacity sweep in the run's first mode, and pinned beside it with --pin=both. */
  capacity?: CapacityResult;
  capacityPinned?: CapacityResult;
  drawing?: DrawingResult;
  drawingPinned?: DrawingResult;
  /** The bare relay of the same drawing traffic, swept in the same run (issue 42). */
  drawingBare?: DrawingResult;
  drawingBarePinned?: DrawingResult;
  /** The lecture hall: 1 + 150 in one lesson (issue 42). */
  lecture?: LectureResult;
  /** The A/B of two builds on the drawing class with live ink (issue 42). */
  drawingAB?: DrawingABResult;
  /** The private-board class (issue 22): 1, 2 and 4 classes of 1 + 30, each student on their own board. */
  boards?: { passRule: typeof BOARDS_PASS; points: PrivateClassPoint[] };
  /** Pages (issue 39): opening a 50-page lesson, a class of 30 following the teacher's page. */
  pages?: PagesLessonResult;
  quietRoom?: { allMove: PointResult | null; oneMover: PointResult };
  locks?: LockContentionResult;
  ghost?: GhostTimeResult;
  churn?: PresenceChurnResult;
  storm?: ReconnectStormResult;
  memory?: IdleMemoryResult;
  district?: DistrictDayResult;
  /** Importing a 50-page PDF in a tab, exporting a 30-page lesson to PDF (issue 39). */
  pdf?: PdfBenchResult;
  errors: string[];
}

function log(line: string): void {
  console.log(`[${new Date().toISOString().slice(11, 19)} load ${loadAverage()[0].toFixed(2)}] ${line}`);
}

async function withProductDatabase<T>(work: (env: Record<string, string>, label: string, postgres: PostgresTarget | null) => Promise<T>): Promise<T> {
  const adminUrl = postgresUrl;
  if (!adminUrl) return work({}, 'PGlite (embedded, in the server process)', null);
  // A scratch database per run, created and dropped here; never one somebody else uses.
  const name = `wb_bench_${process.pid}_${Date.now()}`;
  const psql = (sql: string) => execFileSync('psql', [adminUrl, '-v', 'ON_ERROR_STOP=1', '-c', sql], { stdio: 'pipe' });
  psql(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    return await work({ DATABASE_URL: url.toString() }, `PostgreSQL on loopback (${url.host})`, { adminUrl, database: name });
  } finally {
    psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

async function main(): Promise<void> {
  const started = new Date();
  const report: BenchReport = {
    name: full ? 'realtime-full' : 'realtime',
    command: `pnpm bench${args.length ? ` ${args.join(' ')}` : ''}`,
    startedAt: started.toISOString(),
    client: process.env.BENCH_CLIENT === 'socket.io' ? 'socket.io-client' : 'wire (ws)',
    generatorThreads,
    finishedAt: '',
    durationS: 0,
    machine: {
      cores: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      memoryGb: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      loadAverageStart: loadAverage(),
      loadAverageEnd: [],
    },
    database: '',
    passRule: PASS,
    legacyPassRule: LEGACY_PASS,
    drawingPassRule: { pass: DRAWING_PASS, overload: OVERLOAD_PASS },
    modes,
    timing: profile.timing,
    errors: [],
  };
  log(`${report.command}: ${report.machine.cores} cores, Node ${process.version}, scenarios ${[...only].join(', ')}`);

  // The district day and PDF in and out start servers of their own.
  const onProduct = [...only].some((scenario) => scenario !== 'district' && scenario !== 'pdf');
  if (onProduct) await withProductDatabase(async (databaseEnv, databaseLabel, postgres) => {
    report.database = databaseLabel;
    const firstMode = modes[0] ?? 'shared';
    placement.apply(firstMode);
    // One product server for the whole run: its start (PGlite init and migrations) takes
    // 10-30 s on this machine, and the sessions joined for one scenario serve the next. Default
    // lease settings throughout (the ghost-time target is term + sweep).
    const profileDir = join(repoRoot, 'bench/results/profiles');
    if (flag('cpu-prof')) mkdirSync(profileDir, { recursive: true });
    const product = await ServerUnderTest.start('product', {
      env: { ...databaseEnv, LEASE_TTL_MS: String(LEASE_TTL_MS), SWEEP_INTERVAL_MS: String(SWEEP_INTERVAL_MS), ...tickEnv },
      nodeFlags: [...(flag('cpu-prof') ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), ...(option('server-node-flags')?.split(' ') ?? [])],
    });
    const freshRss = product.sample().rssBytes / 2 ** 20;
    const productGenerator = await GeneratorHandle.start(product);
    const attempt = async (name: string, work: () => Promise<void>) => {
      try {
        await work();
      } catch (error) {
        report.errors.push(`${name}: ${String(error)}`);
        log(`${name} failed: ${String(error)}`);
        await productGenerator.call('disconnect', {}).catch(() => undefined);
      }
    };
    try {
      // The cursor-load scenarios may run on a threaded generator (its own rooms, from other
      // loopback addresses); the others always use the single-threaded one.
      const cursorGenerator = generatorThreads > 1 ? await GeneratorHandle.start(product, { ...threadsEnv, BENCH_ROOM_ADDRESS_OFFSET: CURSOR_GENERATOR_ADDRESS_OFFSET }) : productGenerator;
      try {
        if (only.has('capacity')) {
          const bare = productOnly || !lines.includes('bare') ? null : await ServerUnderTest.start('bare');
          const bareGenerator = bare ? await GeneratorHandle.start(bare, threadsEnv) : null;
          try {
            for (const mode of modes) {
              await attempt(`capacity (${mode})`, async () => {
                placement.apply(mode);
                log(`capacity sweep, ${placement.describe()}: lines ${lines.join(', ')}; points ${points.join(', ')}; window ${profile.timing.windowMs / 1000} s x ${profile.timing.repeats}; generator threads ${generatorThreads}`);
                const result = await capacitySweep(
                  { product: { generator: cursorGenerator, server: product }, bare: bare && bareGenerator ? { generator: bareGenerator, server: bare } : null },
                  points,
                  profile.timing,
                  log,
                  windowsNeeded,
                  lines,
                );
                if (mode === firstMode) report.capacity = result;
                else report.capacityPinned = result;
              });
            }
            placement.apply(firstMode);
          } finally {
            await bareGenerator?.stop();
            await bare?.stop();
          }
        }
        if (only.has('quiet')) {
          await attempt('quiet', async () => {
            log('quiet room: one room, one mover');
            const oneMover = await measurePoint(cursorGenerator, product, 1, { ...profile.timing, repeats: 1 }, 1, 'one');
            log(formatPointLine(oneMover));
            const allMove = report.capacity?.points.find((p) => p.line === 'product' && p.rooms === 1) ?? null;
            report.quietRoom = { allMove, oneMover };
          });
        }
      } finally {
        if (cursorGenerator !== productGenerator) await cursorGenerator.stop();
      }
      if (only.has('locks')) {
        await attempt('locks', async () => {
          const l = profile.locks;
          log(`lock contention: 31 users, ${l.elements} elements, ${l.laggards} laggards, ${l.windowMs / 1000} s alone, then under ${l.cursorRooms} rooms of cursor load`);
          report.locks = await lockContention(product, productGenerator, l, log);
          const failed = [report.locks.alone, report.locks.underLoad].filter((p) => p && !p.pass);
          for (const phase of failed) if (phase) report.errors.push(`locks ${phase.label}: ${phase.failedBecause.join('; ')}`);
          for (const error of report.locks.errors) report.errors.push(`locks: ${error}`);
        });
      }
      if (only.has('ghost')) {
        await attempt('ghost', async () => {
          log(`ghost time: ${profile.ghost.rooms * profile.ghost.closesPerRoom * profile.ghost.rounds} lid closes`);
          report.ghost = await ghostTime(productGenerator, { ...profile.ghost, leaseTtlMs: LEASE_TTL_MS, sweepMs: SWEEP_INTERVAL_MS });
          log(`ghost: p50 ${report.ghost.p50Ms.toFixed(0)} p99 ${report.ghost.p99Ms.toFixed(0)} max ${report.ghost.maxMs.toFixed(0)} ms (target ${report.ghost.targetMs})`);
        });
      }
      if (only.has('churn')) {
        await attempt('churn', async () => {
          log(`presence churn: ${profile.churn.rooms * 31} users, ${profile.churn.windowMs / 1000} s`);
          report.churn = await presenceChurn(productGenerator, product, { ...profile.churn, leaseTtlMs: LEASE_TTL_MS, sweepMs: SWEEP_INTERVAL_MS });
          log(`churn: ${report.churn.renewalsPerSec.toFixed(0)} renewals/s, ${report.churn.renewalStatementsPerSec.toFixed(1)} statements/s, false evictions ${report.churn.falseEvictions}, expiries/lease ${report.churn.expiriesPerExpiredLease}`);
        });
      }
      if (only.has('storm')) {
        await attempt('storm', async () => {
          log(`reconnect storm: ${profile.storm.rooms} rooms`);
          report.storm = await reconnectStorm(productGenerator, product, profile.storm);
          log(`storm: all live in ${report.storm.allLiveMs.toFixed(0)} ms, ${report.storm.snapshots} snapshots, ${report.storm.replays} replays, failed ${report.storm.failed}`);
        });
      }
      if (only.has('memory')) {
        await attempt('memory', async () => {
          log(`idle memory: ${profile.memory.rooms * 31} users, soak ${profile.memory.soakMs / 1000} s`);
          report.memory = await idleMemory(productGenerator, product, { ...profile.memory, freshRssMb: freshRss });
          log(`memory: ${report.memory.rssConnectedMb.toFixed(0)} MB with ${report.memory.users} users, growth ${report.memory.growthMb.toFixed(1)} MB`);
        });
      }
      if (only.has('pages')) {
        await attempt('pages', async () => {
          log('pages: a 50-page lesson opened, a class of 1 + 30 following the teacher through 20 pages');
          report.pages = await pagesLesson(product.url, { pages: 50, elementsPerPage: 30, students: 30, switches: 20 }, log);
        });
      }
      if (only.has('boards')) {
        await attempt('boards', async () => {
          // --boards-points=1,2,4 and --boards-window=S (seconds) for a short check.
          const boardsPoints = option('boards-points')?.split(',').map(Number) ?? profile.boardsPoints;
          const windowS = option('boards-window');
          const timing = windowS ? { ...profile.boards, windowMs: Number(windowS) * 1_000 } : profile.boards;
          log(`private boards: ${boardsPoints.join(', ')} class(es) of 1 + 30, window ${timing.windowMs / 1000} s`);
          report.boards = { passRule: BOARDS_PASS, points: await privateClassSweep(product, boardsPoints, timing, log) };
        });
      }
      if (only.has('drawing')) {
        // Its own generator (threaded, from its own loopback addresses: 127.0.9.x onward).
        const drawingGenerator = await GeneratorHandle.start(product, { ...threadsEnv, BENCH_ROOM_ADDRESS_OFFSET: DRAWING_GENERATOR_ADDRESS_OFFSET });
        // The bare relay of the same traffic (issue 42), unless --product-only.
        const relayServer = productOnly ? null : await ServerUnderTest.start('bare');
        const drawingRelay = relayServer ? { server: relayServer, generator: await GeneratorHandle.start(relayServer, threadsEnv) } : null;
        const otherLoad = otherLoadCores > 0 ? OtherLoad.start(otherLoadCores) : null;
        try {
          for (const mode of modes) {
            await attempt(`drawing (${mode})`, async () => {
              placement.apply(mode);
              const t = profile.drawing;
              log(
                `drawing class, ${placement.describe()}: points ${drawingPoints.join(', ')}; window ${t.windowMs / 1000} s x ${t.repeats}; cursors ${drawingOptions.cursorHz} Hz` +
                  `${otherLoad ? `; ${otherLoad.count} busy processes beside` : ''}${drawingOptions.liveInk ? '; live ink' : ''}`,
              );
              const result = await drawingSweep(
                { generator: drawingGenerator, server: product, postgres, database: databaseLabel, otherLoad },
                drawingPoints,
                t,
                drawingOptions,
                log,
              );
              log(`drawing knee: ${result.knee.rooms} rooms (${result.stoppedAt})${result.overload ? `; overload point ${result.overload.rooms} rooms ${result.overload.pass ? 'passes' : 'fails'} the overload rule` : ''}`);
              if (mode === firstMode) report.drawing = result;
              else report.drawingPinned = result;
              if (drawingRelay) {
                log(`drawing class on the bare relay (same traffic), ${placement.describe()}: points ${drawingPoints.join(', ')}`);
                const bare = await drawingSweep(
                  { generator: drawingRelay.generator, server: drawingRelay.server, postgres: null, database: 'none (bare relay)', otherLoad },
                  drawingPoints,
                  t,
                  { ...drawingOptions, overload: false },
                  log,
                );
                log(`drawing knee on the bare relay: ${bare.knee.rooms} rooms (${bare.stoppedAt}); product ${result.knee.rooms}`);
                if (mode === firstMode) report.drawingBare = bare;
                else report.drawingBarePinned = bare;
              }
            });
          }
          placement.apply(firstMode);
        } finally {
          otherLoad?.stop();
          await drawingGenerator.stop();
          await drawingRelay?.generator.stop();
          await drawingRelay?.server.stop();
        }
      }
      if (only.has('lecture')) {
        await attempt('lecture', async () => {
          const members = option('lecture-members')?.split(',').map(Number) ?? [...LECTURE_MEMBERS];
          // Its own single-threaded generator whose rooms are lecture halls (BENCH_USERS_PER_ROOM).
          const lectureGenerator = await GeneratorHandle.start(product, { BENCH_USERS_PER_ROOM: String(Math.max(...members)), BENCH_ROOM_ADDRESS_OFFSET: LECTURE_ADDRESS_OFFSET });
          try {
            report.lecture = await lectureHall(product, lectureGenerator, members, profile.lecture, drawingOptions.cursorHz, log);
          } finally {
            await lectureGenerator.stop();
          }
        });
      }
      if (only.has('ab')) {
        await attempt('ab', async () => {
          const baselineRoot = baselineDirOption ?? (baselineRefOption ? baselineCheckout(baselineRefOption, log) : null);
          if (!baselineRoot) {
            log('A/B skipped: no baseline build (--baseline=<checkout> or --baseline-ref=<git ref>)');
            return;
          }
          const mode = modes[modes.length - 1] ?? 'shared';
          placement.apply(mode);
          const port = process.env.BENCH_PRODUCT_PORT ? Number(process.env.BENCH_PRODUCT_PORT) + 1 : undefined;
          const baseline = await ServerUnderTest.start('product', {
            root: baselineRoot,
            port,
            env: { ...databaseEnv, LEASE_TTL_MS: String(LEASE_TTL_MS), SWEEP_INTERVAL_MS: String(SWEEP_INTERVAL_MS), ...tickEnv },
            nodeFlags: option('server-node-flags')?.split(' ') ?? [],
          });
          const abOptions = { ...drawingOptions, liveInk: true, overload: false };
          const candidateGenerator = await GeneratorHandle.start(product, { ...threadsEnv, BENCH_ROOM_ADDRESS_OFFSET: AB_CANDIDATE_ADDRESS_OFFSET });
          const baselineGenerator = await GeneratorHandle.start(baseline, {
            ...threadsEnv,
            BENCH_ROOM_ADDRESS_OFFSET: AB_BASELINE_ADDRESS_OFFSET,
            BENCH_PROTOCOL_VERSION: String(protocolVersionOf(baselineRoot)),
          });
          try {
            const t = profile.ab;
            log(`A/B drawing class with live ink, ${placement.describe()}: baseline ${baselineRoot} (${commitOf(baselineRoot)}), candidate ${productRoot} (${commitOf(productRoot)}); points ${abPoints.join(', ')}; window ${t.windowMs / 1000} s x ${t.repeats}`);
            const points = await drawingAB(
              { generator: baselineGenerator, server: baseline, postgres, database: databaseLabel, otherLoad: null },
              { generator: candidateGenerator, server: product, postgres, database: databaseLabel, otherLoad: null },
              abPoints,
              t,
              abOptions,
              log,
            );
            report.drawingAB = {
              mode,
              baseline: { root: baselineRoot, commit: commitOf(baselineRoot) },
              candidate: { root: productRoot, commit: commitOf(productRoot) },
              options: abOptions,
              timing: t,
              points,
              meanRatioByRooms: meanRatios(points),
            };
          } finally {
            await baselineGenerator.stop();
            await candidateGenerator.stop();
            await baseline.stop();
            placement.apply(firstMode);
          }
        });
      }
    } finally {
      await productGenerator.stop();
      await product.stop();
    }
  });

  if (only.has('pdf')) {
    try {
      report.pdf = await pdfBench(log);
      const longest = report.pdf.import?.longestTaskMs ?? 0;
      if (longest > report.pdf.longestTaskBoundMs) report.errors.push(`pdf: a main-thread task of ${longest} ms while importing (bound ${report.pdf.longestTaskBoundMs} ms)`);
    } catch (error) {
      report.errors.push(`pdf: ${String(error)}`);
      log(`pdf failed: ${String(error)}`);
    }
  }
  if (only.has('district')) {
    const d = profile.district;
    const basePort = Number(option('district-port') ?? 3341);
    log(`district day: ${d.rooms * 31} users, one process then three behind a balancer, window ${d.windowMs / 1000} s, ${d.lidCloses} lids closed`);
    try {
      report.district = await districtDay(
        {
          adminUrl: postgresUrl ?? DEFAULT_POSTGRES_URL,
          redisUrl: option('redis') ?? 'redis://127.0.0.1:6379',
          dbPrefix: option('db-prefix') ?? 'wb_bench',
          basePort,
          balancerPort: basePort + 9,
          ...d,
        },
        log,
      );
      if (!report.district.pass) report.errors.push('district: the day did not pass (see its table)');
    } catch (error) {
      report.errors.push(`district: ${String(error)}`);
      log(`district failed: ${String(error)}`);
    }
  }
  if (!onProduct) report.database = only.has('district') ? 'PostgreSQL on loopback (district day only)' : 'PGlite (PDF in and out only)';

  const finished = new Date();
  report.finishedAt = finished.toISOString();
  report.durationS = (finished.getTime() - started.getTime()) / 1000;
  report.machine.loadAverageEnd = loadAverage();
  const resultsDir = join(repoRoot, 'bench/results');
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `${report.name}-${report.startedAt.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\n${renderReport(report)}`);
  console.log(`\nJSON: ${file.slice(repoRoot.length + 1)} (${report.durationS.toFixed(0)} s)`);
  if (report.errors.length) {
    console.log(`Errors:\n${report.errors.map((e) => `  - ${e}`).join('\n')}`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
