import type { ElementShape } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { stickyAt, textBoxAt } from './geometry.ts';
import { FONT_SIZES, restyleText, textSizeOf } from './textStyle.ts';

const text = textBoxAt({ x: 0, y: 0 }, 'Fractions', '#1e1e1e') as Extract<ElementShape, { kind: 'text' }>;
const note = stickyAt({ x: 0, y: 0 }, 'Homework') as Extract<ElementShape, { kind: 'sticky' }>;

describe('TS1: text sizes S/M/L/XL', () => {
  test('a new text box and a new note are M; each named size reads back', () => {
    expect(textSizeOf(text)).toBe('M');
    expect(textSizeOf(note)).toBe('M');
    for (const size of ['S', 'M', 'L', 'XL'] as const) {
      const t = restyleText(text, { size });
      const n = restyleText(note, { size });
      if (t.kind !== 'text' || n.kind !== 'sticky') throw new Error('kind changed');
      expect([textSizeOf(t), textSizeOf(n)]).toEqual([size, size]);
      expect(t.fontSize).toBe(FONT_SIZES.text[size]);
    }
  });

  test('a text box grows to fit a larger font; a note keeps its size and stores M as no field', () => {
    const big = restyleText(text, { size: 'XL' });
    expect(big).toMatchObject({ fontSize: 56 });
    expect(big.kind === 'text' && big.h).toBeGreaterThan(text.h);
    expect(restyleText(note, { size: 'L' })).toMatchObject({ w: note.w, h: note.h, fontSize: 28 });
    expect(restyleText(restyleText(note, { size: 'L' }), { size: 'M' })).not.toHaveProperty('fontSize');
  });
});

describe('TS2: alignment and note colours', () => {
  test('centre and right are stored; left is no field', () => {
    expect(restyleText(text, { align: 'center' })).toMatchObject({ align: 'center' });
    expect(restyleText(restyleText(note, { align: 'right' }), { align: 'left' })).not.toHaveProperty('align');
  });

  test('a note takes a colour; a text box has none to take', () => {
    expect(restyleText(note, { fill: '#c5e4ff' })).toMatchObject({ fill: '#c5e4ff' });
    expect(restyleText(text, { fill: '#c5e4ff' })).toBe(text);
  });

  test('a choice the shape already has changes nothing (no edit is sent)', () => {
    expect(restyleText(text, { size: 'M', align: 'left' })).toBe(text);
    expect(restyleText(note, { fill: note.fill })).toBe(note);
    const rect: ElementShape = { kind: 'rect', x: 0, y: 0, w: 1, h: 1, stroke: '#000000', fill: 'transparent', strokeWidth: 2 };
    expect(restyleText(rect, { size: 'XL' })).toBe(rect);
  });
});
