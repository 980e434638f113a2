import type { Element, ElementShape } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { announceSelection, describeElement, readingOrder, revealBounds, stepSelection } from './keyboardFocus.ts';

const el = (id: string, shape: ElementShape, createdBy = 'u1'): Element => ({ id, shape, z: 0, version: 1, lock: null, pinned: false, createdBy, updatedBy: createdBy });
const rect = (id: string, x: number, y: number, createdBy = 'u1') => el(id, { kind: 'rect', x, y, w: 40, h: 30, stroke: '#000000', fill: 'transparent', strokeWidth: 2 }, createdBy);
const ids = (list: readonly Element[]) => list.map((e) => e.id);
const names: Record<string, string> = { u1: 'Ms Rivera', u2: 'Ana' };
const nameOf = (id: string) => names[id] ?? 'Someone';

describe('keyboard reading order (Tab walks the board top to bottom, left to right)', () => {
  test('rows top to bottom, each left to right, whatever the drawing order', () => {
    const order = readingOrder([rect('c', 300, 195), rect('d', 10, 400), rect('a', 10, 10), rect('b', 200, 4), rect('e', 100, 200)]);
    expect(ids(order)).toEqual(['a', 'b', 'e', 'c', 'd']);
  });

  test('an empty board has no order', () => {
    expect(readingOrder([])).toEqual([]);
  });
});

describe('Tab and Shift+Tab step the selection through that order', () => {
  const order = readingOrder([rect('a', 0, 0), rect('b', 100, 0), rect('c', 0, 200)]);
  test('from no selection Tab takes the first and Shift+Tab the last', () => {
    expect(stepSelection(order, new Set(), true)?.id).toBe('a');
    expect(stepSelection(order, new Set(), false)?.id).toBe('c');
  });
  test('next and previous from the selected element', () => {
    expect(stepSelection(order, new Set(['b']), true)?.id).toBe('c');
    expect(stepSelection(order, new Set(['b']), false)?.id).toBe('a');
  });
  test('past either end there is none, so focus can leave the board (no keyboard trap)', () => {
    expect(stepSelection(order, new Set(['c']), true)).toBeNull();
    expect(stepSelection(order, new Set(['a']), false)).toBeNull();
    expect(stepSelection([], new Set(), true)).toBeNull();
  });
  test('from several selected, Tab goes past the last of them', () => {
    expect(stepSelection(order, new Set(['a', 'b']), true)?.id).toBe('c');
  });
});

describe('revealBounds pans an off-screen element into view', () => {
  const screen = { width: 800, height: 600 };
  test('a visible element leaves the view as it is', () => {
    const vp = { x: 0, y: 0, zoom: 1 };
    expect(revealBounds(vp, { x: 100, y: 100, w: 50, h: 50 }, screen)).toBe(vp);
  });
  test('an off-screen one is centred, zoom kept', () => {
    const vp = { x: 0, y: 0, zoom: 2 };
    const next = revealBounds(vp, { x: 1000, y: 1000, w: 100, h: 50 }, screen);
    expect(next.zoom).toBe(2);
    expect(1050 * 2 + next.x).toBe(400);
    expect(1025 * 2 + next.y).toBe(300);
  });
});

describe('accessible names and the selection announcement', () => {
  test('each element is named by kind, text and author', () => {
    expect(describeElement(rect('a', 0, 0, 'u2'), nameOf)).toBe('Rectangle by Ana');
    const text = el('t', { kind: 'text', x: 0, y: 0, w: 100, h: 20, text: 'Question\n1', stroke: '#000000', fontSize: 20 });
    expect(describeElement(text, nameOf)).toBe("Text: 'Question 1' by Ms Rivera");
    const pen = el('p', { kind: 'pen', x: 0, y: 0, points: [[0, 0, 0.5], [10, 10, 0.5]], stroke: '#000000', strokeWidth: 2 });
    expect(describeElement(pen, nameOf)).toBe('Pen stroke by Ms Rivera');
  });
  test('long text is cut', () => {
    const text = el('t', { kind: 'sticky', x: 0, y: 0, w: 100, h: 20, text: 'x'.repeat(100), fill: '#ffec99' });
    expect(describeElement(text, nameOf).length).toBeLessThan(70);
  });
  test('"Selected: Rectangle by Ana, 2 of 3"; several; none', () => {
    const order = readingOrder([rect('a', 0, 0), rect('b', 100, 0, 'u2'), rect('c', 0, 200)]);
    expect(announceSelection(order, new Set(['b']), nameOf)).toBe('Selected: Rectangle by Ana, 2 of 3');
    expect(announceSelection(order, new Set(['a', 'c']), nameOf)).toBe('Selected 2 of 3 elements');
    expect(announceSelection(order, new Set(), nameOf)).toBe('');
  });
});
