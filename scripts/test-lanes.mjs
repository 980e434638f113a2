#!/usr/bin/env node
/**
 * `pnpm test`: the whole suite in five lanes side by side, joined on their exit codes.
 *
 *   checks:  lint, then the typechecks (two programs at a time), then `smoke:dist` (the server
 *            compiled and laid out as in the image, started, used, backed up live, drained)
 *   tests:   the unit and contract suites (two files at a time)
 *   browser: the web build, then the browser suite (Playwright: three spec files at a time)
 *   drill:   after the build, the release drill (its two databases side by side), then beside it
 *            the multi-node journeys (two server processes on one Postgres and one Redis)
 *   faults:  the fault suite (real server processes: outages, kills, floods; two files at a time)
 *
 * The lanes together need far more CPU than two cores have while they run (measured: a run queue
 * of 10-30 and no idle time), so the whole run takes about its total CPU over the cores, and what
 * matters is who waits. The drill and the fault suite assert timing (a ghost gone within term +
 * sweep, a renewal within its term, rate limits over wall-clock windows), and a machine loaded
 * far past its cores turned their waits into failures; the other lanes are bulk work whose own
 * terms are generous. So the drill and the fault suite run at normal priority and the bulk lanes
 * at a low one (`nice -n 10`): the timing-sensitive processes get a core as soon as they wake,
 * and the bulk lanes take every cycle they leave, which is most of them (they mostly wait). That
 * lets the fault suite run from the start beside everything instead of after the browser suite.
 * The PGlite template is made before the lanes start (scripts/pglite-template.ts).
 * Each command's output goes to ci-logs/<lane>.<n>-<step>[.<k>].log and is printed whole only when
 * the command fails; each step's wall and CPU time is printed as it ends and again in a summary. A
 * lane stops at its first failure; the others run on, so one run shows every lane's result.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const logs = join(root, 'ci-logs');
mkdirSync(logs, { recursive: true });

/**
 * Bulk work: runs mostly on what the timing-sensitive lanes leave (nice 10 weighs about a tenth of
 * nice 0; at 19, a fifth of that, the unit suite's first database start took over 120 s).
 */
const BULK = 10;

/**
 * A lane is a list of steps; a step's commands run at the same time. `after` names a step of
 * another lane that must have passed first; `nice` is the lane's priority (0: normal).
 */
const lanes = {
  checks: {
    nice: BULK,
    steps: [
      { name: 'lint', run: ['pnpm lint'] },
      {
        name: 'typecheck',
        // The Node-side packages in one program (tsconfig.node.json), the browser-side ones beside it.
        // The protocol has no program of its own here: the Node program checks all of its source
        // without the DOM, the web program all of it (19 of 19 files) without Node's types.
        run: ['pnpm exec tsc -p tsconfig.node.json', 'pnpm exec tsc -p apps/web/tsconfig.json && pnpm exec tsc -p e2e/tsconfig.json'],
      },
      // A few seconds (one compile, one embedded start): here, the lane that ends first.
      { name: 'smoke:dist', run: ['pnpm smoke:dist'] },
    ],
  },
  tests: { nice: BULK, steps: [{ name: 'unit', run: ['pnpm test:unit'] }] },
  browser: {
    nice: BULK,
    steps: [
      { name: 'build', run: ['pnpm build'] },
      { name: 'e2e', run: ['node scripts/ensure-browser.mjs && pnpm exec playwright test --project browser'] },
    ],
  },
  // Its own Playwright run (its own servers; the shared e2e server is not started for it), with the
  // two-node journeys (e2e/cluster.spec.ts), which start their own two servers, in the same run.
  drill: {
    nice: 0,
    steps: [
      {
        name: 'drill',
        after: 'browser: build',
        run: ['node scripts/ensure-browser.mjs && E2E_WEB_SERVER=off pnpm exec playwright test --project drill --project cluster'],
      },
    ],
  },
  faults: { nice: 0, steps: [{ name: 'faults', run: ['pnpm test:faults'] }] },
};

const started = Date.now();

/**
 * The machine's busy and idle CPU seconds so far (/proc/stat, Linux): every process counts,
 * including browser processes that exit without their parent waiting for them, which the per-step
 * figures (bash's `times`) miss. Null elsewhere.
 */
function machineCpu() {
  try {
    const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = fields.map(Number);
    return { busy: (user + nice + system + irq + softirq + steal) / 100, idle: (idle + iowait) / 100 };
  } catch {
    return null;
  }
}
const cpuAtStart = machineCpu();
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const clock = () => seconds(Date.now() - started).padStart(8);
const timings = [];

/**
 * Runs one command through bash, whose `times` builtin then reports the CPU the command and
 * everything it started used (children's user and system time), so each step's CPU is printed
 * beside its wall time: the lanes share two cores, and CPU is what they compete for.
 */
