import { ElementShape } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { IMAGE_FIT, IMAGE_GAP, imageShapesAt } from './imagePlacement.ts';

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
