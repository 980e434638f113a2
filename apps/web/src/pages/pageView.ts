/**
 * The view box of a page's thumbnail (the strip, the library): what is on the page, with a margin,
 * in the board's 16:10 shape; an empty page shows the board's usual first screen.
 */
import type { Element } from '@wb/protocol';
import { BOARD_H, BOARD_W } from '../activity/tilePainter.ts';
import { shapeBounds, unionBounds } from '../elements/geometry.ts';

export function thumbnailViewBox(elements: readonly Element[]): string {
  const work = unionBounds(elements.map((e) => shapeBounds(e.shape)));
  if (!work) return `0 0 ${BOARD_W} ${BOARD_H}`;
  const margin = Math.max(work.w, work.h) * 0.08 + 20;
  let w = work.w + 2 * margin;
  let h = work.h + 2 * margin;
  // The board's shape: widen or heighten around the work's centre.
  if (w / h > BOARD_W / BOARD_H) h = (w * BOARD_H) / BOARD_W;
  else w = (h * BOARD_W) / BOARD_H;
  const x = work.x + work.w / 2 - w / 2;
  const y = work.y + work.h / 2 - h / 2;
  return `${x} ${y} ${w} ${h}`;
}
