import type { ElementShape } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { element } from '../sync/testFixtures.ts';
import { elementsInMarquee, marqueeRect, nudgeFor, selectionBounds, toggled } from './selection.ts';

const box = (x: number, y: number, w = 100, h = 50): ElementShape => ({ kind: 'rect', x, y, w, h, stroke: '#000000', fill: 'transparent', strokeWidth: 2 });
const line = (x: number, y: number, dx: number, dy: number): ElementShape => ({ kind: 'line', x, y, dx, dy, stroke: '#000000', strokeWidth: 2 });
const pen = (x: number, y: number, points: Array<[number, number]>): ElementShape => ({ kind: 'pen', x, y, points: points.map(([dx, dy]) => [dx, dy, 0.5]), stroke: '#000000', strokeWidth: 2 });
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('a marquee selects what it wholly contains', () => {
  const board = [
    element(id(1), 1, box(0, 0)), // 0..100 x 0..50
    element(id(2), 1, box(200, 0)), // 200..300
    element(id(3), 1, line(50, 300, -50, 40)), // a segment drawn leftwards: 0..50 x 300..340
    element(id(4), 1, pen(400, 400, [[0, 0], [30, -20], [60, 10]])), // 400..460 x 380..410
    element(id(5), 1, line(0, 500, 300, 0)), // horizontal: zero height
  ];
  test.each([
    ['around the first box only', { x: -1, y: -1 }, { x: 101, y: 51 }, [1]],
    ['dragged from bottom-right to top-left', { x: 301, y: 51 }, { x: -1, y: -1 }, [1, 2]],
    ['grazing a box takes nothing', { x: 50, y: 10 }, { x: 250, y: 20 }, []],
    ['exactly on the edges takes it', { x: 0, y: 0 }, { x: 100, y: 50 }, [1]],
    ['a line drawn leftwards, by its segment', { x: -5, y: 295 }, { x: 55, y: 345 }, [3]],
    ['a pen stroke by its points, not its anchor', { x: 395, y: 375 }, { x: 465, y: 415 }, [4]],
    ['a pen stroke half outside is not taken', { x: 395, y: 390 }, { x: 465, y: 415 }, []],
    ['a horizontal line', { x: -1, y: 499 }, { x: 301, y: 501 }, [5]],
    ['everything', { x: -10, y: -10 }, { x: 1_000, y: 1_000 }, [1, 2, 3, 4, 5]],
  ])('%s', (_name, a, b, expected) => {
    expect(elementsInMarquee(board, marqueeRect(a, b)).map((e) => e.id)).toEqual(expected.map(id));
  });
});

describe('selection box and shift-click', () => {
  const elements = new Map([element(id(1), 1, box(0, 0)), element(id(2), 1, box(200, 100))].map((e) => [e.id, e]));
  test('the box spans every selected element, moved by its drag preview', () => {
    expect(selectionBounds(elements, new Set([id(1), id(2)]))).toEqual({ x: 0, y: 0, w: 300, h: 150 });
    expect(selectionBounds(elements, new Set([id(1), id(2)]), new Map([[id(2), { x: 250, y: 100 }]]))).toEqual({ x: 0, y: 0, w: 350, h: 150 });
    expect(selectionBounds(elements, new Set())).toBeNull();
  });
  test('shift-click adds an element, and removes it when selected', () => {
    expect([...toggled(new Set([id(1)]), id(2))]).toEqual([id(1), id(2)]);
    expect([...toggled(new Set([id(1), id(2)]), id(1))]).toEqual([id(2)]);
  });
  test.each([
    ['ArrowLeft', false, { x: -1, y: 0 }],
    ['ArrowDown', false, { x: 0, y: 1 }],
    ['ArrowUp', true, { x: 0, y: -10 }],
    ['ArrowRight', true, { x: 10, y: 0 }],
    ['a', false, null],
  ])('arrow key %s (shift %s) nudges by %o', (key, shift, expected) => {
    expect(nudgeFor(key, shift)).toEqual(expected);
  });
});
