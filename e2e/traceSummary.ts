/**
 * What a page's main thread spent a Chromium performance trace on (the traces that
 * e2e/gridLoad.ts and e2e/renderLoad.ts write with TRACE_DIR): the busy time of each thread, the
 * main thread's self time per trace event (script, style, layout, paint, GC...), and the script's
 * self time per function from the sampling profiler. Read with an unminified build
 * (`pnpm --filter @wb/web exec vite build --minify false`) for function names that say something.
 *
 *   node --import tsx e2e/traceSummary.ts /tmp/trace/drawing.json [top=25]
 */
import { readFileSync } from 'node:fs';

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  cat?: string;
  args?: {
    name?: string;
    data?: {
      cpuProfile?: { nodes?: ProfileNode[]; samples?: number[] };
      timeDeltas?: number[];
    };
  };
}
interface ProfileNode {
  id: number;
  parent?: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: traceSummary.ts <trace.json> [top]');
const TOP = Number(topArg ?? 25);
const raw = JSON.parse(readFileSync(file, 'utf8')) as { traceEvents?: TraceEvent[] } | TraceEvent[];
const events = Array.isArray(raw) ? raw : (raw.traceEvents ?? []);

const threadNames = new Map<string, string>();
for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') threadNames.set(`${e.pid}:${e.tid}`, e.args?.name ?? '?');
const key = (e: TraceEvent) => `${e.pid}:${e.tid}`;
const timed = events.filter((e) => e.ph === 'X' && e.dur !== undefined);
// Large traces hold millions of events: no spreading them into Math.max.
const span = timed.length ? (timed.reduce((m, e) => Math.max(m, e.ts + (e.dur ?? 0)), -Infinity) - timed.reduce((m, e) => Math.min(m, e.ts), Infinity)) / 1000 : 0;

// Busy time per thread: its outermost events (a task and what runs inside it counted once).
const busyByThread = new Map<string, number>();
const outerEnd = new Map<string, number>();
for (const e of [...timed].sort((a, b) => a.ts - b.ts)) {
  if (e.ts < (outerEnd.get(key(e)) ?? -Infinity)) continue;
  outerEnd.set(key(e), e.ts + (e.dur ?? 0));
  busyByThread.set(key(e), (busyByThread.get(key(e)) ?? 0) + (e.dur ?? 0) / 1000);
}
// The page's main thread: the renderer main thread with the most work.
const main = [...busyByThread].filter(([k]) => threadNames.get(k) === 'CrRendererMain').sort((a, b) => b[1] - a[1])[0]?.[0];
if (!main) throw new Error('no renderer main thread in the trace');

const pct = (ms: number) => `${((100 * ms) / span).toFixed(1)} %`;
console.log(`trace ${file}: ${span.toFixed(0)} ms`);
console.log('\nbusy time per thread (top-level tasks):');
for (const [k, ms] of [...busyByThread].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`  ${(threadNames.get(k) ?? k).padEnd(28)} ${ms.toFixed(0).padStart(6)} ms  ${pct(ms)}`);

// Self time per event name on the main thread: each event's duration minus its children's.
const own = timed.filter((e) => key(e) === main).sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
const self = new Map<string, { ms: number; count: number }>();
const inclusive = new Map<string, { ms: number; count: number }>();
const stack: { e: TraceEvent; end: number; child: number }[] = [];
const close = (upTo: number) => {
  while (stack.length && stack.at(-1)!.end <= upTo) {
    const done = stack.pop()!;
    // Inclusive time of the outermost event of each name (a name nested in itself counted once).
    if (!stack.some((open) => open.e.name === done.e.name)) {
      const i = inclusive.get(done.e.name) ?? { ms: 0, count: 0 };
      i.ms += (done.e.dur ?? 0) / 1000;
      i.count++;
      inclusive.set(done.e.name, i);
    }
    const s = self.get(done.e.name) ?? { ms: 0, count: 0 };
    s.ms += ((done.e.dur ?? 0) - done.child) / 1000;
    s.count++;
    self.set(done.e.name, s);
    if (stack.length) stack.at(-1)!.child += done.e.dur ?? 0;
  }
};
for (const e of own) {
  close(e.ts);
  stack.push({ e, end: e.ts + (e.dur ?? 0), child: 0 });
}
close(Infinity);
console.log('\nmain thread self time per trace event:');
for (const [name, s] of [...self].sort((a, b) => b[1].ms - a[1].ms).slice(0, TOP))
  console.log(`  ${name.padEnd(36)} ${s.ms.toFixed(0).padStart(6)} ms  ${pct(s.ms).padStart(7)}  x${s.count}`);

console.log('\nmain thread time per trace event, with what runs inside it:');
for (const [name, s] of [...inclusive].sort((a, b) => b[1].ms - a[1].ms).slice(0, TOP))
  console.log(`  ${name.padEnd(36)} ${s.ms.toFixed(0).padStart(6)} ms  ${pct(s.ms).padStart(7)}  x${s.count}`);

// Script self time per function: the sampling profiler's chunks of the main thread's isolate.
const nodes = new Map<number, ProfileNode>();
const samples: { node: number; dt: number }[] = [];
for (const e of events) {
  if (e.name !== 'ProfileChunk' || e.pid !== Number(main.split(':')[0])) continue;
  for (const n of e.args?.data?.cpuProfile?.nodes ?? []) nodes.set(n.id, n);
  const ids = e.args?.data?.cpuProfile?.samples ?? [];
  const deltas = e.args?.data?.timeDeltas ?? [];
  ids.forEach((id, i) => samples.push({ node: id, dt: (deltas[i + 1] ?? deltas[i] ?? 0) / 1000 }));
}
const byFunction = new Map<string, number>();
const byTotal = new Map<string, number>();
const label = (n: ProfileNode) => {
  const { functionName, url, lineNumber } = n.callFrame;
  return `${functionName || '(anonymous)'} ${url ? `${url.split('/').at(-1)}:${lineNumber + 1}` : ''}`.trim();
};
for (const { node, dt } of samples) {
  const n = nodes.get(node);
  if (!n) continue;
  byFunction.set(label(n), (byFunction.get(label(n)) ?? 0) + dt);
  // Inclusive time: each function once per sample, however deep it recurses.
  const seen = new Set<string>();
  for (let m: ProfileNode | undefined = n; m; m = m.parent === undefined ? undefined : nodes.get(m.parent)) {
    const l = label(m);
    if (seen.has(l)) continue;
    seen.add(l);
    byTotal.set(l, (byTotal.get(l) ?? 0) + dt);
  }
}
if (samples.length) {
  console.log(`\nscript self time per function (${samples.length} samples):`);
  for (const [name, ms] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`  ${ms.toFixed(0).padStart(6)} ms  ${pct(ms).padStart(7)}  ${name}`);
  console.log('\nscript total time per function (with what it calls):');
  for (const [name, ms] of [...byTotal].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`  ${ms.toFixed(0).padStart(6)} ms  ${pct(ms).padStart(7)}  ${name}`);
}
