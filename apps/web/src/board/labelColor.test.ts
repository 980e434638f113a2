import { expect, test } from 'vitest';
import { labelTextColor } from './labelColor.ts';

test.each([
  ['a dark blue takes white text', 'hsl(230 70% 42%)', '#ffffff'],
  ['a yellow-green at the same lightness takes dark ink', 'hsl(75 70% 42%)', '#1b1f2a'],
  ['hex colours are understood too', '#264de4', '#ffffff'],
  ['an unknown format falls back to white', 'rebeccapurple', '#ffffff'],
])('%s', (_name, bg, text) => expect(labelTextColor(bg)).toBe(text));
