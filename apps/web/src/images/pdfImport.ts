/**
 * PDF worksheets rendered in the browser (issue 23 item 4, issue 39 part 3). This module and pdf.js
 * are loaded only when a teacher first imports a PDF (imageInput.ts imports it dynamically): they
 * are their own chunks, not part of the page's first load.
 *
 * Off the main thread: pdf.js parses in its worker, and draws each page in its renderer worker on
 * an OffscreenCanvas (`GlobalWorkerOptions.rendererSrc`, pdf.js 6); the page receives the finished
 * frame as a bitmap and only copies it and encodes it (`toBlob`, asynchronous). Where a browser has
 * no OffscreenCanvas, pdf.js draws on the page itself, a page at a time, yielding between pages.
 * Both are plain same-origin workers: nothing here needs a secure context (I15).
 *
 * One page at a time: each is rendered, handed to `onPage` (uploaded and placed by the caller) and
 * its canvas released before the next, so a 50-page PDF holds one page's pixels, never fifty. The
 * caller's Cancel aborts between pages and stops the render in progress.
 */
import { GlobalWorkerOptions, getDocument } from 'pdfjs-dist';
import rendererUrl from 'pdfjs-dist/build/pdf.renderer.min.mjs?url';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

GlobalWorkerOptions.workerSrc = workerUrl;
GlobalWorkerOptions.rendererSrc = rendererUrl;

/** Pages imported from one PDF at most; the rest are left out (and the teacher is told). */
export const MAX_PDF_PAGES = 50;
/** A page is rendered with its longer side this many pixels: sharp on a projector, a few hundred KB as PNG. */
export const PDF_PAGE_SIDE = 1_600;
/** PDFs larger than this are not read (50 MB). */
export const MAX_PDF_BYTES = 50 * 1024 * 1024;

export interface PdfImportHandlers {
  /** Cancel: no page is rendered or handed over after it fires. */
  readonly signal: AbortSignal;
  /** The PDF is open: `pages` will be imported of its `totalPages`. */
  onOpened(pages: number, totalPages: number): void;
  /** One page's picture (PNG on white), in order from 0. Resolves false to stop (a refused upload). */
  onPage(pageIndex: number, image: Blob): Promise<boolean>;
}

export interface PdfImportResult {
  readonly imported: number;
  readonly totalPages: number;
  readonly cancelled: boolean;
}

/** Renders a PDF's pages one by one and hands each to `onPage`. Throws when the file cannot be read. */
export async function importPdfPages(file: Blob, handlers: PdfImportHandlers): Promise<PdfImportResult> {
  if (file.size > MAX_PDF_BYTES) throw new Error('too large');
  const { signal } = handlers;
  const data = new Uint8Array(await file.arrayBuffer());
  const task = getDocument({ data });
  const stop = () => void task.destroy();
  signal.addEventListener('abort', stop, { once: true });
  let imported = 0;
  try {
    const pdf = await task.promise;
    const count = Math.min(pdf.numPages, MAX_PDF_PAGES);
    handlers.onOpened(count, pdf.numPages);
    // The upload of page n overlaps the render of page n + 1; never more than one of each.
    let handing: Promise<boolean> = Promise.resolve(true);
    for (let n = 1; n <= count && !signal.aborted; n++) {
      const image = await renderPage(pdf, n, signal);
      if (!(await handing) || signal.aborted) break;
      handing = handlers.onPage(n - 1, image).then((ok) => {
        if (ok) imported += 1;
        return ok;
      });
    }
    await handing;
    return { imported, totalPages: pdf.numPages, cancelled: signal.aborted };
  } catch (error) {
    if (signal.aborted) return { imported, totalPages: 0, cancelled: true };
    throw error;
  } finally {
    signal.removeEventListener('abort', stop);
    await task.destroy();
  }
}

type PdfDocument = Awaited<ReturnType<typeof getDocument>['promise']>;

async function renderPage(pdf: PdfDocument, n: number, signal: AbortSignal): Promise<Blob> {
  const page = await pdf.getPage(n);
  const unscaled = page.getViewport({ scale: 1 });
  const viewport = page.getViewport({ scale: PDF_PAGE_SIDE / Math.max(unscaled.width, unscaled.height) });
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(viewport.width);
  canvas.height = Math.round(viewport.height);
  try {
    const render = page.render({ canvas, viewport, background: '#ffffff' });
    const cancel = () => render.cancel();
    signal.addEventListener('abort', cancel, { once: true });
    try {
      await render.promise;
    } finally {
      signal.removeEventListener('abort', cancel);
    }
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/png'));
    if (!blob) throw new Error(`page ${n} could not be encoded`);
    return blob;
  } finally {
    page.cleanup();
    // The canvas's memory goes back at once: fifty pages would otherwise wait for the collector.
    canvas.width = 0;
    canvas.height = 0;
  }
}
