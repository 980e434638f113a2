#!/usr/bin/env node
/**
 * `pnpm test`: the whole suite in three lanes side by side, joined on their exit codes.
 *
 *   tests:   the unit and contract suites (two files at a time)
 *   checks:  lint, then the typechecks (two programs at a time)
 *   browser: the web build, the browser suite (Playwright: three spec files at a time, with the
 *            release drill's two databases side by side beside them), then the fault suite (real
 *            server processes: outages, kills, floods; two files at a time)
 *
 * Most of the suite waits (lease terms, restarts, PGlite start-ups, browsers) rather than computes,
 * so the lanes overlap well on two cores (measured: about 550 s of CPU in 680 s of wall time).
 * The fault suite never runs beside the unit suites at full tilt: its rate-limit, flood and race
 * tests measure timing, and a machine loaded far past its cores (load 25, four lanes at once)
 * turned their waits into failures; after the browser suite it takes about 160 s, beside the end
 * of the unit suites (or alone). Each command's output goes to
 * ci-logs/<lane>.<n>-<step>[.<k>].log and is printed whole only when the command fails; each step's
 * wall and CPU time is printed as it ends and again in a summary. A lane stops at its first
 * failure; the others run on, so one run shows every lane's result.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const logs = join(root, 'ci-logs');
mkdirSync(logs, { recursive: true });

/** A lane is a list of steps; a step's commands run at the same time. */
const lanes = {
  tests: [{ name: 'unit', run: ['pnpm test:unit'] }],
  // Beside the unit suites rather than after them: those mostly wait (sockets, databases), and the
  // checks are a minute of CPU that otherwise lengthened the longest lane.
  checks: [
    { name: 'lint', run: ['pnpm lint'] },
    {
      name: 'typecheck',
      // The Node-side packages in one program (tsconfig.node.json), the browser-side ones beside it.
      run: [
        'pnpm exec tsc -p tsconfig.node.json',
        'pnpm exec tsc -p packages/protocol/tsconfig.json && pnpm exec tsc -p apps/web/tsconfig.json && pnpm exec tsc -p e2e/tsconfig.json',
      ],
    },
  ],
  browser: [
    { name: 'build', run: ['pnpm build'] },
    { name: 'e2e', run: ['pnpm test:e2e'] },
    { name: 'faults', run: ['pnpm test:faults'] },
  ],
};

const started = Date.now();
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const clock = () => seconds(Date.now() - started).padStart(8);
const timings = [];

/**
 * Runs one command through bash, whose `times` builtin then reports the CPU the command and
 * everything it started used (children's user and system time), so each step's CPU is printed
 * beside its wall time: the lanes share two cores, and CPU is what they compete for.
 */
function runCommand(command, logFile) {
  return new Promise((done) => {
    const out = createWriteStream(logFile, { flags: 'a' });
    out.write(`$ ${command}\n`);
    const cpuFile = `${logFile}.cpu`;
    const script = `${command}\nstatus=$?\ntimes > '${cpuFile}'\nexit $status`;
    const child = spawn('bash', ['-c', script], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
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

async function runLane(lane, steps) {
  for (const [i, step] of steps.entries()) {
    // One log per command (a fresh one per run), so commands run side by side do not interleave.
    const logFiles = step.run.map((_, j) => join(logs, `${lane}.${i + 1}-${step.name}${step.run.length > 1 ? `.${j + 1}` : ''}.log`));
    for (const file of logFiles) writeFileSync(file, '');
    const stepStarted = Date.now();
    console.log(`${clock()}  ${lane}: ${step.name} started`);
    const results = await Promise.all(step.run.map((command, j) => runCommand(command, logFiles[j])));
    const ok = results.every((r) => r.ok);
    const took = Date.now() - stepStarted;
    const cpu = results.reduce((sum, r) => sum + r.cpu, 0);
    timings.push({ lane, step: step.name, took, cpu, ok });
    console.log(`${clock()}  ${lane}: ${step.name} ${ok ? 'passed' : 'FAILED'} in ${seconds(took)} (CPU ${cpu.toFixed(0)} s)`);
    if (!ok) {
      for (const [j, file] of logFiles.entries()) {
        if (results[j].ok) continue;
        console.log(`\n----- ${lane}: ${step.name} output (${file}) -----\n${readFileSync(file, 'utf8')}----- end of ${lane}: ${step.name} -----\n`);
      }
      return false;
    }
  }
  return true;
}

const outcomes = await Promise.all(Object.entries(lanes).map(([lane, steps]) => runLane(lane, steps)));
console.log('\nstep times (wall, CPU of the step and everything it started):');
for (const t of timings) {
  console.log(`  ${`${t.lane}: ${t.step}`.padEnd(20)} ${seconds(t.took).padStart(9)}  CPU ${`${t.cpu.toFixed(0)} s`.padStart(6)}  ${t.ok ? 'passed' : 'FAILED'}`);
}
console.log(`  CPU of all steps: ${timings.reduce((sum, t) => sum + t.cpu, 0).toFixed(0)} s on ${availableParallelism()} cores`);
const passed = outcomes.every(Boolean);
console.log(`\npnpm test ${passed ? 'passed' : 'FAILED'} in ${seconds(Date.now() - started)} (logs in ci-logs/)`);
process.exit(passed ? 0 : 1);
