import { CLIPBOARD_TYPE, readClipboard, type ElementShape } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { ALICE, EL1, EL2, element, rect } from '../sync/testFixtures.ts';
import { clipboardContent, DUPLICATE_OFFSET, placedAt, selectedShapes, shiftedBy } from './clipboard.ts';

const note: ElementShape = { kind: 'sticky', x: 300, y: 0, w: 200, h: 100, text: 'Page 12 <b>', fill: '#fff3a8' };

describe('CB3: what a copy carries', () => {
  test('the selected shapes only, in drawing order, without ids, authors or locks', () => {
    const ordered = [element(EL1, 3, rect(0, 0), { z: 1, lock: { sessionId: ALICE, userId: ALICE, generation: 2 } }), element(EL2, 1, note, { z: 2 })];
    expect(selectedShapes(ordered, new Set([EL2, EL1]))).toEqual([rect(0, 0), note]);
    const content = clipboardContent(selectedShapes(ordered, new Set([EL1, EL2])));
    if (!content) throw new Error('no content');
    expect(readClipboard(content.elements)).toEqual({ ok: true, payload: { type: CLIPBOARD_TYPE, version: 1, shapes: [rect(0, 0), note] } });
    expect(content.elements).not.toContain(EL1);
  });

  test('other apps get an SVG of the shapes, and their text as text (escaped in the SVG)', () => {
    const content = clipboardContent([rect(0, 0), note]);
    expect(content?.svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(content?.svg).toContain('Page 12 &lt;b&gt;');
    expect(content?.text).toBe('Page 12 <b>');
    // Without text, the text is the SVG itself.
    expect(clipboardContent([rect(0, 0)])?.text).toMatch(/^<svg /);
    expect(clipboardContent([])).toBeNull();
  });
});

describe('CB4: where pasted and duplicated shapes land', () => {
  test('a paste centres what it covers on the pointer, keeping the shapes\' places relative to each other', () => {
    // rect(0, 0) is 100 × 50; the note reaches x 500, y 100: the middle of both is (250, 50).
    const placed = placedAt([rect(0, 0), note], { x: 1_000, y: 1_000 });
    expect(placed.map((s) => [s.x, s.y])).toEqual([[750, 950], [1_050, 950]]);
  });

  test('a duplicate lands a step right and down of its original', () => {
    expect(shiftedBy([rect(10, 20)], DUPLICATE_OFFSET, DUPLICATE_OFFSET)).toEqual([{ ...rect(10, 20), x: 10 + DUPLICATE_OFFSET, y: 20 + DUPLICATE_OFFSET }]);
  });
});
