/**
 * Text colour for a label on a user's colour. colorForUser fixes lightness, but perceived
 * brightness varies with hue (yellow-greens at 42% are too light for white text), so the text is
 * white only where white reaches WCAG's 4.5:1, and dark ink otherwise.
 */
const DARK_INK = '#1b1f2a';

export function labelTextColor(background: string): string {
  const rgb = parseColor(background);
  if (!rgb) return '#ffffff';
  const lum = relativeLuminance(rgb);
  return (1.05 / (lum + 0.05)) >= 4.5 ? '#ffffff' : DARK_INK;
}

function parseColor(color: string): [number, number, number] | null {
  const hex = /^#([0-9a-f]{6})$/i.exec(color);
  if (hex?.[1]) {
    const n = Number.parseInt(hex[1], 16);
    return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  }
  const hsl = /^hsl\((\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)%\s+(\d+(?:\.\d+)?)%\)$/.exec(color);
  if (!hsl) return null;
  const h = Number(hsl[1]);
  const s = Number(hsl[2]) / 100;
  const l = Number(hsl[3]) / 100;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

function relativeLuminance([r, g, b]: [number, number, number]): number {
  const channel = (c: number) => {
    const v = c / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}
