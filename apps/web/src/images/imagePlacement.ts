import type { ElementShape } from '@wb/protocol';
import { clampCoordinate, unionBounds, type Bounds, type Point } from '../elements/geometry.ts';

/** An image is added at most this wide or tall (board units), keeping its proportions. */
export const IMAGE_FIT = 640;
/** Space between pictures added together (the pages of a PDF), in board units. */
export const IMAGE_GAP = 24;

export interface PlacedPicture {
  readonly sha256: string;
  readonly width: number;
  readonly height: number;
}

/**
 * Image elements for pictures added together, one below the other, the first centred
 * horizontally on `at` with its top edge at `at` less half its height (a single picture is
 * centred on `at`). Each keeps its proportions within IMAGE_FIT, and never grows past its pixels.
 */
export function imageShapesAt(at: Point, pictures: readonly PlacedPicture[], fit = IMAGE_FIT): Extract<ElementShape, { kind: 'image' }>[] {
  const shapes: Extract<ElementShape, { kind: 'image' }>[] = [];
  let top: number | null = null;
  for (const p of pictures) {
    const scale = Math.min(1, fit / Math.max(p.width, p.height));
    const w = Math.round(p.width * scale * 100) / 100;
    const h = Math.round(p.height * scale * 100) / 100;
    top ??= at.y - h / 2;
    shapes.push({ kind: 'image', x: clampCoordinate(at.x - w / 2), y: clampCoordinate(top), w, h, sha256: p.sha256, naturalWidth: p.width, naturalHeight: p.height });
    top += h + IMAGE_GAP;
  }
  return shapes;
}

const overlaps = (a: Bounds, b: Bounds) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/**
 * Pictures that must not land on the work already on the board (a PDF's pages): where asked when
 * that spot is free, else moved as one column to just right of everything on the board (a gap of
 * IMAGE_GAP), at the same height, so no page covers anything and the pages stay in view's reach.
 */
export function inFreeSpot<S extends Extract<ElementShape, { kind: 'image' }>>(shapes: readonly S[], existing: readonly Bounds[]): S[] {
  const column = unionBounds(shapes.map((s) => ({ x: s.x, y: s.y, w: s.w, h: s.h })));
  if (!column || !existing.some((b) => overlaps(b, column))) return [...shapes];
  const work = unionBounds(existing)!;
  const dx = work.x + work.w + IMAGE_GAP - column.x;
  return shapes.map((s) => ({ ...s, x: clampCoordinate(s.x + dx) }));
}
