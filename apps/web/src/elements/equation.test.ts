import type { ElementShape } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { paperSvg } from '../board/paper.ts';
import { boardSvgDocument, shapeSvg } from './elementSvg.ts';
import { equationError, equationMathml, equationRendererReady, loadEquationRenderer } from './equationRenderer.ts';
import { transformShape } from './transform.ts';

const equation: Extract<ElementShape, { kind: 'equation' }> = { kind: 'equation', x: 10, y: 20, w: 120, h: 48, latex: '\\frac{a}{b}', stroke: '#1e1e1e', fontSize: 28 };

describe('equations are typeset lazily, as MathML', () => {
  test('before KaTeX has loaded an equation shows its source (escaped), and asking starts the load', async () => {
    expect(equationRendererReady()).toBe(false);
    expect(shapeSvg({ ...equation, latex: 'a<b' })).toContain('a&lt;b</text>');
    await loadEquationRenderer();
    expect(equationRendererReady()).toBe(true);
  });

  test('once loaded, the markup is MathML in a foreignObject of the box, keeping the source as its annotation', async () => {
    await loadEquationRenderer();
    const svg = shapeSvg(equation);
    expect(svg).toMatch(/^<foreignObject x="10" y="20" width="120" height="48"/);
    expect(svg).toContain('<math xmlns="http://www.w3.org/1998/Math/MathML"');
    expect(svg).toContain('<mfrac>');
    expect(svg).toContain('<annotation encoding="application/x-tex">\\frac{a}{b}</annotation>');
    expect(svg).toContain('font-size:28px');
  });

  test('invalid LaTeX typesets as KaTeX error text, never throws; the editor gets KaTeX\'s message', async () => {
    await loadEquationRenderer();
    expect(() => equationMathml('\\frac{')).not.toThrow();
    expect(equationMathml('\\frac{')).toContain('katex-error');
    expect(equationError('\\frac{')).toMatch(/KaTeX parse error/);
    expect(equationError('x^2')).toBeNull();
  });

  test('no LaTeX reaches the markup as HTML: \\href and raw HTML are not trusted', async () => {
    await loadEquationRenderer();
    expect(equationMathml('\\href{javascript:alert(1)}{x}')).not.toContain('javascript:alert(1)"');
    expect(shapeSvg({ ...equation, latex: '<img src=x onerror=alert(1)>' })).not.toContain('<img');
  });

  test('a resize scales the formula with its box height; a turn keeps its size', () => {
    const from = { x: 10, y: 20, w: 120, h: 48, rotation: 0 };
    const bigger = transformShape(equation, from, { x: 10, y: 20, w: 240, h: 96, rotation: 0 });
    expect(bigger).toMatchObject({ kind: 'equation', w: 240, h: 96, fontSize: 56 });
    const turned = transformShape(equation, from, { ...from, rotation: 90 });
    expect(turned).toMatchObject({ fontSize: 28, rotation: 90 });
  });
});

describe('paper in an export', () => {
  const bounds = { x: -50, y: -50, w: 200, h: 100 };

  test('blank paper draws nothing; the others a pattern over the whole export', () => {
    expect(paperSvg('blank', bounds)).toEqual({ defs: '', body: '' });
    for (const paper of ['dots', 'grid', 'lined', 'graph', 'staff'] as const) {
      const { defs, body } = paperSvg(paper, bounds);
      expect(defs).toContain('<pattern id="wb-paper" patternUnits="userSpaceOnUse" x="0" y="0"');
      expect(body).toContain('<rect x="-50" y="-50" width="200" height="100" fill="url(#wb-paper)"/>');
    }
  });

  test("graph paper's axes are drawn where they cross the export, and only there", () => {
    expect(paperSvg('graph', bounds).body.match(/<line/g)).toHaveLength(2);
    expect(paperSvg('graph', { x: 10, y: 10, w: 100, h: 100 }).body).not.toContain('<line');
    expect(paperSvg('grid', bounds).body).not.toContain('<line');
  });

  test('the paper goes under the elements, the pattern in the defs', () => {
    const { svg } = boardSvgDocument([], '#ffffff', (b) => paperSvg('grid', b));
    expect(svg.indexOf('<defs><pattern')).toBeLessThan(svg.indexOf('fill="#ffffff"'));
    expect(svg.indexOf('fill="#ffffff"')).toBeLessThan(svg.indexOf('fill="url(#wb-paper)"'));
  });
});
