/**
 * The PDF import's fallback where a browser has no OffscreenCanvas (pdfImport.ts decides): pdf.js
 * parses in its worker but draws each page on the page's own canvas and `toBlob` encodes it, a
 * page at a time. Loaded only then.
 */
import { GlobalWorkerOptions, getDocument } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import type { PageSource } from './pdfImport.ts';

GlobalWorkerOptions.workerSrc = workerUrl;

export async function openOnPage(data: ArrayBuffer, maxPages: number, side: number): Promise<PageSource> {
  const task = getDocument({ data: new Uint8Array(data) });
  const pdf = await task.promise;
  return {
    pages: Math.min(pdf.numPages, maxPages),
    totalPages: pdf.numPages,
    async render(index) {
      const page = await pdf.getPage(index + 1);
      const unscaled = page.getViewport({ scale: 1 });
      const viewport = page.getViewport({ scale: side / Math.max(unscaled.width, unscaled.height) });
      const canvas = document.createElement('canvas');
      canvas.width = Math.round(viewport.width);
      canvas.height = Math.round(viewport.height);
      try {
        await page.render({ canvas, viewport, background: '#ffffff' }).promise;
        const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/png'));
        if (!blob) throw new Error(`page ${index + 1} could not be encoded`);
        return blob;
      } finally {
        page.cleanup();
        // The canvas's memory goes back at once: fifty pages would otherwise wait for the collector.
        canvas.width = 0;
        canvas.height = 0;
      }
    },
    close: () => void task.destroy(),
  };
}
