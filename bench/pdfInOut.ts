/**
 * PDF in and out (issue 39, "Performance"), the `pdf` scenario of `pnpm bench`:
 *
 *   - import: a teacher's tab imports a 50-page PDF (e2e/worksheetPdf.ts: a heading and a box per
 *     page) in full Chromium; measured from the file being chosen to the 50th page placed on the
 *     board, the first page placed, the longest main-thread task while it ran (Long Tasks API, the
 *     issue's bound is 200 ms) and the tab's peak JS heap (CDP `Performance.getMetrics`, sampled
 *     every 100 ms: pdf.js's workers and the canvases' pixels are not in it);
 *   - export: a 30-page lesson drawn to one PDF by the server's renderer (boardsPdf.ts), each page
 *     a board of 120 pen strokes, 8 text boxes (one in Arabic), 2 equations and a picture; timed in
 *     this process, median of 3, and the file's size.
 *
 * The server for the import is the browser suite's compiled server (scripts/test-server.mjs) on a
 * fresh PGlite at 127.0.0.1:PORT (default 3318; BENCH_PDF_PORT). Chromium: /usr/bin/chromium or
 * CHROMIUM_PATH. Standalone: `node --import tsx bench/pdfInOut.ts` (after `pnpm build`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from '@playwright/test';
import type { Element, ElementShape } from '@wb/protocol';
import { boardsPdf, type PdfBoard } from '../apps/server/src/pdf/boardsPdf.ts';
import { pngFile } from '../packages/protocol/test/pngFixture.ts';
import { worksheetPdf } from '../e2e/worksheetPdf.ts';

export interface PdfImportResult {
  pages: number;
  /** File chosen to the last page placed (ms). */
  totalMs: number;
  /** File chosen to the first page placed (ms). */
  firstPageMs: number;
  /** Longest main-thread task while importing (ms), and how many tasks went over 50 ms. */
  longestTaskMs: number;
  longTasks: number;
  /** Peak JS heap of the tab while importing, and before it (MB). */
  peakHeapMb: number;
  baseHeapMb: number;
}

export interface PdfExportResult {
  pages: number;
  elementsPerPage: number;
  runsMs: number[];
  medianMs: number;
  bytes: number;
}

export interface PdfBenchResult {
  import?: PdfImportResult;
  export: PdfExportResult;
  /** The longest-task bound of issue 39 (ms). */
  longestTaskBoundMs: number;
}

