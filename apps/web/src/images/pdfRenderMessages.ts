/**
 * The messages between pdfImport.ts and its render worker (pdfRenderWorker.ts). Each carries
 * `wbPdf: true`: pdf.js's own worker code, loaded into the same worker when it runs there (its
 * "fake worker"), talks on the same port, and each side ignores the other's messages.
 */
export type ToRenderWorker = { readonly wbPdf: true } & (
  | { readonly type: 'open'; readonly data: ArrayBuffer; readonly maxPages: number }
  | { readonly type: 'render'; readonly index: number; readonly side: number }
);

export type FromRenderWorker = { readonly wbPdf: true } & (
  | { readonly type: 'opened'; readonly pages: number; readonly totalPages: number }
  | { readonly type: 'page'; readonly index: number; readonly image: Blob }
  | { readonly type: 'failed'; readonly reason: string }
);

export const isRenderMessage = (data: unknown): boolean => typeof data === 'object' && data !== null && (data as { wbPdf?: unknown }).wbPdf === true;
