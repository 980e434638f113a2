/**
 * Markdown tables of a benchmark run, printed to the console. A run worth keeping gets them in a new
 * dated section at the top of bench/HISTORY.md; BENCHMARKS.md's summary tables are updated by hand.
 */
import type { PointResult, SweepLine } from './cursorCapacity.ts';
import type { DrawingABResult, DrawingResult } from './drawingClass.ts';
import type { LectureResult } from './lectureHall.ts';
import type { BenchReport } from './run.ts';

const f = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const pct = (value: number, digits = 1) => (Number.isFinite(value) ? `${(value * 100).toFixed(digits)}%` : 'n/a');

export function renderReport(report: BenchReport): string {
  const out: string[] = [];
  out.push(
    `Run ${report.startedAt} (${report.command}, ${f(report.durationS, 0)} s) on ${report.machine.cores} cores (${report.machine.cpuModel}), ` +
      `Node ${report.machine.node}; product database: ${report.database}; generator client: ${report.client} (${report.generatorThreads ?? 1} thread${(report.generatorThreads ?? 1) > 1 ? 's' : ''} for cursor load); ` +
      `load average at start ${report.machine.loadAverageStart.map((v) => v.toFixed(2)).join(' ')}, at end ${report.machine.loadAverageEnd.map((v) => v.toFixed(2)).join(' ')}.`,
  );

  for (const c of [report.capacity, report.capacityPinned]) {
    if (!c) continue;
    const mode = c.mode === 'pinned' ? 'pinned: server on one core, generator on the other' : 'shared cores';
    out.push('', `### Cursor fan-out, ${mode} (31-user rooms, 30 Hz, window ${report.timing.windowMs / 1000} s after ${report.timing.warmupMs / 1000} s warm-up, ${report.timing.repeats}x per point)`, '');
    const ratio = (value: number, below = 'bare relay') => (Number.isFinite(value) ? `${f(value, 2)}x` : `n/a (the ${below} passed no point)`);
    // Results from before issue 21 swept the product (everyone) and the bare relay only.
    const swept = new Set(c.lines ?? ['product', 'bare']);
    const rooms = (line: SweepLine, n: number | undefined) => (swept.has(line) && n !== undefined ? `${n} rooms (${n * 31} users)` : 'not measured');
    // Results from before issue 19 have one rule only: p99 of arrived packets < 100 ms.
    const legacy = c.capacityRoomsLegacy ?? c.capacityRooms;
    out.push(
      `Capacity (p99 with merged updates counted <= 60 ms): **students see everyone: product ${rooms('product', c.capacityRooms.product)}**` +
        (swept.has('productTeacher')
          ? `; **students see the teacher's cursor (default): ${rooms('productTeacher', c.capacityRooms.productTeacher)}, ${ratio(c.teacherRatio ?? Number.NaN, 'everyone mode')} the everyone mode**`
          : '') +
        `; bare relay ${rooms('bare', c.capacityRooms.bare)}; everyone mode over bare relay ${ratio(c.ratio)}. ` +
        `Today's rule (p99 of arrived packets < 100 ms): product ${legacy.product} rooms${legacy.productTeacher !== undefined ? `, default mode ${legacy.productTeacher}` : ''}, bare relay ${legacy.bare}; ratio ${ratio(c.ratioLegacy ?? c.ratio)}. ` +
        `${c.windowsNeeded ? `A point passes with ${c.windowsNeeded} of its windows. ` : ''}Everyone mode: ${c.stoppedAt.product}; ` +
        `${c.stoppedAt.productTeacher !== undefined ? `default mode: ${c.stoppedAt.productTeacher}; ` : ''}bare relay: ${c.stoppedAt.bare}.`,
      '',
    );
    out.push(pointTable(c.points));
    const cpu = (line: SweepLine) => {
      const passing = c.points.filter((p) => (p.line ?? p.target) === line && p.rooms === 1);
      return passing[0]?.serverCpuUsPerDelivered ?? Number.NaN;
    };
    out.push('', `Server CPU per delivered update at 1 room: product ${f(cpu('product'), 2)} µs (default mode ${f(cpu('productTeacher'), 2)} µs), bare relay ${f(cpu('bare'), 2)} µs.`);
  }

  if (report.quietRoom) {
    const q = report.quietRoom;
    out.push('', '### Quiet room (one room on the server)', '');
    out.push('| load | p50 ms | p95 ms | p99 ms | delivered | load avg 1m |', '|---|---:|---:|---:|---:|---:|');
    if (q.allMove) out.push(`| 31 users all moving at 30 Hz | ${f(q.allMove.p50Ms)} | ${f(q.allMove.p95Ms)} | ${f(q.allMove.p99Ms)} | ${pct(q.allMove.delivery, 2)} | ${f(q.allMove.loadAverage1m, 2)} |`);
    out.push(`| 1 of 31 moving at 30 Hz | ${f(q.oneMover.p50Ms)} | ${f(q.oneMover.p95Ms)} | ${f(q.oneMover.p99Ms)} | ${pct(q.oneMover.delivery, 2)} | ${f(q.oneMover.loadAverage1m, 2)} |`);
  }

  if (report.locks) {
    const l = report.locks;
    out.push('', `### Lock contention (31 users, ${l.params.elements} elements, ${l.params.laggards} laggards committing late, ${f(l.params.windowMs / 1000, 0)} s per run)`, '');
    out.push(
      '| run | pass | grants | grants/s | acquire p50 ms | acquire p99 ms | grant p50 ms | grant p99 ms | refused acquires | release p50 ms | release p99 ms | double grants | generation regressions (watchers) | stale commits rejected / sent | stale applied | stale moves relayed | final state | server cores | server loop p99 ms | generator cores | load avg 1m |',
      '|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|',
    );
    for (const p of [l.alone, l.underLoad]) {
      if (!p) continue;
      const w = p.workload;
      const refused = Object.entries(w.refusals).map(([code, n]) => `${code} ${n}`).join(', ') || 'none';
      const fs = w.finalState;
      const finalState =
        fs.positionMismatches + fs.versionMismatches + fs.staleMarkerFound + fs.missing === 0
          ? `${fs.checked}/${w.elements} at last commit`
          : `${fs.positionMismatches} misplaced, ${fs.versionMismatches} bad version, ${fs.staleMarkerFound} stale, ${fs.missing} missing`;
      out.push(
        `| ${p.label}${p.label === 'under cursor load' ? ` (${l.params.cursorRooms} x 31 users at 30 Hz)` : ''} | ${p.pass ? 'yes' : `NO: ${p.failedBecause.join('; ')}`} | ${w.grants} | ${f(w.grantsPerSec)} | ${f(w.acquireRtt.p50)} | ${f(w.acquireRtt.p99)} | ${f(w.grantRtt.p50)} | ${f(w.grantRtt.p99)} | ${refused} | ${f(w.releaseRtt.p50)} | ${f(w.releaseRtt.p99)} | ${w.doubleGrants} | ${w.generationRegressions} (${w.watchers}) | ${w.stale.rejected} / ${w.stale.commitsSent} | ${w.stale.accepted} | ${w.stale.movesRelayed} of ${w.stale.movesSent} sent | ${finalState} | ${f(p.serverCores, 2)} | ${f(p.serverEventLoopP99Ms, 0)} | ${f(w.generator?.cores ?? Number.NaN, 2)} | ${f(p.loadAverage1m, 2)} |`,
      );
    }
    // The same cursor load measured just before without the lock room, then during the lock run.
    const cursorRows = [l.cursorBaseline, l.cursorPoint].filter((p): p is PointResult => p !== null);
    if (cursorRows.length > 0) {
      out.push('', `Cursor load (${l.params.cursorRooms} rooms of 31 users at 30 Hz), rows: ${l.cursorBaseline ? 'without locks (just before), ' : ''}${l.cursorPoint ? 'during the lock run' : ''}:`, '');
      out.push(pointTable(cursorRows));
    }
  }

  if (report.ghost) {
    const g = report.ghost;
    out.push('', '### Ghost time (lid closed: socket open, no renewals, no cursor)', '');
    out.push('| lid closes | removed everywhere | p50 ms | p99 ms | max ms | target ms | first observer p50 ms | duplicate expiries | pass | load avg 1m |');
    out.push('|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|');
    out.push(`| ${g.closes} | ${g.observed} | ${f(g.p50Ms, 0)} | ${f(g.p99Ms, 0)} | ${f(g.maxMs, 0)} | ${g.targetMs} | ${f(g.firstObserverP50Ms, 0)} | ${g.duplicateExpiries} | ${g.pass ? 'yes' : 'NO'} | ${f(g.loadAverage1m, 2)} |`);
  }

  if (report.churn) {
    const c = report.churn;
    out.push('', `### Presence churn (${c.users} users, 10% reconnect per minute, ${c.lidCloses} lids closed, ${f(c.windowS, 0)} s)`, '');
    out.push('| renewals/s | renewal statements/s | renewals per statement | reconnects | false evictions | expiries per expired lease (server) | expiry events per expired lease (clients) | server cores | server RSS MB | pass | load avg 1m |');
    out.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|');
    out.push(
      `| ${f(c.renewalsPerSec, 0)} | ${f(c.renewalStatementsPerSec, 1)} | ${f(c.renewalsPerStatement, 1)} | ${c.reconnects} (${c.reconnectFailures} failed) | ${c.falseEvictions} | ${f(c.expiriesPerExpiredLease, 2)} | ${f(c.expiryEventsPerExpiredLease, 2)} | ${f(c.serverCores, 2)} | ${f(c.serverRssMb, 0)} | ${c.pass ? 'yes' : 'NO'} | ${f(c.loadAverage1m, 2)} |`,
    );
  }

  if (report.storm) {
    const s = report.storm;
    out.push('', `### Reconnect storm (${s.rooms} rooms, ${s.clients} clients drop and reconnect at once)`, '');
    out.push('| all live again ms | per-client p50 ms | p99 ms | failed | snapshots | replays | server CPU s | server cores | server loop p99 ms | load avg 1m |');
    out.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    out.push(
      `| ${f(s.allLiveMs, 0)} | ${f(s.p50Ms, 0)} | ${f(s.p99Ms, 0)} | ${s.failed}${s.errors.length ? ` (${s.errors.join(', ')})` : ''} | ${s.snapshots} | ${s.replays} | ${f(s.serverCpuSeconds, 2)} | ${f(s.serverCores, 2)} | ${f(s.serverEventLoopP99Ms, 0)} | ${f(s.loadAverage1m, 2)} |`,
    );
  }

  if (report.pdf) {
    const { import: i, export: e } = report.pdf;
    out.push('', '### PDF in and out (issue 39)', '');
    if (i) {
      out.push(`Import of a ${i.pages}-page PDF in a teacher's tab (full Chromium; pdf.js in a worker):`, '');
      out.push('| last page placed ms | first page placed ms | longest main-thread task ms (bound ' + report.pdf.longestTaskBoundMs + ') | tasks over 50 ms | peak JS heap MB (before) |');
      out.push('|---:|---:|---:|---:|---:|');
      out.push(`| ${i.totalMs} | ${i.firstPageMs} | ${i.longestTaskMs} | ${i.longTasks} | ${i.peakHeapMb} (${i.baseHeapMb}) |`);
    }
    out.push('', `Export of a ${e.pages}-page lesson (${e.elementsPerPage} elements a page) to one PDF on the server:`, '');
    out.push('| median ms | runs ms | size KB |');
    out.push('|---:|---|---:|');
    out.push(`| ${e.medianMs} | ${e.runsMs.join(', ')} | ${Math.round(e.bytes / 1024)} |`);
  }

  if (report.district) {
    const d = report.district;
    out.push('', `### District day (${d.users} users in ${d.rooms} rooms, presence only; one process, then three behind a balancer; Postgres and Redis on loopback)`, '');
    out.push('| | users live at end | statements/s per 1,000 users (steady) | by kind (steady, /s) | Postgres connections per 1,000 | node cores | node RSS MB | Postgres cores | expiries (attendance / server / clients of lids closed) | false evictions | pass | load avg 1m |');
    out.push('|---|---:|---:|---|---:|---|---|---:|---|---:|---|---:|');
    for (const p of [d.single, d.fleet]) {
      if (!p) continue;
      const kinds = Object.entries(p.steady.statementsPerSecByKind)
        .filter(([, v]) => v >= 0.05)
        .map(([k, v]) => `${k} ${f(v, 1)}`)
        .join(', ');
      out.push(
        `| ${p.label} | ${p.liveAtEnd} / ${p.users - p.expiry.lidCloses}${p.connectRetries ? ` (${p.connectRetries} first handshakes retried)` : ''} | ${f(p.steady.statementsPerSecPer1000, 1)} | ${kinds} | ${f(p.connectionsPer1000, 1)} (${p.connectionsMax}) | ${p.nodeCores.map((c) => f(c, 2)).join(', ')} | ${p.nodeRssMb.map((m) => f(m, 0)).join(', ')} | ${f(p.postgresCores, 2)} | ${p.expiry.attendanceFacts} / ${p.expiry.serverExpiries} / ${p.expiry.clientEvents} of ${p.expiry.lidCloses}${p.expiry.exactlyOnce ? ' (once each)' : ' (NOT once)'} | ${p.falseEvictions} | ${p.pass ? 'yes' : `NO: ${p.failedBecause.join('; ')}`} | ${f(p.loadAverage1m, 2)} |`,
      );
    }
    const k = d.fleet?.kill;
    if (k) {
      out.push('', `Node killed (SIGKILL) ${f(k.atS, 0)} s into the window: ${k.node}${k.wasLeader ? ', the sweeper leader' : ''}.`, '');
      out.push('| users dropped | live again | move p50 ms | p99 ms | max ms (bound ' + d.moveBoundMs + ') | failed attempts | false evictions: stayed / moved | attendance of moved: lost / reconnected / other | extra statements per moved user |');
      out.push('|---:|---:|---:|---:|---:|---:|---|---|---:|');
      out.push(
        `| ${k.dropped} | ${k.movedLive} | ${f(k.moveMs.p50, 0)} | ${f(k.moveMs.p99, 0)} | ${f(k.moveMs.max, 0)} | ${k.moveAttemptsFailed} | ${k.falseEvictionsStayed} / ${k.falseEvictionsMoved} | ${k.movedLost} / ${k.movedReconnected} / ${k.movedOtherFacts} | ${f(k.statementsPerMovedUser, 1)} |`,
      );
    }
  }

  if (report.memory) {
    const m = report.memory;
    out.push('', `### Memory with idle users (${m.users} connected, answering renewals, soak ${f(m.soakS, 0)} s)`, '');
    out.push('| RSS fresh server MB | RSS before (all disconnected) MB | RSS connected MB | KB per user | growth over soak MB | samples MB | idle server cores | pass | load avg 1m |');
    out.push('|---:|---:|---:|---:|---:|---|---:|---|---:|');
    out.push(
      `| ${f(m.freshRssMb, 0)} | ${f(m.rssBeforeMb, 0)} | ${f(m.rssConnectedMb, 0)} | ${f(m.kbPerUser, 0)} | ${f(m.growthMb, 1)} | ${m.rssSamplesMb.map((v) => v.toFixed(0)).join(', ')} | ${f(m.serverCoresIdle, 2)} | ${m.pass ? 'yes' : 'NO'} | ${f(m.loadAverage1m, 2)} |`,
    );
    out.push('', 'Where it is (MB, from the server\'s /metrics; "native" is RSS minus the four):', '');
    out.push('| at s | RSS | main JS heap used | main external | database WebAssembly heap | database JS heap used | native |');
    out.push('|---:|---:|---:|---:|---:|---:|---:|');
    // At most ~12 rows: the first, the last and evenly spaced ones between.
    const step = Math.max(1, Math.ceil(m.breakdown.length / 12));
    m.breakdown.forEach((b, i) => {
      if (i % step !== 0 && i !== m.breakdown.length - 1) return;
      const known = b.mainHeapUsedMb + b.mainExternalMb + (Number.isNaN(b.dbWasmMb) ? 0 : b.dbWasmMb) + (Number.isNaN(b.dbHeapUsedMb) ? 0 : b.dbHeapUsedMb);
      out.push(`| ${f(b.atS, 0)} | ${f(b.rssMb, 0)} | ${f(b.mainHeapUsedMb, 1)} | ${f(b.mainExternalMb, 1)} | ${f(b.dbWasmMb, 0)} | ${f(b.dbHeapUsedMb, 1)} | ${f(b.rssMb - known, 0)} |`);
    });
  }
  for (const d of [report.drawing, report.drawingBare, report.drawingPinned, report.drawingBarePinned]) if (d) drawingSection(d, out);
  for (const [product, bare] of [[report.drawing, report.drawingBare], [report.drawingPinned, report.drawingBarePinned]] as const) {
    if (product && bare) out.push('', `Drawing class, ${product.mode}: the product holds **${product.knee.rooms}** rooms, the bare relay of the same traffic **${bare.knee.rooms}** (issue 42: at least as many).`);
  }
  if (report.drawingAB) abSection(report.drawingAB, out);
  if (report.lecture) lectureSection(report.lecture, out);
  if (report.pages) {
    const p = report.pages;
    out.push(
      '',
      `### Pages (a ${p.pages}-page lesson, ${p.elementsPerPage} elements a page; a class of 1 + ${p.students} following the teacher)`,
      '',
      `Opening: **${f(p.openFirstPageMedianMs, 0)} ms** to the first page live (median of joins; max ${f(p.openFirstPageMaxMs, 0)} ms), ` +
        `${f(p.openBytes / 1024, 0)} KiB received by the joining socket (the visible page ${f(p.firstPageBytes / 1024, 0)} KiB; all ${p.pages} pages would be ${f(p.allPagesBytes / 1024, 0)} KiB). ` +
        `Switching: p50 ${f(p.switchP50Ms, 0)} ms, **p95 ${f(p.switchP95Ms, 0)} ms** (target <= 150 ms), max ${f(p.switchMaxMs, 0)} ms over ${p.switchSamples} student-switches: ${p.pass ? 'pass' : 'FAIL'}.`,
    );
  }
  return out.join('\n');
}

