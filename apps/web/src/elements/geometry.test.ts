import type { ElementShape } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { hitShape, inLayerOrder, isTooSmall, moveShapeTo, shapeBounds, shapeFromDrag, topmostAt } from './geometry.ts';
import { penOutlinePath, penShapeFromSamples, simplifyStroke } from './penStroke.ts';

const style = { stroke: '#1e1e1e', fill: 'transparent', strokeWidth: 2 } as const;

describe('shapes from drags', () => {
  test('a rectangle dragged up and left is normalised to a positive size', () => {
    expect(shapeFromDrag('rect', { x: 100, y: 100 }, { x: 40, y: 70 }, style)).toMatchObject({ x: 40, y: 70, w: 60, h: 30 });
  });
  test('shift keeps a rectangle square and a line at 45 degrees', () => {
    expect(shapeFromDrag('ellipse', { x: 0, y: 0 }, { x: 50, y: 20 }, style, true)).toMatchObject({ w: 50, h: 50 });
    const line = shapeFromDrag('line', { x: 0, y: 0 }, { x: 50, y: 45 }, style, true);
    if (line.kind !== 'line') throw new Error('not a line');
    expect(Math.abs(line.dx - line.dy)).toBeLessThan(0.02);
  });
  test('a click is too small to be a shape', () => {
    expect(isTooSmall(shapeFromDrag('rect', { x: 5, y: 5 }, { x: 6, y: 5 }, style))).toBe(true);
  });
});

describe('hit tests', () => {
  const rect = shapeFromDrag('rect', { x: 0, y: 0 }, { x: 100, y: 100 }, style);
  const line = shapeFromDrag('arrow', { x: 0, y: 0 }, { x: 100, y: 0 }, style);
  const filled: ElementShape = { kind: 'rect', x: 0, y: 0, w: 100, h: 100, stroke: '#000000', fill: '#ff0000', strokeWidth: 2 };
  const table: Array<[name: string, hit: boolean, result: boolean]> = [
    ['an outline rectangle is hit on its edge', hitShape(rect, { x: 1, y: 50 }, 3), true],
    ['an outline rectangle is not hit in its empty middle', hitShape(rect, { x: 50, y: 50 }, 3), false],
    ['a filled rectangle is hit in its middle', hitShape(filled, { x: 50, y: 50 }, 3), true],
    ['an arrow is hit near its segment', hitShape(line, { x: 50, y: 3 }, 3), true],
    ['an arrow is not hit far from it', hitShape(line, { x: 50, y: 20 }, 3), false],
  ];
  test.each(table)('%s', (_name, hit, result) => expect(hit).toBe(result));

  test('the topmost element under the point wins', () => {
    const a = { id: 'a', shape: filled, version: 1, pinned: false, createdBy: 'u', updatedBy: 'u', z: 1, lock: null };
    const b = { ...a, id: 'b', z: 2 };
    expect(topmostAt([a, b], { x: 50, y: 50 }, 2)?.id).toBe('b');
  });
});

describe('layers on a private board', () => {
  const filled: ElementShape = { kind: 'rect', x: 0, y: 0, w: 100, h: 100, stroke: '#000000', fill: '#ff0000', strokeWidth: 2 };
  const el = (id: string, createdBy: string, z: number) => ({ id, shape: filled, version: 1, pinned: false, createdBy, updatedBy: createdBy, z, lock: null });
  test("the teacher's feedback is drawn above the owner's work, even work drawn after it; each layer keeps its own order", () => {
    const work = [el('w1', 'ana', 1), el('w2', 'ana', 4)];
    const feedback = [el('tick', 'teacher', 2), el('star', 'teacher', 3)];
    expect(inLayerOrder([...work, ...feedback], 'ana').map((e) => e.id)).toEqual(['w1', 'w2', 'tick', 'star']);
    // The topmost under the pointer is then the teacher's mark, not the stroke drawn over it later.
    expect(topmostAt(inLayerOrder([...work, ...feedback], 'ana'), { x: 50, y: 50 }, 2)?.id).toBe('star');
  });
  test('no owner (the class board, a classmate\'s anonymous view): one layer, by z', () => {
    expect(inLayerOrder([el('b', 'x', 2), el('a', 'y', 1)], null).map((e) => e.id)).toEqual(['a', 'b']);
  });
});

describe('moves and bounds', () => {
  test('a move changes only the anchor', () => {
    const line = shapeFromDrag('line', { x: 0, y: 0 }, { x: -30, y: 40 }, style);
    expect(moveShapeTo(line, 10, 10)).toEqual({ ...line, x: 10, y: 10 });
    expect(shapeBounds(line)).toEqual({ x: -30, y: 0, w: 30, h: 40 });
  });
});

describe('pen strokes', () => {
  test('a long stroke is simplified to at most the protocol limit', () => {
    const samples = Array.from({ length: 6_000 }, (_, i) => ({ x: i, y: Math.sin(i / 7) * 40, pressure: 0.5 }));
    const shape = penShapeFromSamples(samples, '#000000', 3);
    if (shape?.kind !== 'pen') throw new Error('no stroke');
    expect(shape.points.length).toBeLessThanOrEqual(1_500);
    expect(shape.points.length).toBeGreaterThan(10);
    expect(JSON.stringify(shape).length).toBeLessThan(64 * 1024);
  });
  test('a straight stroke keeps only its ends', () => {
    expect(simplifyStroke([[0, 0, 0.5], [1, 1, 0.5], [2, 2, 0.5], [3, 3, 0.5]])).toEqual([[0, 0, 0.5], [3, 3, 0.5]]);
  });
  test('points are relative to the first sample, and the outline is a closed path', () => {
    const shape = penShapeFromSamples([{ x: 10, y: 20, pressure: 0.3 }, { x: 30, y: 25, pressure: 0.8 }, { x: 50, y: 60, pressure: 0.6 }], '#000000', 4);
    if (shape?.kind !== 'pen') throw new Error('no stroke');
    expect(shape).toMatchObject({ x: 10, y: 20 });
    expect(shape.points[0]).toEqual([0, 0, 0.3]);
    expect(penOutlinePath(shape)).toMatch(/^M.*Z$/);
  });
});
