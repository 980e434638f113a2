import type { ElementShape } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { hitShape, inkBounds, rotatedBounds } from './geometry.ts';
import { elementsInMarquee } from './selection.ts';
import { HANDLE_REACH_TOUCH_PX, frameAfter, handleAt, handlePositions, reshapeToFrame, resizeFrame, rotateFrame, selectionFrame, shapeFrame, transformShape, type Frame } from './transform.ts';

const filled = (rotation?: number): ElementShape => ({
  kind: 'rect',
  x: 0,
  y: 0,
  w: 200,
  h: 20,
  stroke: '#000000',
  fill: '#ff0000',
  strokeWidth: 2,
  ...(rotation === undefined ? {} : { rotation }),
});
const close = (a: number, b: number) => Math.abs(a - b) < 0.02;
const closePoint = (p: { x: number; y: number }, q: { x: number; y: number }) => close(p.x, q.x) && close(p.y, q.y);

describe('[TR1] hit tests honour rotation', () => {
  // A 200 × 20 bar centred on (100, 10); turned 90° it stands upright, centred on the same point.
  const table: Array<[name: string, shape: ElementShape, p: { x: number; y: number }, hit: boolean]> = [
    ['an unturned bar is hit at its end', filled(), { x: 190, y: 10 }, true],
    ['an unturned bar is missed above its middle', filled(), { x: 100, y: -60 }, false],
    ['a bar turned 90° is missed at its old end', filled(90), { x: 190, y: 10 }, false],
    ['a bar turned 90° is hit where its end now is', filled(90), { x: 100, y: -80 }, true],
    ['a bar turned 45° is hit on its diagonal', filled(45), { x: 100 + 60, y: 10 + 60 }, true],
    ['a bar turned 45° is missed in its upright bounds off the diagonal', filled(45), { x: 100 + 60, y: 10 - 60 }, false],
  ];
  test.each(table)('%s', (_name, shape, p, hit) => {
    expect(hitShape(shape, p, 1)).toBe(hit);
  });

  test('an outline ellipse turned 90° is hit on its turned rim, not on its old one', () => {
    const ellipse: ElementShape = { kind: 'ellipse', x: 0, y: 0, w: 200, h: 100, stroke: '#000000', fill: 'transparent', strokeWidth: 2, rotation: 90 };
    expect(hitShape(ellipse, { x: 100, y: 50 - 100 }, 2)).toBe(true);
    expect(hitShape(ellipse, { x: 200, y: 50 }, 2)).toBe(false);
  });

  test('a turned box reaches its turned bounds: culling, export framing and the marquee see it there', () => {
    const b = rotatedBounds(filled(90));
    expect([b.x, b.y, b.w, b.h].map((v) => Math.round(v))).toEqual([90, -90, 20, 200]);
    const ink = inkBounds(filled(90));
    expect(ink.y).toBeLessThan(-90);
    const element = { id: 'a', shape: filled(90), version: 1, pinned: false, createdBy: 'u', updatedBy: 'u', z: 1, lock: null };
    expect(elementsInMarquee([element], { x: 80, y: -100, w: 40, h: 220 })).toHaveLength(1);
    expect(elementsInMarquee([element], { x: -10, y: -10, w: 220, h: 40 })).toHaveLength(0);
  });
});