function pointTable(points: PointResult[]): string {
  const rows = [
    '| target | students see | rooms | users | # | pass | pass, today\'s rule | p50 ms | p95 ms | p99 ms | p99 merged counted ms | sent | delivered (exact) | delivered at teachers / students | server cores | server RSS MB | server loop p99 ms | server GC | batches /room/s | server µs/update | generator cores | generator loop p99 ms | load avg 1m |',
    '|---|---|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const p of points) {
    rows.push(
      `| ${p.target} | ${p.visibility ?? 'everyone'} | ${p.rooms} | ${p.users} | ${p.repeat} | ${p.pass ? 'yes' : `NO: ${p.failedBecause.join('; ')}`} | ${p.passLegacy ? 'yes' : 'no'} | ${f(p.p50Ms)} | ${f(p.p95Ms)} | ${f(p.p99Ms)} | ${f(p.p99MergedCountedMs)} | ${pct(p.sentRatio)} | ${pct(p.delivery, 2)} (${pct(p.exactDelivery, 2)}) | ${pct(p.deliveryAtTeacher, 2)} / ${pct(p.deliveryAtStudents, 2)} | ${f(p.serverCores, 2)} | ${f(p.serverRssMb, 0)} | ${f(p.serverEventLoopP99Ms, 0)} | ${Number.isFinite(p.serverGcShare) ? pct(p.serverGcShare) : 'n/a'} | ${Number.isFinite(p.batchesPerRoomPerSec) ? f(p.batchesPerRoomPerSec) : 'n/a'} | ${f(p.serverCpuUsPerDelivered, 2)} | ${f(p.generatorCores, 2)}${p.generatorSaturated ? ' (saturated)' : ''} | ${f(p.generatorEventLoopP99Ms, 0)} | ${f(p.loadAverage1m, 2)} |`,
    );
  }
  return rows.join('\n');
}