export const LONGEST_TASK_BOUND_MS = 200;
const repoRoot = resolve(import.meta.dirname, '..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

async function startServer(port: number): Promise<{ stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'wb-pdf-bench-'));
  const child: ChildProcess = spawn(process.execPath, ['scripts/test-server.mjs'], {
    cwd: repoRoot,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', PGLITE_DIR: join(dir, 'pglite'), WB_PGLITE_TEMPLATE_DISK: 'on', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 240; i++) {
    if (await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false)) break;
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// A string, not a function: tsx's transform would name the inner functions with a helper the page lacks.
const LONG_TASKS = `(() => {
  window.__longTasks = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); }).observe({ type: 'longtask', buffered: true });
})();`;

export async function pdfImportBench(pages = 50, port = Number(process.env.BENCH_PDF_PORT ?? 3318)): Promise<PdfImportResult> {
  const server = await startServer(port);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.addInitScript({ content: LONG_TASKS });
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.getByLabel('Your name').fill('Bench teacher');
    await page.getByRole('button', { name: 'Start lesson' }).click();
    await page.locator('[data-testid="connection-status"][data-state="live"]').waitFor();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    const heap = async () => {
      const { metrics } = (await cdp.send('Performance.getMetrics')) as { metrics: Array<{ name: string; value: number }> };
      return (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0) / 1024 / 1024;
    };
    const baseHeapMb = await heap();
    let peakHeapMb = baseHeapMb;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peakHeapMb = Math.max(peakHeapMb, await heap());
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const count = () => page.evaluate(() => (globalThis as unknown as { __wb?: { elements(): unknown[] } }).__wb?.elements().length ?? 0);
    await page.evaluate(() => ((globalThis as unknown as { __longTasks: number[] }).__longTasks.length = 0));
    const started = Date.now();
    await page.getByTestId('image-file').setInputFiles({ name: 'bench.pdf', mimeType: 'application/pdf', buffer: worksheetPdf(pages) });
    let firstPageMs = 0;
    for (;;) {
      const placed = await count();
      if (placed > 0 && firstPageMs === 0) firstPageMs = Date.now() - started;
      if (placed >= pages) break;
      if (Date.now() - started > 600_000) throw new Error(`only ${placed} of ${pages} pages after 10 minutes`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const totalMs = Date.now() - started;
    sampling = false;
    await sampler;
    const tasks = await page.evaluate(() => (globalThis as unknown as { __longTasks: number[] }).__longTasks);
    await context.close();
    return { pages, totalMs, firstPageMs, longestTaskMs: Math.round(Math.max(0, ...tasks)), longTasks: tasks.length, peakHeapMb: Math.round(peakHeapMb), baseHeapMb: Math.round(baseHeapMb) };
  } finally {
    await browser.close();
    await server.stop();
  }
}

/** One board of a lesson as a teacher fills it: strokes, text, equations and a picture. */
function boardOf(page: number, sha256: string): Element[] {
  const shapes: ElementShape[] = [];
  for (let i = 0; i < 120; i++) {
    const x = (i % 12) * 70;
    const y = Math.floor(i / 12) * 60;
    shapes.push({ kind: 'pen', x, y, points: Array.from({ length: 60 }, (_, k) => [k, Math.sin((k + i) / 6) * 14, 0.5] as [number, number, number]), stroke: '#1971c2', strokeWidth: 3 });
  }
  for (let i = 0; i < 8; i++) {
    shapes.push({ kind: 'text', x: 900, y: i * 60, w: 360, h: 48, text: i === 7 ? 'مرحبا بالعالم' : `Página ${page}, paso ${i + 1}: ¿cuánto es?`, stroke: '#1e1e1e', fontSize: 24 });
  }
  shapes.push({ kind: 'equation', x: 0, y: 640, w: 200, h: 60, latex: '\\frac{a}{b} + \\sqrt{x^2 + 1}', stroke: '#1e1e1e', fontSize: 32 });
  shapes.push({ kind: 'equation', x: 300, y: 640, w: 200, h: 60, latex: `x_{${page}} = \\sum_{i=1}^{n} i^2`, stroke: '#1e1e1e', fontSize: 32 });
  shapes.push({ kind: 'image', x: 600, y: 640, w: 200, h: 150, sha256, naturalWidth: 64, naturalHeight: 48 });
  return shapes.map((shape, z) => ({ id: randomUUID(), shape, version: 1, pinned: false, createdBy: randomUUID(), updatedBy: randomUUID(), z: z + 1, lock: null }));
}

export async function pdfExportBench(pages = 30, runs = 3): Promise<PdfExportResult> {
  const png = pngFile(64, 48, [40, 120, 200, 255]);
  const sha256 = createHash('sha256').update(png).digest('hex');
  const boards: PdfBoard[] = Array.from({ length: pages }, (_, i) => ({ caption: `Bench lesson · page ${i + 1}`, elements: boardOf(i + 1, sha256), paper: 'grid' }));
  const pictureOf = async () => ({ data: new Uint8Array(png), mime: 'image/png' });
  const runsMs: number[] = [];
  let bytes = 0;
  for (let r = 0; r < runs; r++) {
    const started = performance.now();
    bytes = (await boardsPdf(boards, pictureOf, { title: 'Bench lesson' })).byteLength;
    runsMs.push(Math.round(performance.now() - started));
  }
  const sorted = [...runsMs].sort((a, b) => a - b);
  return { pages, elementsPerPage: boards[0]!.elements.length, runsMs, medianMs: sorted[Math.floor(sorted.length / 2)]!, bytes };
}

export async function pdfBench(log: (line: string) => void): Promise<PdfBenchResult> {
  log('pdf export: a 30-page lesson to one PDF');
  const exported = await pdfExportBench();
  log(`pdf export: median ${exported.medianMs} ms (${exported.runsMs.join(', ')}), ${(exported.bytes / 1024).toFixed(0)} KB`);
  log('pdf import: a 50-page PDF in a teacher\'s tab');
  const imported = await pdfImportBench();
  log(`pdf import: ${imported.totalMs} ms (first page ${imported.firstPageMs} ms), longest task ${imported.longestTaskMs} ms, peak heap ${imported.peakHeapMb} MB`);
  return { import: imported, export: exported, longestTaskBoundMs: LONGEST_TASK_BOUND_MS };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await pdfBench((line) => console.log(line));
  console.log(JSON.stringify(result, null, 2));
}
