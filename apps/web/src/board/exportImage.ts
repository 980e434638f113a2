import type { Element, Paper } from '@wb/protocol';
import { boardSvgDocument } from '../elements/elementSvg.ts';
import { loadEquationRenderer } from '../elements/equationRenderer.ts';
import type { Bounds } from '../elements/geometry.ts';
import { embeddedImageHrefs } from '../images/imageRefs.ts';
import { paperSvg } from './paper.ts';

/** PNG exports are drawn at twice the board scale so text stays crisp on a projector. */
const PNG_SCALE = 2;
/** A canvas larger than this (px per side) fails in some browsers; huge boards are scaled down. */
const MAX_CANVAS_PX = 8_192;

function download(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked later: some browsers start the download after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function baseName(title: string): string {
  const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'board';
  return `${slug}-${new Date().toISOString().slice(0, 10)}`;
}

/** What an export may add to the elements. */
export interface ExportOptions {
  /** Draw the board's paper under the elements (graph paper's axes where they cross it). */
  readonly paper?: Paper;
}

/**
 * The board as a standalone SVG document. Equations need KaTeX: it is loaded first when the board
 * has any (their MathML goes in a `foreignObject`, which Chromium, Firefox and Safari draw).
 */
export async function boardSvg(ordered: readonly Element[], options: ExportOptions = {}): Promise<{ svg: string; bounds: Bounds }> {
  if (ordered.some((e) => e.shape.kind === 'equation')) await loadEquationRenderer();
  const { paper } = options;
  // Images as `data:` URIs: an exported SVG carries its pictures inside it, so the file stands alone.
  return boardSvgDocument(ordered, '#ffffff', paper ? (bounds) => paperSvg(paper, bounds) : undefined, await embeddedImageHrefs(ordered.map((e) => e.shape)));
}

export async function exportSvg(ordered: readonly Element[], title: string, options: ExportOptions = {}): Promise<void> {
  const { svg } = await boardSvg(ordered, options);
  download(new Blob([svg], { type: 'image/svg+xml' }), `${baseName(title)}.svg`);
}

/**
 * Several boards as one zip of PNGs, one per board, each named for its owner ("Ana.png"; a
 * repeated name numbered): the class's work in one download. The zip writer is loaded only here.
 */
export async function exportPngZip(boards: readonly { name: string; elements: readonly Element[] }[], title: string): Promise<void> {
  const { zipArchive, uniqueFileNames } = await import('./zipArchive.ts');
  const names = uniqueFileNames(boards.map((b) => b.name), 'png');
  const entries = [];
  for (const [i, board] of boards.entries()) {
    const { svg, bounds } = await boardSvg(board.elements);
    entries.push({ name: names[i]!, data: new Uint8Array(await (await pngOf(svg, bounds)).arrayBuffer()) });
  }
  download(new Blob([zipArchive(entries).buffer as ArrayBuffer], { type: 'application/zip' }), `${baseName(title)}.zip`);
}

/** The SVG document drawn onto a canvas: one renderer for screen, SVG and PNG. */
export async function exportPng(ordered: readonly Element[], title: string, options: ExportOptions = {}): Promise<void> {
  const { svg, bounds } = await boardSvg(ordered, options);
  download(await pngOf(svg, bounds), `${baseName(title)}.png`);
}

/**
 * An SVG document (of `bounds`' size, in board units) as a PNG, at twice the board scale (less for
 * a huge board): the board export and a copy's picture for other apps.
 */
export async function pngOf(svg: string, bounds: Bounds): Promise<Blob> {
  // Chromium taints a canvas that draws an SVG with a foreignObject (equations) from a blob URL,
  // and refuses to export it; from a data URL it does not. Other boards keep the blob URL (no
  // copy of a large document into a URL string).
  const foreign = svg.includes('<foreignObject');
  const url = foreign ? `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}` : URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.decoding = 'async';
    image.src = url;
    await image.decode();
    const scale = Math.min(PNG_SCALE, MAX_CANVAS_PX / Math.max(bounds.w, bounds.h));
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(bounds.w * scale));
    canvas.height = Math.max(1, Math.round(bounds.h * scale));
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('no 2d canvas');
    ctx.drawImage(image, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/png'));
    if (!blob) throw new Error('the canvas produced no image');
    return blob;
  } finally {
    if (!foreign) URL.revokeObjectURL(url);
  }
}
