import { expect, test } from 'vitest';
import { MEMBER_PALETTE, MEMBER_PALETTE_SIZE, memberColor } from '../src/color.ts';

function luminance(hex: string): number {
  const n = Number.parseInt(hex.slice(1), 16);
  const channel = (c: number) => {
    const v = c / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel((n >> 16) & 255) + 0.7152 * channel((n >> 8) & 255) + 0.0722 * channel(n & 255);
}
const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
};

test('every member colour has 3:1 contrast on the white board and on the dark theme panel', () => {
  for (const colour of MEMBER_PALETTE) {
    expect(contrast(colour, '#ffffff'), colour).toBeGreaterThanOrEqual(3);
    expect(contrast(colour, '#14171f'), colour).toBeGreaterThanOrEqual(3);
  }
});

test('the palette has no colour twice, and an index past its end wraps round', () => {
  expect(new Set(MEMBER_PALETTE).size).toBe(MEMBER_PALETTE_SIZE);
  expect(memberColor(MEMBER_PALETTE_SIZE + 2)).toBe(MEMBER_PALETTE[2]);
  expect(memberColor(0)).toBe(MEMBER_PALETTE[0]);
});
