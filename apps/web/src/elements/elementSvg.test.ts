import { expect, test } from 'vitest';
import { boardSvgDocument, shapeSvg, wrapLines } from './elementSvg.ts';

test('text is escaped: element text is user input, never markup', () => {
  const svg = shapeSvg({ kind: 'sticky', x: 0, y: 0, w: 200, h: 200, text: '<script>alert(1)</script> & "x"', fill: '#fff3a8' });
  expect(svg).not.toContain('<script>');
  expect(svg).toContain('&lt;script&gt;');
});

test('long text wraps at word boundaries within the box', () => {
  expect(wrapLines('one two three four five six', 60, 20)).toEqual(['one', 'two', 'three', 'four', 'five', 'six']);
  expect(wrapLines('a\nb', 400, 20)).toEqual(['a', 'b']);
});

test('an exported document covers every element, in drawing order', () => {
  const base = { version: 1, pinned: false, createdBy: 'u', updatedBy: 'u', lock: null };
  const { svg, bounds } = boardSvgDocument([
    { ...base, id: 'a', z: 1, shape: { kind: 'rect', x: 0, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 2 } },
    { ...base, id: 'b', z: 2, shape: { kind: 'line', x: 100, y: 100, dx: 50, dy: 50, stroke: '#000000', strokeWidth: 2 } },
  ]);
  expect(bounds.x).toBeLessThan(0);
  expect(bounds.x + bounds.w).toBeGreaterThan(150);
  expect(svg.indexOf('data-element-id="a"')).toBeLessThan(svg.indexOf('data-element-id="b"'));
  expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
});