describe('[TR2] resize', () => {
  const f: Frame = { x: 0, y: 0, w: 100, h: 50, rotation: 0 };
  const table: Array<[name: string, handle: Parameters<typeof resizeFrame>[1], p: { x: number; y: number }, keepRatio: boolean, expected: [number, number, number, number]]> = [
    ['the south-east corner follows the pointer, the north-west stays', 'se', { x: 150, y: 60 }, false, [0, 0, 150, 60]],
    ['the north-west corner follows the pointer, the south-east stays', 'nw', { x: -50, y: 20 }, false, [-50, 20, 150, 30]],
    ['the east side changes the width only', 'e', { x: 130, y: 999 }, false, [0, 0, 130, 50]],
    ['the north side changes the height only', 'n', { x: 999, y: -10 }, false, [0, -10, 100, 60]],
    ['shift on a corner keeps the proportions (the larger change wins)', 'se', { x: 300, y: 60 }, true, [0, 0, 300, 150]],
    ['shift on a side scales the other side about its middle', 'e', { x: 200, y: 0 }, true, [0, -25, 200, 100]],
    ['a side cannot be pulled through zero: no flip', 'e', { x: -80, y: 0 }, false, [0, 0, 1, 50]],
  ];
  test.each(table)('%s', (_name, handle, p, keepRatio, [x, y, w, h]) => {
    const r = resizeFrame(f, handle, p, keepRatio);
    expect([r.x, r.y, r.w, r.h].map((v) => Math.round(v * 100) / 100)).toEqual([x, y, w, h]);
  });

  test('a turned frame keeps its opposite corner fixed on the board', () => {
    const turned: Frame = { x: 0, y: 0, w: 100, h: 50, rotation: 30 };
    const before = handlePositions(turned, 1);
    const pulled = resizeFrame(turned, 'se', { x: before.se.x + 40, y: before.se.y + 40 }, false);
    const after = handlePositions(pulled, 1);
    expect(closePoint(after.nw, before.nw)).toBe(true);
    expect(pulled.rotation).toBe(30);
    expect(pulled.w).toBeGreaterThan(100);
  });

  test('a horizontal line (zero height) keeps zero height under a corner drag', () => {
    const line: ElementShape = { kind: 'line', x: 0, y: 0, dx: 100, dy: 0, stroke: '#000000', strokeWidth: 2 };
    const from = shapeFrame(line);
    const to = resizeFrame(from, 'se', { x: 200, y: 80 }, false);
    expect(to.h).toBe(0);
    expect(transformShape(line, from, to)).toMatchObject({ x: 0, y: 0, dx: 200, dy: 0 });
  });

  test('a resized rectangle takes the new frame; text keeps its font size', () => {
    const rect = filled();
    const from = shapeFrame(rect);
    expect(transformShape(rect, from, { x: 10, y: 20, w: 50, h: 40, rotation: 0 })).toMatchObject({ x: 10, y: 20, w: 50, h: 40 });
    const text: ElementShape = { kind: 'text', x: 0, y: 0, w: 100, h: 40, text: 'hi', stroke: '#000000', fontSize: 24 };
    expect(transformShape(text, shapeFrame(text), { x: 0, y: 0, w: 200, h: 80, rotation: 0 })).toMatchObject({ w: 200, h: 80, fontSize: 24 });
  });

  test('a group resize scales every member\'s place and size with the group box', () => {
    const a: ElementShape = { kind: 'rect', x: 0, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 2 };
    const b: ElementShape = { ...a, x: 90, y: 90 };
    const from = selectionFrame([a, b]);
    if (!from) throw new Error('no frame');
    expect(from).toEqual({ x: 0, y: 0, w: 100, h: 100, rotation: 0 });
    const to = resizeFrame(from, 'se', { x: 200, y: 200 }, true);
    expect(transformShape(b, from, to)).toMatchObject({ x: 180, y: 180, w: 20, h: 20 });
  });
});

describe('[TR3] rotate', () => {
  const f: Frame = { x: 0, y: 0, w: 100, h: 100, rotation: 0 };
  test('the frame turns by the angle the pointer swept about its centre', () => {
    expect(rotateFrame(f, { x: 50, y: -20 }, { x: 120, y: 50 }, false).rotation).toBe(90);
    expect(rotateFrame(f, { x: 50, y: -20 }, { x: -20, y: 50 }, false).rotation).toBe(270);
  });
  test('shift snaps to 15° steps', () => {
    const turned = rotateFrame(f, { x: 50, y: -20 }, { x: 120, y: 30 }, true);
    expect(turned.rotation % 15).toBe(0);
  });
  test('a box turns about its centre and keeps its size; 360° is 0 and leaves no field', () => {
    const rect = filled();
    const from = shapeFrame(rect);
    expect(transformShape(rect, from, { ...from, rotation: 90 })).toMatchObject({ x: 0, y: 0, w: 200, h: 20, rotation: 90 });
    expect(transformShape(filled(90), shapeFrame(filled(90)), { ...shapeFrame(filled(90)), rotation: 0 })).not.toHaveProperty('rotation');
  });
  test('a line turned 90° has its ends moved, not a rotation field', () => {
    const line: ElementShape = { kind: 'line', x: 0, y: 50, dx: 100, dy: 0, stroke: '#000000', strokeWidth: 2 };
    const from = shapeFrame(line);
    const turned = transformShape(line, from, { ...from, rotation: 90 });
    expect(turned).not.toHaveProperty('rotation');
    expect(turned).toMatchObject({ x: 50, y: 0, dx: 0, dy: 100 });
  });
});

