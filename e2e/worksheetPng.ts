import { deflateSync } from 'node:zlib';

/**
 * Worksheet-like pictures for the render-load measurement (renderLoad.ts, IMAGES=n), written in
 * node without an image library: an RGB PNG of a white page with a coloured title band, lines of
 * dark "words" and answer boxes, different for every `seed` (so each file has its own hash).
 * The browser decodes every pixel whatever the content, so the cost on the board is that of a
 * real scan of the same size; the file stays small (tens of kB) because the page compresses well.
 */

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = (CRC_TABLE[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A small deterministic generator (LCG), so a seed always gives the same page. */
function random(seed: number): () => number {
  let s = (seed * 2_654_435_761 + 1) >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A `width` x `height` RGB PNG of a worksheet page (default 1200 x 900, a scan's size). */
export function worksheetPng(seed: number, width = 1_200, height = 900): Buffer {
  const stride = 1 + width * 3;
  // Filter byte 0 (none) on every row; the page white.
  const raw = Buffer.alloc(height * stride, 255);
  for (let y = 0; y < height; y++) raw[y * stride] = 0;
  const fill = (x0: number, y0: number, w: number, h: number, [r, g, b]: readonly [number, number, number]) => {
    for (let y = Math.max(0, y0); y < Math.min(height, y0 + h); y++) {
      for (let x = Math.max(0, x0); x < Math.min(width, x0 + w); x++) {
        const at = y * stride + 1 + x * 3;
        raw[at] = r;
        raw[at + 1] = g;
        raw[at + 2] = b;
      }
    }
  };
  const next = random(seed);
  const ink: [number, number, number] = [40, 44, 52];
  // The title band: a hue of its own per seed.
  const hue = (seed * 47) % 360;
  const band = hslToRgb(hue, 0.55, 0.6);
  const margin = Math.round(width * 0.06);
  fill(0, 0, width, Math.round(height * 0.1), band);
  // Lines of words, with an answer box after every few lines.
  const lineHeight = Math.max(8, Math.round(height / 24));
  for (let y = Math.round(height * 0.15), line = 0; y < height - margin; y += lineHeight, line++) {
    if (line % 5 === 4) {
      const boxHeight = lineHeight * 2;
      fill(margin, y, width - 2 * margin, 2, ink);
      fill(margin, y + boxHeight, width - 2 * margin, 2, ink);
      fill(margin, y, 2, boxHeight, ink);
      fill(width - margin - 2, y, 2, boxHeight + 2, ink);
      y += boxHeight;
      continue;
    }
    for (let x = margin; x < width - margin; ) {
      const word = Math.round(width * (0.02 + next() * 0.08));
      fill(x, y, Math.min(word, width - margin - x), Math.round(lineHeight * 0.45), ink);
      x += word + Math.round(width * 0.012);
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, adaptive filtering, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', new Uint8Array()),
  ]);
}

function hslToRgb(h: number, s: number, l: number): [number, number, number] {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}