function drawingSection(d: DrawingResult, out: string[]): void {
  const mode = d.mode === 'pinned' ? 'pinned: server on one core, generator on the other' : 'shared cores';
  const t = d.timing;
  out.push(
    '',
    `### Drawing class${d.target === 'bare' ? ' on the BARE RELAY' : ''}, ${mode} (31-user rooms, everyone drawing ~0.84 strokes/s with cursors at ${d.options.cursorHz} Hz; window ${t.windowMs / 1000} s after ${t.warmupMs / 1000} s warm-up, ${t.repeats}x per point${d.otherLoadProcesses > 0 ? `; ${d.otherLoadProcesses} busy process${d.otherLoadProcesses > 1 ? 'es' : ''} beside` : ''})`,
    '',
  );
  out.push(
    `Database: ${d.database}. Knee (stroke p99 <= 100 ms, no timeout, no \`unavailable\`, no renewal lost, every stroke delivered): **${d.knee.rooms} rooms** (${d.stoppedAt}).` +
      (d.overload ? ` At ${d.overload.rooms} rooms (1.5x): the overload rule (p99 <= 1 s, no timeout, no \`unavailable\`, no renewal lost) ${d.overload.pass ? 'passes' : '**fails**'}.` : '') +
      (d.overload?.batchesPerRoomPerSec !== undefined
        ? ` Degraded there: ${f(d.overload.batchesPerRoomPerSec, 1)} cursor/ink batches per room per second, tick ${f(d.overload.tickAtEndMs ?? Number.NaN, 0)} ms at the window's end; back to the busy tick ${Number.isFinite(d.overload.recoveredMs ?? Number.NaN) ? `${f(d.overload.recoveredMs ?? Number.NaN, 0)} ms after the load left` : 'not within 10 s'} (target 5 s).`
        : ''),
    '',
  );
  out.push(
    '| rooms | # | phase | pass | overload rule | strokes/s (nominal) | stroke p50 ms | p95 ms | p99 ms | max ms | ack p50 / p99 ms | bytes, points / stroke | timeouts | unavailable | other errors | missing at end | renewals lost / sent | renewal p99 ms | server cores | server ms CPU / stroke | Postgres ms CPU / stroke | statements / stroke | server loop p99 ms | cursor p99 / merged counted ms | cursor delivered | generator cores | other load cores | load avg 1m |',
    '|---:|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const w of d.windows) {
    const s = w.raw.strokes;
    const otherErrors = Object.entries(s.errors).filter(([code]) => code !== 'unavailable').map(([code, count]) => `${code} ${count}`).join(', ') || '0';
    out.push(
      `| ${w.rooms} | ${w.repeat} | ${w.phase} | ${w.pass ? 'yes' : `NO: ${w.failedBecause.join('; ')}`} | ${w.passOverloadRule ? 'yes' : 'no'} | ${f(w.strokesPerSec)} (${f(w.nominalStrokesPerSec, 0)}) | ${f(w.strokeP50Ms)} | ${f(w.strokeP95Ms)} | ${f(w.strokeP99Ms)} | ${f(w.strokeMaxMs, 0)} | ${f(w.ackP50Ms)} / ${f(w.ackP99Ms)} | ${f(w.meanPayloadBytes, 0)}, ${f(w.meanPoints, 0)} | ${w.timeouts} | ${w.unavailable} | ${otherErrors} | ${s.missingAtEnd} | ${w.renewalsLost} / ${w.renewalsSent} | ${f(w.renewalP99Ms)} | ${f(w.serverCores, 2)} | ${f(w.serverCpuMsPerStroke, 2)} | ${f(w.postgresCpuMsPerStroke, 2)} | ${f(w.statementsPerStroke, 2)} | ${f(w.serverEventLoopP99Ms, 0)} | ${f(w.cursorP99Ms)} / ${f(w.cursorP99MergedCountedMs)} | ${pct(w.cursorDelivery, 2)} | ${f(w.generatorCores, 2)}${w.generatorSaturated ? ' (saturated)' : ''} | ${w.otherLoadProcesses > 0 ? f(w.otherLoadCores, 2) : '-'} | ${f(w.loadAverage1m, 2)} |`,
    );
  }
  if (d.options.liveInk) out.push('', `Live ink, chunk send to arrival p99: ${d.windows.map((w) => `${w.rooms} rooms ${f(w.liveInkP99Ms)} ms`).join(', ')}.`);
}

