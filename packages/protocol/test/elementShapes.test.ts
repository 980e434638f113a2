import { describe, expect, test } from 'vitest';
import { ElementShape } from '../src/index.ts';

const rect = { kind: 'rect', x: 0, y: 0, w: 100, h: 60, stroke: '#1f2937', fill: 'transparent', strokeWidth: 2 } as const;
const line = { kind: 'line', x: 0, y: 0, dx: 100, dy: 60, stroke: '#1f2937', strokeWidth: 2 } as const;

describe('rotation is additive: an optional field of boxes only', () => {
  test('an element stored before rotation existed (no field) stays valid', () => {
    expect(ElementShape.safeParse(rect).success).toBe(true);
  });

  test.each([
    [0, true],
    [45.5, true],
    [359.99, true],
    [360, false],
    [-1, false],
    [Number.NaN, false],
    ['90', false],
  ])('a rectangle turned by %j is valid=%s', (rotation, valid) => {
    expect(ElementShape.safeParse({ ...rect, rotation }).success).toBe(valid);
  });

  test('every box kind may turn; a line may not (turning it moves its points)', () => {
    for (const shape of [
      { ...rect, rotation: 30 },
      { ...rect, kind: 'ellipse', rotation: 30 },
      { kind: 'text', x: 0, y: 0, w: 10, h: 10, text: 'a', stroke: '#000000', fontSize: 24, rotation: 30 },
      { kind: 'sticky', x: 0, y: 0, w: 10, h: 10, text: 'a', fill: '#fff3a8', rotation: 30 },
    ]) {
      expect(ElementShape.safeParse(shape).success, shape.kind).toBe(true);
    }
    expect(ElementShape.safeParse({ ...line, rotation: 30 }).success).toBe(false);
  });
});

describe('text alignment and a note\'s font size are additive', () => {
  const text = { kind: 'text', x: 0, y: 0, w: 10, h: 10, text: 'a', stroke: '#000000', fontSize: 24 } as const;
  const sticky = { kind: 'sticky', x: 0, y: 0, w: 10, h: 10, text: 'a', fill: '#fff3a8' } as const;

  test('text and notes without them stay valid; the known alignments are taken', () => {
    expect(ElementShape.safeParse(text).success).toBe(true);
    expect(ElementShape.safeParse(sticky).success).toBe(true);
    for (const align of ['left', 'center', 'right']) {
      expect(ElementShape.safeParse({ ...text, align }).success).toBe(true);
      expect(ElementShape.safeParse({ ...sticky, align, fontSize: 32 }).success).toBe(true);
    }
  });

  test('an unknown alignment or an out-of-range size is refused', () => {
    expect(ElementShape.safeParse({ ...text, align: 'justify' }).success).toBe(false);
    expect(ElementShape.safeParse({ ...sticky, fontSize: 1_000 }).success).toBe(false);
    expect(ElementShape.safeParse({ ...rect, align: 'left' }).success).toBe(false);
  });
});
