import { expect, test } from 'vitest';
import { boardSvgDocument, shapeSvg, textDirection, wrapLines } from './elementSvg.ts';

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

test('TR10: a turned box is exported turned about its centre, and the document frames where it now reaches', () => {
  const base = { version: 1, pinned: false, createdBy: 'u', updatedBy: 'u', lock: null, z: 1 };
  const bar = { kind: 'rect', x: 0, y: 0, w: 200, h: 20, stroke: '#000000', fill: 'transparent', strokeWidth: 2 } as const;
  expect(shapeSvg({ ...bar, rotation: 90 })).toMatch(/^<g transform="rotate\(90 100 10\)"><rect /);
  expect(shapeSvg(bar)).not.toContain('rotate');
  const { bounds } = boardSvgDocument([{ ...base, id: 'a', shape: { ...bar, rotation: 90 } }]);
  // Upright the bar is 20 high; turned it stands 200 high, from y = -90 to 110.
  expect(bounds.y).toBeLessThan(-90);
  expect(bounds.y + bounds.h).toBeGreaterThan(110);
});

test('text alignment anchors the lines at the box\'s middle or right edge', () => {
  const text = { kind: 'text', x: 0, y: 0, w: 208, h: 40, text: 'hi', stroke: '#000000', fontSize: 24 } as const;
  expect(shapeSvg(text)).not.toContain('text-anchor');
  expect(shapeSvg({ ...text, align: 'center' })).toContain('text-anchor="middle"');
  expect(shapeSvg({ ...text, align: 'center' })).toContain('<tspan x="104"');
  expect(shapeSvg({ ...text, align: 'right' })).toContain('<tspan x="204"');
});

test('BD1: a text reads in the direction of its first letter, digits and punctuation aside', () => {
  expect(textDirection('12 طالبًا حاضرون')).toBe('rtl');
  expect(textDirection('(٣) שלום')).toBe('rtl');
  expect(textDirection('x = 12 مرة')).toBe('ltr');
  expect(textDirection('42 + 7')).toBe('ltr');
  expect(textDirection('')).toBe('ltr');
});

test('BD2: right-to-left text is written rtl and anchored at the same physical edge as ltr text', () => {
  const text = { kind: 'text', x: 0, y: 0, w: 208, h: 40, text: '12 طالبًا', stroke: '#000000', fontSize: 24 } as const;
  // Left-aligned Arabic ends (its start is on the right) at the box's left edge: anchor "end" at x = 4.
  expect(shapeSvg(text)).toContain('direction="rtl" text-anchor="end"');
  expect(shapeSvg(text)).toContain('<tspan x="4"');
  expect(shapeSvg({ ...text, align: 'right' })).toContain('direction="rtl" xml:space');
  expect(shapeSvg({ ...text, align: 'right' })).toContain('<tspan x="204"');
  // English keeps ltr even when the page around the board is Arabic.
  expect(shapeSvg({ ...text, text: 'hi' })).toContain('direction="ltr" xml:space');
});