function abSection(ab: DrawingABResult, out: string[]): void {
  const t = ab.timing;
  out.push(
    '',
    `### A/B: drawing class with live ink, ${ab.mode === 'pinned' ? 'pinned' : 'shared cores'} (baseline ${ab.baseline.commit}, candidate ${ab.candidate.commit}; window ${t.windowMs / 1000} s after ${t.warmupMs / 1000} s warm-up, ${t.repeats}x per point, alternating)`,
    '',
    `Candidate's server CPU per stroke over the baseline's, mean per point: ${Object.entries(ab.meanRatioByRooms).map(([rooms, r]) => `${rooms} rooms ${f(r, 2)}x`).join(', ')} (issue 42's goal: <= 0.50x).`,
    '',
    '| rooms | # | build | pass | strokes/s | stroke p50 / p99 ms | ink p99 ms | cursor p99 (merged) ms | server cores | server ms CPU / stroke | ratio | socket writes / stroke | loop p99 ms | load avg 1m |',
    '|---:|---:|---|---|---:|---|---:|---|---:|---:|---:|---:|---:|---:|',
  );
  for (const p of ab.points) {
    for (const [build, w] of [['baseline', p.baseline], ['candidate', p.candidate]] as const) {
      out.push(
        `| ${p.rooms} | ${p.repeat} | ${build} | ${w.pass ? 'yes' : `NO: ${w.failedBecause.join('; ')}`} | ${f(w.strokesPerSec, 1)} | ${f(w.strokeP50Ms, 1)} / ${f(w.strokeP99Ms, 1)} | ${f(w.liveInkP99Ms, 1)} | ${f(w.cursorP99Ms, 1)} (${f(w.cursorP99MergedCountedMs, 1)}) | ${f(w.serverCores, 2)} | ${f(w.serverCpuMsPerStroke, 2)} | ${build === 'candidate' ? `${f(p.cpuPerStrokeRatio, 2)}x` : ''} | ${f(w.serverWritesPerStroke, 0)} | ${f(w.serverEventLoopP99Ms, 0)} | ${f(w.loadAverage1m, 2)} |`,
      );
    }
  }
}

