import { describe, expect, test } from 'vitest';
import { stampSpot } from './stampSpot.ts';

const SIZE = 56;
const GAP = 8;
const box = (x: number, y: number) => ({ x, y, w: SIZE, h: SIZE + GAP });

describe('stampSpot: each stamp visible, at the work\'s top-right corner', () => {
  const work = { x: 100, y: 200, w: 300, h: 100 };
  test('the first stamp sits on the work\'s top-right corner', () => {
    expect(stampSpot(work, [], SIZE)).toEqual({ x: 400 - SIZE / 2, y: 200 - SIZE / 2 });
  });
  test('the next ones go down the column, one below the other, none overlapping', () => {
    const marks = [];
    for (let i = 0; i < 4; i++) {
      const spot = stampSpot(work, marks, SIZE);
      for (const m of marks) expect(m.x < spot.x + SIZE && spot.x < m.x + m.w && m.y < spot.y + SIZE + GAP && spot.y < m.y + m.h).toBe(false);
      marks.push(box(spot.x, spot.y));
    }
    expect(marks.map((m) => m.y)).toEqual([172, 236, 300, 364]);
  });
  test('a stamp removed frees its place for the next one', () => {
    const first = stampSpot(work, [], SIZE);
    const third = box(first.x, first.y + 2 * (SIZE + GAP));
    expect(stampSpot(work, [third], SIZE)).toEqual(first);
    expect(stampSpot(work, [box(first.x, first.y), third], SIZE)).toEqual({ x: first.x, y: first.y + SIZE + GAP });
  });
  test('the work grew after a stamp (its corner moved a little): the new stamp does not land on the old one', () => {
    const old = stampSpot(work, [], SIZE);
    const grown = { ...work, w: work.w + 20, y: work.y - 10 };
    const next = stampSpot(grown, [box(old.x, old.y)], SIZE);
    expect(next.y).toBeGreaterThanOrEqual(old.y + SIZE + GAP - 10);
  });
  test('the teacher\'s own writing at the corner is stepped over too; a full column moves right', () => {
    const writing = { x: 350, y: 150, w: 120, h: 700 };
    const spot = stampSpot(work, [writing], SIZE);
    expect(spot.x).toBeGreaterThanOrEqual(writing.x + writing.w - SIZE / 2 - GAP);
  });
  test('no work yet: the board\'s origin', () => {
    expect(stampSpot(null, [], SIZE)).toEqual({ x: -SIZE / 2, y: -SIZE / 2 });
  });
});
