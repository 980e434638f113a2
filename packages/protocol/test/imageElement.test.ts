import { describe, expect, test } from 'vitest';
import { ElementShape, MAX_IMAGE_SIDE } from '../src/index.ts';

describe('the image element kind', () => {
  const image = { kind: 'image', x: 0, y: 0, w: 200, h: 100, sha256: 'a'.repeat(64), naturalWidth: 400, naturalHeight: 200 };

  test('an image element names a SHA-256 and its natural size', () => {
    expect(ElementShape.safeParse(image).success).toBe(true);
    expect(ElementShape.safeParse({ ...image, rotation: 90 }).success).toBe(true);
  });

  test.each([
    ['an upper-case hash', { ...image, sha256: 'A'.repeat(64) }],
    ['a short hash', { ...image, sha256: 'a'.repeat(63) }],
    ['a URL instead of a hash', { ...image, sha256: 'https://example.com/x.png' }],
    ['a natural size over the pixel limit', { ...image, naturalWidth: MAX_IMAGE_SIDE + 1 }],
    ['a fractional natural size', { ...image, naturalHeight: 1.5 }],
    ['an unknown field (an href)', { ...image, href: 'javascript:alert(1)' }],
  ])('%s is refused', (_name, shape) => {
    expect(ElementShape.safeParse(shape).success).toBe(false);
  });
});
