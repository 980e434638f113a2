import { describe, expect, test } from 'vitest';
import { CLIPBOARD_TYPE, MAX_CLIPBOARD_ELEMENTS, readClipboard, writeClipboard, type ElementShape } from '../src/index.ts';

const rect: ElementShape = { kind: 'rect', x: 10, y: 20, w: 100, h: 60, stroke: '#1f2937', fill: 'transparent', strokeWidth: 2, rotation: 30 };
const note: ElementShape = { kind: 'sticky', x: 0, y: 0, w: 200, h: 200, text: 'Homework\npage 12', fill: '#ffd8a8', fontSize: 32, align: 'center' };
const pen: ElementShape = { kind: 'pen', x: 5, y: 5, points: [[0, 0, 0.5], [10, 4, 0.6]], stroke: '#000000', strokeWidth: 4 };

describe('CB1: a copy reads back as the same shapes, in the same order', () => {
  test('every field survives, rotation, alignment and pressure included', () => {
    const read = readClipboard(writeClipboard([rect, note, pen]));
    expect(read).toEqual({ ok: true, payload: { type: CLIPBOARD_TYPE, version: 1, shapes: [rect, note, pen] } });
  });
});

describe('CB2: malformed clipboard content is refused whole, and nothing of it is taken', () => {
  const ours = (shapes: unknown[], extra: Record<string, unknown> = {}) => JSON.stringify({ type: CLIPBOARD_TYPE, version: 1, shapes, ...extra });
  const table: Array<[name: string, text: string, reason: string]> = [
    ['plain text from another app is not ours (left to others)', 'Hello class', 'not_ours'],
    ['JSON of another app is not ours', JSON.stringify({ type: 'excalidraw/clipboard', elements: [] }), 'not_ours'],
    ['one bad shape among good ones refuses the whole paste', ours([rect, { ...rect, stroke: 'red' }]), 'malformed'],
    ['an unknown field (a smuggled id or lock) is refused', ours([{ ...rect, lock: { userId: 'x' } }]), 'malformed'],
    ['a control character in text is refused', ours([{ ...note, text: 'a\u202Eb' }]), 'malformed'],
    ['an unknown version is refused', ours([rect], { version: 2 }), 'malformed'],
    ['an empty copy is refused', ours([]), 'malformed'],
    ['truncated JSON is not read at all', ours([rect]).slice(0, -5), 'not_ours'],
    [`more than ${MAX_CLIPBOARD_ELEMENTS} shapes is too large`, ours(Array.from({ length: MAX_CLIPBOARD_ELEMENTS + 1 }, () => rect)), 'too_large'],
  ];
  test.each(table)('%s', (_name, text, reason) => {
    expect(readClipboard(text)).toEqual({ ok: false, reason });
  });
});
