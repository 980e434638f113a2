/**
 * PDF worksheets imported page by page (issue 23 item 4, issue 39 part 3). This module is loaded
 * only when a teacher first imports a PDF (imageInput.ts imports it dynamically), and pdf.js only
 * inside the worker it starts: none of it is part of the page's first load.
 *
 * Off the page's thread: where the browser has OffscreenCanvas (Chromium, Firefox, Safari 16.4+),
 * pdf.js runs in pdfRenderWorker.ts, which parses the PDF, draws each page on an OffscreenCanvas
 * and encodes it as PNG; the page only receives the PNG. Elsewhere, or if that worker cannot open
 * the file, pdfMainThread.ts draws on the page, a page at a time. Both are same-origin workers and
 * canvases: nothing here needs a secure context (I15).
 *
 * One page at a time: each is rendered, handed to `onPage` (uploaded and placed by the caller),
 * and the next asked for while that upload runs, so a 50-page PDF holds one or two pages' pixels,
 * never fifty. Cancel stops between pages and ends the worker.
 */
import { isRenderMessage, type FromRenderWorker, type ToRenderWorker } from './pdfRenderMessages.ts';

/** Pages imported from one PDF at most; the rest are left out (and the teacher is told). */
export const MAX_PDF_PAGES = 50;
/** A page is rendered with its longer side this many pixels: sharp on a projector, a few hundred KB as PNG. */
export const PDF_PAGE_SIDE = 1_600;
/** PDFs larger than this are not read (50 MB). */
export const MAX_PDF_BYTES = 50 * 1024 * 1024;

/** An open PDF that renders its pages as PNGs, wherever it does so. */
export interface PageSource {
  /** Pages to import (at most MAX_PDF_PAGES) and pages in the file. */
  readonly pages: number;
  readonly totalPages: number;
  render(index: number): Promise<Blob>;
  close(): void;
}

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

/** Where pages are drawn: off the page's thread where the browser can. */
export const rendersInWorker = () => typeof Worker !== 'undefined' && typeof OffscreenCanvas !== 'undefined';

type Untagged<T> = T extends unknown ? Omit<T, 'wbPdf'> : never;

/** pdf.js in pdfRenderWorker.ts; rejects when the worker cannot open the file there. */
function openInWorker(data: ArrayBuffer): Promise<PageSource> {
  const worker = new Worker(new URL('./pdfRenderWorker.ts', import.meta.url), { type: 'module' });
  const send = (message: Untagged<ToRenderWorker>, transfer: Transferable[] = []) => worker.postMessage({ ...message, wbPdf: true }, transfer);
  let waiting: { resolve: (m: FromRenderWorker) => void; reject: (e: Error) => void } | null = null;
  const next = () => new Promise<FromRenderWorker>((resolve, reject) => (waiting = { resolve, reject }));
  worker.onmessage = (e: MessageEvent<FromRenderWorker>) => {
    if (isRenderMessage(e.data)) waiting?.resolve(e.data);
  };
  worker.onerror = (e) => waiting?.reject(new Error(e.message || 'the PDF worker failed'));
  const close = () => {
    worker.terminate();
    waiting?.reject(new Error('closed'));
  };
  const answer = next();
  send({ type: 'open', data, maxPages: MAX_PDF_PAGES }, [data]);
  return answer.then(
    (opened) => {
      if (opened.type !== 'opened') throw new Error(opened.type === 'failed' ? opened.reason : 'unexpected answer');
      return {
        pages: opened.pages,
        totalPages: opened.totalPages,
        async render(index) {
          const rendered = next();
          send({ type: 'render', index, side: PDF_PAGE_SIDE });
          const reply = await rendered;
          if (reply.type !== 'page' || reply.index !== index) throw new Error(reply.type === 'failed' ? reply.reason : 'unexpected answer');
          return reply.image;
        },
        close,
      };
    },
    (error: unknown) => {
      close();
      throw error;
    },
  );
}

async function openPdf(file: Blob): Promise<PageSource> {
  if (rendersInWorker()) {
    try {
      // A copy for the worker (transferred away); the file itself stays readable for the fallback.
      return await openInWorker(await file.arrayBuffer());
    } catch {
      // A browser whose workers cannot draw this PDF: the page draws it.
    }
  }
  const { openOnPage } = await import('./pdfMainThread.ts');
  return openOnPage(await file.arrayBuffer(), MAX_PDF_PAGES, PDF_PAGE_SIDE);
}

/** Renders a PDF's pages one by one and hands each to `onPage`. Throws when the file cannot be read. */
export async function importPdfPages(file: Blob, handlers: PdfImportHandlers): Promise<PdfImportResult> {
  if (file.size > MAX_PDF_BYTES) throw new Error('too large');
  const { signal } = handlers;
  const source = await openPdf(file);
  const stop = () => source.close();
  signal.addEventListener('abort', stop, { once: true });
  let imported = 0;
  try {
    handlers.onOpened(source.pages, source.totalPages);
    // The upload of page n overlaps the render of page n + 1; never more than one of each.
    let handing: Promise<boolean> = Promise.resolve(true);
    for (let index = 0; index < source.pages && !signal.aborted; index++) {
      const image = await source.render(index);
      if (!(await handing) || signal.aborted) break;
      handing = handlers.onPage(index, image).then((ok) => {
        if (ok) imported += 1;
        return ok;
      });
    }
    await handing;
    return { imported, totalPages: source.totalPages, cancelled: signal.aborted };
  } catch (error) {
    if (signal.aborted) return { imported, totalPages: source.totalPages, cancelled: true };
    throw error;
  } finally {
    signal.removeEventListener('abort', stop);
    source.close();
  }
}