function runCommand(command, logFile, nice) {
  return new Promise((done) => {
    const out = createWriteStream(logFile, { flags: 'a' });
    out.write(`$ ${command}\n`);
    const cpuFile = `${logFile}.cpu`;
    const script = `${command}\nstatus=$?\ntimes > '${cpuFile}'\nexit $status`;
    const [file, ...args] = nice ? ['nice', '-n', String(nice), 'bash', '-c', script] : ['bash', '-c', script];
    const child = spawn(file, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    child.on('close', (code, signal) => {
      out.end(`\n[exit ${code ?? signal}]\n`, () => done({ ok: code === 0, cpu: childCpuSeconds(cpuFile) }));
    });
  });
}

/** The children's user + system seconds from bash's `times` (second line: "0m12.3s 0m1.2s"). */
function childCpuSeconds(cpuFile) {
  try {
    const line = readFileSync(cpuFile, 'utf8').trim().split('\n')[1] ?? '';
    return line
      .split(/\s+/)
      .map((part) => /^(\d+)m([\d.]+)s$/.exec(part))
      .reduce((sum, m) => sum + (m ? Number(m[1]) * 60 + Number(m[2]) : 0), 0);
  } catch {
    return 0;
  }
}

/** Each step's outcome, by "<lane>: <step>", for the steps that wait on another lane's. */
const finished = new Map();
const outcomeOf = (key) => {
  if (!finished.has(key)) {
    let settle;
    finished.set(key, { promise: new Promise((done) => (settle = done)), settle });
  }
  return finished.get(key);
};

async function runLane(lane, { nice, steps }) {
  for (const [i, step] of steps.entries()) {
    if (step.after && !(await outcomeOf(step.after).promise)) {
      console.log(`${clock()}  ${lane}: ${step.name} not run (${step.after} failed)`);
      timings.push({ lane, step: step.name, took: 0, cpu: 0, ok: false });
      return false;
    }
    // One log per command (a fresh one per run), so commands run side by side do not interleave.
    const logFiles = step.run.map((_, j) => join(logs, `${lane}.${i + 1}-${step.name}${step.run.length > 1 ? `.${j + 1}` : ''}.log`));
    for (const file of logFiles) writeFileSync(file, '');
    const stepStarted = Date.now();
    console.log(`${clock()}  ${lane}: ${step.name} started`);
    const results = await Promise.all(step.run.map((command, j) => runCommand(command, logFiles[j], nice)));
    const ok = results.every((r) => r.ok);
    outcomeOf(`${lane}: ${step.name}`).settle(ok);
    const took = Date.now() - stepStarted;
    const cpu = results.reduce((sum, r) => sum + r.cpu, 0);
    timings.push({ lane, step: step.name, took, cpu, ok });
    console.log(`${clock()}  ${lane}: ${step.name} ${ok ? 'passed' : 'FAILED'} in ${seconds(took)} (CPU ${cpu.toFixed(0)} s)`);
    if (!ok) {
      for (const [j, file] of logFiles.entries()) {
        if (results[j].ok) continue;
        console.log(`\n----- ${lane}: ${step.name} output (${file}) -----\n${readFileSync(file, 'utf8')}----- end of ${lane}: ${step.name} -----\n`);
      }
      for (const later of steps.slice(i + 1)) outcomeOf(`${lane}: ${later.name}`).settle(false);
      return false;
    }
  }
  return true;
}

// The migrated PGlite template first (a few seconds alone), so no lane's first embedded database
// runs initdb beside the others (scripts/pglite-template.ts).
const prepared = await runLane('prepare', { nice: 0, steps: [{ name: 'pglite template', run: ['node --import tsx scripts/pglite-template.ts'] }] });
const outcomes = prepared ? await Promise.all(Object.entries(lanes).map(([lane, spec]) => runLane(lane, spec))) : [false];
console.log('\nstep times (wall, CPU of the step and everything it started):');
for (const t of timings) {
  console.log(`  ${`${t.lane}: ${t.step}`.padEnd(20)} ${seconds(t.took).padStart(9)}  CPU ${`${t.cpu.toFixed(0)} s`.padStart(6)}  ${t.ok ? 'passed' : 'FAILED'}`);
}
console.log(`  CPU of all steps: ${timings.reduce((sum, t) => sum + t.cpu, 0).toFixed(0)} s on ${availableParallelism()} cores`);
const cpuAtEnd = machineCpu();
if (cpuAtStart && cpuAtEnd) {
  const busy = cpuAtEnd.busy - cpuAtStart.busy;
  const idle = cpuAtEnd.idle - cpuAtStart.idle;
  console.log(`  the machine, every process: ${busy.toFixed(0)} s of CPU busy, ${idle.toFixed(0)} s idle (${((100 * busy) / (busy + idle)).toFixed(0)} % busy)`);
}
const passed = outcomes.every(Boolean);
console.log(`\npnpm test ${passed ? 'passed' : 'FAILED'} in ${seconds(Date.now() - started)} (logs in ci-logs/)`);
process.exit(passed ? 0 : 1);
