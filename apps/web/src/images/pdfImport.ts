/**
 * PDF worksheets rendered in the browser (issue 23 item 4). This module and pdf.js are loaded only
 * when a teacher first imports a PDF (imageInput.ts imports it dynamically): they are their own
 * chunks, not part of the page's first load. pdf.js parses in its own worker (a same-origin
 * script, allowed by the page's CSP).
 */
import { GlobalWorkerOptions, getDocument } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

GlobalWorkerOptions.workerSrc = workerUrl;

/** Pages imported from one PDF at most; the rest are left out (and the teacher is told). */
export const MAX_PDF_PAGES = 20;
/** A page is rendered with its longer side this many pixels: sharp on a projector, a few hundred KB as PNG. */
export const PDF_PAGE_SIDE = 1_600;
/** PDFs larger than this are not read (50 MB). */
export const MAX_PDF_BYTES = 50 * 1024 * 1024;

export interface RenderedPdf {
  readonly pages: Blob[];
  readonly totalPages: number;
}

/** Renders the first MAX_PDF_PAGES pages of a PDF, each as a PNG on white. Throws when the file cannot be read. */
export async function renderPdfPages(file: Blob): Promise<RenderedPdf> {
  if (file.size > MAX_PDF_BYTES) throw new Error('too large');
  const data = new Uint8Array(await file.arrayBuffer());
  const task = getDocument({ data });
  const pdf = await task.promise;
  try {
    const pages: Blob[] = [];
    const count = Math.min(pdf.numPages, MAX_PDF_PAGES);
    for (let n = 1; n <= count; n++) {
      const page = await pdf.getPage(n);
      const unscaled = page.getViewport({ scale: 1 });
      const viewport = page.getViewport({ scale: PDF_PAGE_SIDE / Math.max(unscaled.width, unscaled.height) });
      const canvas = document.createElement('canvas');
      canvas.width = Math.round(viewport.width);
      canvas.height = Math.round(viewport.height);
      await page.render({ canvas, viewport, background: '#ffffff' }).promise;
      const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/png'));
      page.cleanup();
      if (!blob) throw new Error(`page ${n} could not be encoded`);
      pages.push(blob);
      // The canvas's memory goes back at once: twenty pages would otherwise wait for the collector.
      canvas.width = 0;
      canvas.height = 0;
    }
    return { pages, totalPages: pdf.numPages };
  } finally {
    await task.destroy();
  }
}
