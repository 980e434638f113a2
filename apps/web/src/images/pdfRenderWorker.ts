/**
 * pdf.js in a worker of its own (pdfImport.ts starts it where the browser has OffscreenCanvas):
 * the PDF is parsed (in pdf.js's nested worker), each page drawn on an OffscreenCanvas and encoded
 * as PNG here, and only the PNG goes back to the page. Nothing of a page's rendering runs on the
 * page's thread. A plain same-origin module worker: no secure context needed (I15).
 *
 * The page asks for one page at a time (`render`), so at most one page's pixels are held; closing
 * the import terminates the worker.
 */
import { GlobalWorkerOptions, getDocument } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { isRenderMessage, type FromRenderWorker, type ToRenderWorker } from './pdfRenderMessages.ts';

GlobalWorkerOptions.workerSrc = workerUrl;

interface CanvasAndContext {
  canvas: OffscreenCanvas | null;
  context: OffscreenCanvasRenderingContext2D | null;
}

/** pdf.js's canvas factory (its `BaseCanvasFactory` shape) over OffscreenCanvas: a worker has no `document`. */
class OffscreenCanvasFactory {
  create(width: number, height: number): CanvasAndContext {
    const canvas = new OffscreenCanvas(width, height);
    return { canvas, context: canvas.getContext('2d', { willReadFrequently: true }) };
  }
  reset(target: CanvasAndContext, width: number, height: number): void {
    if (!target.canvas) throw new Error('Canvas is not specified');
    target.canvas.width = width;
    target.canvas.height = height;
  }
  destroy(target: CanvasAndContext): void {
    if (target.canvas) target.canvas.width = target.canvas.height = 0;
    target.canvas = null;
    target.context = null;
  }
  getNoAlphaContext(canvas: OffscreenCanvas) {
    return canvas.getContext('2d', { alpha: false, willReadFrequently: true });
  }
}

const scope = globalThis as unknown as {
  onmessage: ((e: MessageEvent<ToRenderWorker>) => void) | null;
  postMessage(message: FromRenderWorker): void;
  fonts?: FontFaceSet;
  location: { href: string };
};

/** What pdf.js reads of its "owner document": the worker's font set (FontFace loads in workers too). */
const workerDocument = { fonts: scope.fonts, baseURI: scope.location.href };

type PdfDocument = Awaited<ReturnType<typeof getDocument>['promise']>;
let pdf: PdfDocument | null = null;

async function open(data: ArrayBuffer, maxPages: number): Promise<void> {
  const task = getDocument({
    data: new Uint8Array(data),
    CanvasFactory: OffscreenCanvasFactory as never,
    ownerDocument: workerDocument as never,
    isOffscreenCanvasSupported: true,
  });
  pdf = await task.promise;
  scope.postMessage({ wbPdf: true, type: 'opened', pages: Math.min(pdf.numPages, maxPages), totalPages: pdf.numPages });
}

async function render(index: number, side: number): Promise<void> {
  if (!pdf) throw new Error('no PDF open');
  const page = await pdf.getPage(index + 1);
  const unscaled = page.getViewport({ scale: 1 });
  const viewport = page.getViewport({ scale: side / Math.max(unscaled.width, unscaled.height) });
  const canvas = new OffscreenCanvas(Math.round(viewport.width), Math.round(viewport.height));
  const context = canvas.getContext('2d', { alpha: false });
  if (!context) throw new Error('no 2d context');
  try {
    await page.render({ canvasContext: context as never, canvas: canvas as never, viewport, background: '#ffffff' }).promise;
    scope.postMessage({ wbPdf: true, type: 'page', index, image: await canvas.convertToBlob({ type: 'image/png' }) });
  } finally {
    page.cleanup();
    canvas.width = 0;
    canvas.height = 0;
  }
}

scope.onmessage = (e) => {
  const message = e.data;
  if (!isRenderMessage(message)) return;
  const work = message.type === 'open' ? open(message.data, message.maxPages) : render(message.index, message.side);
  work.catch((error: unknown) => scope.postMessage({ wbPdf: true, type: 'failed', reason: String(error) }));
};
