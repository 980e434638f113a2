/**
 * Reading a PDF back in a test: pdf.js (pdfjs-dist, the reader the web client imports PDFs with)
 * parses it, lists each page's text and renders a page to pixels on @napi-rs/canvas (pdf.js's own
 * canvas for Node). Used by the PDF export and account export tests.
 */
import { createCanvas } from '@napi-rs/canvas';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

export interface ReadPdf {
  readonly pageCount: number;
  /** Each page's text, its runs joined by spaces. */
  readonly pageTexts: string[];
  /** Page `n` (1-based) drawn at `scale` (1 = 72 dpi): RGBA pixels. */
  render(n: number, scale?: number): Promise<{ width: number; height: number; data: Uint8ClampedArray }>;
  close(): Promise<void>;
}

/** Reads a PDF's page count and texts, then closes it. */
export async function pdfFacts(bytes: Uint8Array): Promise<{ pageCount: number; pageTexts: string[] }> {
  const pdf = await readPdf(bytes);
  await pdf.close();
  return { pageCount: pdf.pageCount, pageTexts: pdf.pageTexts };
}

export async function readPdf(bytes: Uint8Array): Promise<ReadPdf> {
  // pdf.js takes the buffer over: hand it a copy.
  const task = getDocument({ data: new Uint8Array(bytes) });
  const pdf = await task.promise;
  const pageTexts: string[] = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n);
    const content = await page.getTextContent();
    pageTexts.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
  }
  return {
    pageCount: pdf.numPages,
    pageTexts,
    async render(n, scale = 1) {
      const page = await pdf.getPage(n);
      const viewport = page.getViewport({ scale });
      const canvas = createCanvas(Math.ceil(viewport.width), Math.ceil(viewport.height));
      await page.render({ canvas: canvas as unknown as Parameters<typeof page.render>[0]['canvas'], viewport }).promise;
      const image = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      return { width: image.width, height: image.height, data: image.data };
    },
    close: () => task.destroy(),
  };
}

/** Pixels close to `rgb` (each channel within `tolerance`). */
export function pixelsNear(image: { data: Uint8ClampedArray }, rgb: readonly [number, number, number], tolerance = 40): number {
  let count = 0;
  for (let i = 0; i < image.data.length; i += 4) {
    if (Math.abs(image.data[i]! - rgb[0]) <= tolerance && Math.abs(image.data[i + 1]! - rgb[1]) <= tolerance && Math.abs(image.data[i + 2]! - rgb[2]) <= tolerance) count++;
  }
  return count;
}
