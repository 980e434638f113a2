import type { ElementShape } from '@wb/protocol';
import { LRUCache } from 'lru-cache';
import { equationHtml } from './elementSvg.ts';

/**
 * An equation's typeset formula as a picture a canvas can draw (the class grid's tiles,
 * activity/TileBoard.tsx): the markup the board's SVG shows (elementSvg.ts's `equationHtml` in a
 * `foreignObject` of the element's box), as an SVG image decoded once. Until KaTeX has loaded or
 * the image has decoded the answer is null (the caller draws the source, as the overview does);
 * `onEquationPictureReady` listeners then draw again.
 *
 * From a `data:` URL: Chromium taints a canvas that draws a `foreignObject` SVG from a blob URL
 * (exportImage.ts), and a tile's pixels are read by its test.
 */

type Equation = Extract<ElementShape, { kind: 'equation' }>;

/** Decoded pictures kept (by markup and box): a class's boards share a few equations. */
const MAX_PICTURES = 200;
const pictures = new LRUCache<string, HTMLImageElement | 'decoding' | 'failed'>({ max: MAX_PICTURES });
const listeners = new Set<() => void>();

export function equationPicture(shape: Equation): CanvasImageSource | null {
  const html = equationHtml(shape.latex, shape.fontSize, shape.stroke);
  if (html === null || typeof Image !== 'function') return null;
  const key = `${shape.w}x${shape.h}:${html}`;
  const held = pictures.get(key);
  if (held !== undefined) return typeof held === 'string' ? null : held;
  pictures.set(key, 'decoding');
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${shape.w}" height="${shape.h}" viewBox="0 0 ${shape.w} ${shape.h}">` +
    `<foreignObject x="0" y="0" width="${shape.w}" height="${shape.h}">${html}</foreignObject></svg>`;
  const image = new Image();
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  image.decode().then(
    () => {
      pictures.set(key, image);
      for (const listener of listeners) listener();
    },
    () => pictures.set(key, 'failed'),
  );
  return null;
}

/** Called when a picture asked for has decoded. Returns the unsubscribe. */
export function onEquationPictureReady(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
