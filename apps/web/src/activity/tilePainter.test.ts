/**
 * A grid tile's painter (tilePainter.ts) on recording surfaces: what each layer is asked to clear
 * and draw, not pixels (jsdom has no canvas; e2e/privateBoards.spec.ts reads the real pixels).
 */
import type { Element, ElementShape, InkPoint } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import type { LiveStroke } from '../sync/liveInk.ts';
import { BOARD_H, BOARD_W, TilePainter, type TileContext, type TileSurface } from './tilePainter.ts';
import { tileDescription } from './tileDescription.ts';

const ANA = '00000000-0000-4000-8000-0000000000c2';
const TEACHER = '00000000-0000-4000-8000-0000000000c1';

/** A context that writes down what it is asked to do, one line a call. */
class RecordingContext implements TileContext {
  readonly calls: string[] = [];
  strokeStyle: string | CanvasGradient | CanvasPattern = '#000000';
  lineWidth = 1;
  lineCap: CanvasLineCap = 'butt';
  lineJoin: CanvasLineJoin = 'miter';
  setTransform(a: number, _b: number, _c: number, d: number, e: number, f: number) {
    this.calls.push(`transform ${+a.toFixed(4)} ${+d.toFixed(4)} ${e} ${f}`);
  }
  clearRect(x: number, y: number, w: number, h: number) {
    this.calls.push(`clear ${x} ${y} ${w} ${h}`);
  }
  beginPath() {
    this.calls.push('begin');
  }
  moveTo(x: number, y: number) {
    this.calls.push(`move ${x},${y}`);
  }
  lineTo(x: number, y: number) {
    this.calls.push(`line ${x},${y}`);
  }
  stroke() {
    this.calls.push(`stroke ${String(this.strokeStyle)} ${this.lineWidth} ${this.lineCap} ${this.lineJoin}`);
  }
}

function recordingSurface(): TileSurface<RecordingContext> & { strokes: number } {
  const ctx = new RecordingContext();
  const s = {
    ctx,
    width: 0,
    height: 0,
    strokes: 0,
    setSize(width: number, height: number) {
      s.width = width;
      s.height = height;
      ctx.calls.push(`size ${width}x${height}`);
    },
    showStrokes(count: number) {
      s.strokes = count;
    },
  };
  return s;
}

let z = 0;
const pen = (id: string, createdBy = ANA): Element => ({
  id,
  shape: { kind: 'pen', x: 10, y: 20, points: [[0, 0, 0.5], [5, 5, 0.5]], stroke: '#1e1e1e', strokeWidth: 4 },
  version: 1,
  pinned: false,
  createdBy,
  updatedBy: createdBy,
  z: ++z,
  lock: null,
});
const withShape = (e: Element, shape: Partial<ElementShape>): Element => ({ ...e, version: e.version + 1, shape: { ...e.shape, ...shape } as ElementShape });
const live = (strokeId: string, points: InkPoint[], stroke = '#1e1e1e'): LiveStroke => ({ strokeId, sessionId: 's', userId: ANA, stroke, strokeWidth: 4, points, end: null, lastAt: 0 });
const strokes = (...list: LiveStroke[]) => new Map(list.map((s) => [s.strokeId, s]));
const pts = (from: number, count: number): InkPoint[] => Array.from({ length: count }, (_, i): InkPoint => [from + i, 2 * (from + i), 0.5]);

/** A painter on recording surfaces, 176 x 110 device pixels (a 110 px tile at 1.6x); `drawn` lists the element ids drawn, per call. */
function tile() {
  const board = recordingSurface();
  const ink = recordingSurface();
  const drawn: string[][] = [];
  const painter = new TilePainter(board, ink, (ctx, elements) => {
    ctx.calls.push(`draw ${elements.map((e) => e.id).join(',')}`);
    drawn.push(elements.map((e) => e.id));
  });
  painter.resize(176, 110);
  board.ctx.calls.length = 0;
  ink.ctx.calls.length = 0;
  drawn.length = 0;
  return { painter, board, ink, drawn };
}