describe('[TR4] handles', () => {
  test('eight resize handles on the frame and a rotate handle above its top middle, turned with it', () => {
    const p = handlePositions({ x: 0, y: 0, w: 100, h: 50, rotation: 0 }, 2);
    expect(p.nw).toEqual({ x: 0, y: 0 });
    expect(p.se).toEqual({ x: 100, y: 50 });
    expect(p.e).toEqual({ x: 100, y: 25 });
    expect(p.rotate).toEqual({ x: 50, y: -14 });
    const turned = handlePositions({ x: 0, y: 0, w: 100, h: 100, rotation: 90 }, 1);
    expect(closePoint(turned.nw, { x: 100, y: 0 })).toBe(true);
    expect(closePoint(turned.rotate, { x: 128, y: 50 })).toBe(true);
  });
  test('the handle under the pointer is found within a few screen pixels at any zoom', () => {
    const f: Frame = { x: 0, y: 0, w: 100, h: 50, rotation: 0 };
    expect(handleAt(f, { x: 102, y: 52 }, 1)).toBe('se');
    expect(handleAt(f, { x: 50, y: -28 }, 1)).toBe('rotate');
    expect(handleAt(f, { x: 50, y: 25 }, 1)).toBeNull();
    // At 4× zoom, 2 board units is 8 screen px: past the handle's reach.
    expect(handleAt(f, { x: 102.5, y: 52.5 }, 4)).toBeNull();
    // A finger reaches further: 14 px off the corner still takes it.
    expect(handleAt(f, { x: 114, y: 50 }, 1)).toBeNull();
    expect(handleAt(f, { x: 114, y: 50 }, 1, HANDLE_REACH_TOUCH_PX)).toBe('se');
  });
});

/** Every number of `a` within 0.02 of `b`'s (rounding to hundredths on two paths), the rest equal. */
function closeShape(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return close(a, b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => closeShape(v, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) => closeShape((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return a === b;
}

describe('[TR13] a resize or turn in progress travels as each element\'s frame: mapped onto it, the element is the shape its holder drops', () => {
  const turnedRect: ElementShape = { ...filled(30), x: 40, y: 60 };
  const stroke: ElementShape = { kind: 'pen', x: 300, y: 40, points: [[0, 0, 0.5], [40, 10, 0.6], [80, -20, 0.4], [120, 30, 0.5]], stroke: '#000000', strokeWidth: 3 };
  const line: ElementShape = { kind: 'line', x: 0, y: 300, dx: 150, dy: 0, stroke: '#000000', strokeWidth: 2 };
  const arrow: ElementShape = { kind: 'arrow', x: 500, y: 100, dx: -60, dy: 90, stroke: '#000000', strokeWidth: 2 };
  const equation: ElementShape = { kind: 'equation', x: 200, y: 200, w: 120, h: 48, latex: 'x^2', stroke: '#000000', fontSize: 28 };
  const group = [turnedRect, stroke, line, arrow, equation];
  const groupFrame = selectionFrame(group)!;
  const single = shapeFrame(turnedRect);
  const table: Array<[name: string, shapes: ElementShape[], from: Frame, to: Frame]> = [
    ['one turned box resized from its corner', [turnedRect], single, resizeFrame(single, 'se', { x: 400, y: 300 }, false)],
    ['one turned box turned further', [turnedRect], single, rotateFrame(single, { x: 0, y: 0 }, { x: 300, y: -50 }, false)],
    ['a group stretched unevenly from a side and a corner', group, groupFrame, resizeFrame(resizeFrame(groupFrame, 'e', { x: 900, y: 0 }, false), 'sw', { x: -100, y: 500 }, false)],
    ['a group turned about its centre', group, groupFrame, rotateFrame(groupFrame, { x: groupFrame.x + groupFrame.w / 2, y: groupFrame.y - 30 }, { x: groupFrame.x + groupFrame.w + 50, y: groupFrame.y + 40 }, false)],
    ['a group shrunk to a sliver', group, groupFrame, resizeFrame(groupFrame, 'n', { x: 0, y: groupFrame.y + groupFrame.h - 2 }, false)],
  ];
  test.each(table)('%s', (_name, shapes, from, to) => {
    for (const shape of shapes) {
      const dropped = transformShape(shape, from, to);
      const drawn = reshapeToFrame(shape, frameAfter(shapeFrame(shape), from, to));
      expect(closeShape(drawn, dropped), `${shape.kind}: ${JSON.stringify(drawn)} vs ${JSON.stringify(dropped)}`).toBe(true);
    }
  });
});