function lectureSection(l: LectureResult, out: string[]): void {
  const t = l.timing;
  out.push(
    '',
    `### Lecture hall: one lesson, the teacher and 30 students drawing with live ink, every member's cursor at ${l.cursorHz} Hz, students see the teacher's (window ${t.windowMs / 1000} s after ${t.warmupMs / 1000} s warm-up)`,
    '',
    `Target (issue 42): stroke and live-ink p99 <= ${l.passRule.strokeP99Ms} ms at 151 members; server CPU per member flat as the room grows.`,
    '',
    '| members | pass | strokes/s | stroke p50 / p99 ms | ink p99 ms | server cores | ms CPU/s per member | per member over the first point | socket writes / stroke | renewals lost / sent | loop p99 ms | load avg 1m |',
    '|---:|---|---:|---|---:|---:|---:|---:|---:|---|---:|---:|',
  );
  for (const p of l.points) {
    const w = p.window;
    out.push(
      `| ${p.members} | ${p.pass ? 'yes' : `NO: ${p.failedBecause.join('; ')}`} | ${f(w.strokesPerSec, 1)} | ${f(w.strokeP50Ms, 1)} / ${f(w.strokeP99Ms, 1)} | ${f(w.liveInkP99Ms, 1)} | ${f(w.serverCores, 2)} | ${f(p.cpuMsPerMemberSecond, 2)} | ${f(p.perMemberOverFirst, 2)}x | ${f(w.serverWritesPerStroke, 0)} | ${w.renewalsLost} / ${w.renewalsSent} | ${f(w.serverEventLoopP99Ms, 0)} | ${f(w.loadAverage1m, 2)} |`,
    );
  }
}
