/**
 * Where the teacher's next stamp (✓ ★ ?) lands on a student's board: at the top-right corner of the
 * student's work, where a teacher ticks an answer, in the first free place of a column running down
 * from it; a full column moves one column right. A place is free when no mark the teacher already
 * made there (stamps, writing, drawing) overlaps it, so every stamp stays visible however many she
 * gives, whatever she drew, and however the work grew since the last one. Pure: bounds in, point out.
 */
import type { Bounds, Point } from '../elements/geometry.ts';

/** Places tried per column before the next column (a column of 10 stamps is 640 px tall). */
const ROWS = 10;
const COLUMNS = 6;

const overlaps = (a: Bounds, b: Bounds) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/**
 * The top-left corner of the next stamp of `size` (its box is `size` wide, `size + gap` tall): the
 * first place, down the column at `work`'s top-right corner (the board's origin with no work),
 * that overlaps none of `marks`. With every place taken, the last one.
 */
export function stampSpot(work: Bounds | null, marks: readonly Bounds[], size: number, gap = 8): Point {
  const cornerX = (work ? work.x + work.w : 0) - size / 2;
  const cornerY = (work ? work.y : 0) - size / 2;
  let spot: Point = { x: cornerX, y: cornerY };
  for (let column = 0; column < COLUMNS; column++) {
    for (let row = 0; row < ROWS; row++) {
      spot = { x: cornerX + column * (size + gap), y: cornerY + row * (size + gap) };
      const box = { x: spot.x, y: spot.y, w: size, h: size + gap };
      if (!marks.some((m) => overlaps(box, m))) return spot;
    }
  }
  return spot;
}
