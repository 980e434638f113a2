import { describe, expect, test } from 'vitest';
import { MAX_IMAGE_SIDE, imageKindOf } from '@wb/protocol';
import { GIF_1X1, jpegHeader, pngFile, webpHeader } from '../../../packages/protocol/test/pngFixture.ts';
import { sniffImage } from '../src/http/imageSniff.ts';

describe('image content sniffing: the kind is decided by the bytes, never the name', () => {
  test.each([
    ['PNG', pngFile(3, 2), { mime: 'image/png', width: 3, height: 2 }],
    ['GIF', GIF_1X1, { mime: 'image/gif', width: 1, height: 1 }],
    ['JPEG', jpegHeader(640, 480), { mime: 'image/jpeg', width: 640, height: 480 }],
    ['WebP (lossless)', webpHeader(300, 200), { mime: 'image/webp', width: 300, height: 200 }],
  ])('a %s is recognised with its pixel size from its header', (_name, bytes, header) => {
    expect(sniffImage(bytes)).toEqual({ ok: true, header });
  });

  test.each([
    ['plain text', Buffer.from('hello, this is not a picture')],
    ['an SVG (markup, refused: it can carry script)', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')],
    ['a PDF', Buffer.from('%PDF-1.4\n%âãÏÓ\n')],
    ['a BMP', Buffer.from([0x42, 0x4d, 0, 0, 0, 0, 0, 0, 0, 0])],
    ['nothing', Buffer.alloc(0)],
  ])('%s is not an image', (_name, bytes) => {
    expect(imageKindOf(bytes)).toBeNull();
    expect(sniffImage(bytes)).toEqual({ ok: false, refusal: 'not_an_image' });
  });

  test('a PNG cut short (no IEND chunk) is corrupt', () => {
    const png = pngFile(4, 4);
    expect(sniffImage(png.subarray(0, png.length - 12))).toEqual({ ok: false, refusal: 'corrupt' });
  });

  test('a PNG magic followed by garbage is corrupt', () => {
    expect(sniffImage(Buffer.concat([pngFile(1, 1).subarray(0, 8), Buffer.alloc(40, 7)]))).toEqual({ ok: false, refusal: 'corrupt' });
  });

  test('a JPEG without its end marker, or with no frame header, is corrupt', () => {
    const jpeg = jpegHeader(10, 10);
    expect(sniffImage(jpeg.subarray(0, jpeg.length - 2))).toEqual({ ok: false, refusal: 'corrupt' });
    expect(sniffImage(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0, 4, 0, 0, 0, 0, 0xff, 0xd9]))).toEqual({ ok: false, refusal: 'corrupt' });
  });

  test('a GIF without its trailer byte is corrupt', () => {
    expect(sniffImage(GIF_1X1.subarray(0, GIF_1X1.length - 1))).toEqual({ ok: false, refusal: 'corrupt' });
  });

  test('a WebP whose RIFF length runs past the end is corrupt', () => {
    const webp = webpHeader(10, 10);
    expect(sniffImage(webp.subarray(0, webp.length - 1))).toEqual({ ok: false, refusal: 'corrupt' });
  });

  test('a zero-sized image is corrupt', () => {
    expect(sniffImage(jpegHeader(0, 10))).toEqual({ ok: false, refusal: 'corrupt' });
  });

  test(`a side over MAX_IMAGE_SIDE (${MAX_IMAGE_SIDE} px) is refused; exactly it passes`, () => {
    expect(sniffImage(pngFile(MAX_IMAGE_SIDE + 1, 1))).toEqual({ ok: false, refusal: 'too_many_pixels' });
    expect(sniffImage(jpegHeader(10, MAX_IMAGE_SIDE + 1))).toEqual({ ok: false, refusal: 'too_many_pixels' });
    expect(sniffImage(pngFile(MAX_IMAGE_SIDE, 1))).toMatchObject({ ok: true });
  });
});