describe('a grid tile drawn on canvases (tilePainter.ts)', () => {
  test('TP1: each layer holds the tile in device pixels and draws the whole board page onto it; a new size repaints both', () => {
    const { painter, board, ink } = tile();
    expect([board.width, board.height, ink.width, ink.height]).toEqual([176, 110, 176, 110]);
    const a = pen('a');
    painter.paint([a]);
    expect(board.ctx.calls).toEqual([`transform ${+(176 / BOARD_W).toFixed(4)} ${+(110 / BOARD_H).toFixed(4)} 0 0`, 'draw a']);
    painter.drawInk(strokes(live('s1', pts(0, 3))));
    board.ctx.calls.length = 0;
    ink.ctx.calls.length = 0;
    // Twice the pixels (a move to a 2x screen): both layers repainted whole at the new scale.
    painter.resize(352.4, 219.6);
    expect(board.ctx.calls).toEqual(['size 352x220', 'transform 1 1 0 0', 'clear 0 0 352 220', 'transform 0.22 0.22 0 0', 'draw a']);
    expect(ink.ctx.calls.slice(0, 4)).toEqual(['size 352x220', 'transform 1 1 0 0', 'clear 0 0 352 220', 'transform 0.22 0.22 0 0']);
    expect(ink.ctx.calls.filter((c) => c.startsWith('line'))).toEqual(['line 0,0', 'line 1,2', 'line 2,4']);
    // The same size again: nothing to do.
    board.ctx.calls.length = 0;
    painter.resize(352, 220);
    expect(board.ctx.calls).toEqual([]);
  });

  test('TP2: a new stroke after the painted ones is drawn alone; a lock taken (same shape) draws nothing', () => {
    const { painter, board, drawn } = tile();
    const [a, b, c] = [pen('a'), pen('b'), pen('c')];
    painter.paint([a, b]);
    painter.paint([a, b, c]);
    expect(drawn).toEqual([['a', 'b'], ['c']]);
    expect(board.ctx.calls.filter((call) => call.startsWith('clear'))).toEqual([]);
    painter.paint([a, { ...b, lock: { generation: 1, sessionId: 's', userId: TEACHER } }, c]);
    expect(drawn).toHaveLength(2);
  });

  test('TP3: a delete, a move or a reorder clears the layer and draws every element in order', () => {
    const { painter, board, drawn } = tile();
    const [a, b, c] = [pen('a'), pen('b'), pen('c')];
    painter.paint([a, b, c]);
    board.ctx.calls.length = 0;
    painter.paint([a, c]);
    expect(board.ctx.calls).toEqual(['transform 1 1 0 0', 'clear 0 0 176 110', 'transform 0.11 0.11 0 0', 'draw a,c']);
    const moved = withShape(a, { x: 300 });
    painter.paint([moved, c]);
    painter.paint([c, moved]);
    expect(drawn.slice(-2)).toEqual([['a', 'c'], ['c', 'a']]);
    painter.paint([]);
    expect(board.ctx.calls.slice(-2)).toEqual(['transform 0.11 0.11 0 0', 'draw ']);
  });

  test('TP4: a live stroke that grew gets only the segment from its last drawn point through its new ones', () => {
    const { painter, ink } = tile();
    painter.drawInk(strokes(live('s1', pts(0, 3))));
    expect(ink.ctx.calls).toEqual(['transform 0.11 0.11 0 0', 'begin', 'move 0,0', 'line 0,0', 'line 1,2', 'line 2,4', 'stroke #1e1e1e 4 round round']);
    expect(ink.strokes).toBe(1);
    ink.ctx.calls.length = 0;
    painter.drawInk(strokes(live('s1', pts(0, 5))));
    expect(ink.ctx.calls).toEqual(['transform 0.11 0.11 0 0', 'begin', 'move 2,4', 'line 3,6', 'line 4,8', 'stroke #1e1e1e 4 round round']);
    // Nothing new (the same stroke again): nothing drawn, nothing cleared.
    ink.ctx.calls.length = 0;
    const same = live('s1', pts(0, 5));
    painter.drawInk(strokes(same));
    painter.drawInk(strokes(same));
    expect(ink.ctx.calls).toEqual([]);
  });

  test('TP5: a stroke that leaves is cleared in that call, the strokes still live drawn again whole; the elements layer is not touched', () => {
    const { painter, board, ink } = tile();
    painter.paint([pen('a')]);
    painter.drawInk(strokes(live('s1', pts(0, 4)), live('s2', pts(10, 2), '#d92c20')));
    board.ctx.calls.length = 0;
    ink.ctx.calls.length = 0;
    painter.drawInk(strokes(live('s2', pts(10, 2), '#d92c20')));
    expect(ink.ctx.calls).toEqual(['transform 1 1 0 0', 'clear 0 0 176 110', 'transform 0.11 0.11 0 0', 'begin', 'move 10,20', 'line 10,20', 'line 11,22', 'stroke #d92c20 4 round round']);
    expect(ink.strokes).toBe(1);
    // Its drawer's presence went: the ink store drops the last one; the layer is left blank.
    painter.drawInk(undefined);
    expect(ink.ctx.calls.slice(-2)).toEqual(['transform 1 1 0 0', 'clear 0 0 176 110']);
    expect(ink.strokes).toBe(0);
    expect(board.ctx.calls).toEqual([]);
  });
});

describe("a tile's description (tileDescription.ts)", () => {
  const el = (kind: ElementShape['kind'], createdBy = ANA): Element => ({ ...pen(kind), shape: { ...pen(kind).shape, kind } as ElementShape, createdBy });

  test.each([
    { elements: [], expected: "Ana's board, empty" },
    { elements: [el('pen')], expected: "Ana's board, 1 stroke" },
    { elements: [el('pen'), el('pen'), el('pen'), el('text', TEACHER)], expected: "Ana's board, 3 strokes, 1 comment" },
    { elements: [el('rect'), el('ellipse'), el('pen', TEACHER), el('text', TEACHER), el('sticky')], expected: "Ana's board, 2 shapes, 2 comments, 1 sticky note" },
    { elements: [el('text'), el('image'), el('equation'), el('arrow'), el('line')], expected: "Ana's board, 1 text, 1 image, 1 equation, 1 arrow, 1 line" },
  ])('$expected', ({ elements, expected }) => {
    expect(tileDescription('Ana', ANA, elements)).toBe(expected);
  });
});
