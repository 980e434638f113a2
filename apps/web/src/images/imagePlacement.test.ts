import { ElementShape } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { IMAGE_FIT, IMAGE_GAP, imageShapesAt, inFreeSpot } from './imagePlacement.ts';

const hash = (c: string) => c.repeat(64);

describe('image placement', () => {
  test('a single picture is centred on the point at its own size when it fits', () => {
    const [shape] = imageShapesAt({ x: 100, y: 100 }, [{ sha256: hash('a'), width: 200, height: 100 }]);
    expect(shape).toEqual({ kind: 'image', x: 0, y: 50, w: 200, h: 100, sha256: hash('a'), naturalWidth: 200, naturalHeight: 100 });
    expect(ElementShape.safeParse(shape).success).toBe(true);
  });

  test('a large picture is scaled to IMAGE_FIT keeping its proportions', () => {
    const [shape] = imageShapesAt({ x: 0, y: 0 }, [{ sha256: hash('b'), width: 4000, height: 2000 }]);
    expect(shape).toMatchObject({ w: IMAGE_FIT, h: IMAGE_FIT / 2, naturalWidth: 4000, naturalHeight: 2000 });
  });

  test('pages are placed one below the other with a gap, left-aligned on the same centre line', () => {
    const pages = [
      { sha256: hash('c'), width: 600, height: 800 },
      { sha256: hash('d'), width: 600, height: 800 },
    ];
    const [first, second] = imageShapesAt({ x: 0, y: 0 }, pages);
    const h = IMAGE_FIT;
    const w = 600 * (IMAGE_FIT / 800);
    expect(first).toMatchObject({ x: -w / 2, y: -h / 2, w, h });
    expect(second).toMatchObject({ x: -w / 2, y: -h / 2 + h + IMAGE_GAP, w, h });
  });
});

describe('PDF pages in a free spot', () => {
  const pages = imageShapesAt({ x: 0, y: 0 }, [
    { sha256: hash('e'), width: 600, height: 800 },
    { sha256: hash('f'), width: 600, height: 800 },
  ]);
  const bottom = (s: { y: number; h: number }) => s.y + s.h;

  test('on an empty spot the pages stay where asked', () => {
    expect(inFreeSpot(pages, [{ x: 1_000, y: 1_000, w: 50, h: 50 }])).toEqual(pages);
  });

  test('over existing work they move, as one column, to just right of everything, at the same height', () => {
    const work = [
      { x: -100, y: -100, w: 200, h: 200 },
      { x: 500, y: 2_000, w: 300, h: 10 },
    ];
    const moved = inFreeSpot(pages, work);
    const right = 500 + 300 + IMAGE_GAP;
    expect(moved.map((s) => s.x)).toEqual([right, right]);
    expect(moved.map((s) => s.y)).toEqual(pages.map((s) => s.y));
    const overlap = (a: { x: number; y: number; w: number; h: number }, b: { x: number; y: number; w: number; h: number }) =>
      a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
    for (const page of moved) for (const b of work) expect(overlap(page, b)).toBe(false);
    expect(bottom(moved[1]!) - bottom(moved[0]!)).toBe(bottom(pages[1]!) - bottom(pages[0]!));
  });
});
