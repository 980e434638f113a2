import type { ElementShape } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { arrowHeadPoints, escapeXml, shapeSvg, textBlock } from './elementSvg.ts';

/**
 * The overview canvas (elementCanvas.ts) draws from the same geometry as the SVG markup. jsdom has
 * no canvas, so these check the shared half: what the canvas reads is exactly what the markup
 * says. The drawing itself is checked in Chromium (e2e/overview.spec.ts).
 */

const round = (v: number) => (Math.round(v * 100) / 100).toString();

describe('text layout shared by the SVG markup and the canvas', () => {
  const shapes: Array<Extract<ElementShape, { kind: 'text' | 'sticky' }>> = [
    { kind: 'text', x: 10, y: 20, w: 120, h: 30, text: 'Fractions: 1/2 + 1/4 and some more words to wrap', stroke: '#1e1e1e', fontSize: 18 },
    { kind: 'sticky', x: -40.5, y: 7.25, w: 200, h: 200, text: 'Homework: page 12\n<b>bold?</b> & "quotes"', fill: '#fff3a8' },
    { kind: 'sticky', x: 0, y: 0, w: 45, h: 40, text: 'a note too long for its box', fill: '#fff3a8' },
  ];

  test.each(shapes)('$kind: every line the canvas fills is a tspan of the markup, at the same place', (shape) => {
    const block = textBlock(shape);
    const svg = shapeSvg(shape);
    const spans = [...svg.matchAll(/<tspan x="([^"]+)" y="([^"]+)">([^<]*)<\/tspan>/g)].map(([, x, y, text]) => ({ x, y, text }));
    expect(spans).toEqual(block.lines.map((l) => ({ x: round(block.x), y: round(l.y), text: escapeXml(l.text) })));
    expect(svg).toContain(`font-size="${round(block.fontSize)}" fill="${block.fill}"`);
  });

  test('a sticky note shows only the lines that fit (here one of several)', () => {
    const sticky = shapes[2]!;
    expect(textBlock(sticky).lines).toHaveLength(1);
  });
});

describe('arrowHeadPoints', () => {
  const arrow = { kind: 'arrow', x: 10, y: 20, dx: 40, dy: 30, stroke: '#000000', strokeWidth: 2 } as const;

  test('is the path the markup draws: barb, tip, barb', () => {
    const [a, tip, b] = arrowHeadPoints(arrow)!;
    expect(shapeSvg(arrow)).toContain(`<path d="M${round(a.x)} ${round(a.y)} L${round(tip.x)} ${round(tip.y)} L${round(b.x)} ${round(b.y)}"`);
  });

  test('points at the end of the arrow, the barbs symmetric about its line', () => {
    const [a, tip, b] = arrowHeadPoints(arrow)!;
    expect(tip).toEqual({ x: 50, y: 50 });
    expect(Math.hypot(a.x - tip.x, a.y - tip.y)).toBeCloseTo(Math.hypot(b.x - tip.x, b.y - tip.y), 9);
    // The barbs' midpoint lies on the arrow's line, behind the tip.
    const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    expect((mid.x - arrow.x) * arrow.dy - (mid.y - arrow.y) * arrow.dx).toBeCloseTo(0, 9);
    expect(mid.x).toBeLessThan(tip.x);
  });

  test('a zero-length arrow has no head', () => {
    expect(arrowHeadPoints({ ...arrow, dx: 0, dy: 0 })).toBeNull();
  });
});
