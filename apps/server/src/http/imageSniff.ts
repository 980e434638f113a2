/**
 * What an uploaded file is, from its bytes alone: its kind by the first bytes (`imageKindOf`, the
 * protocol's, which the browser uses too), its pixel size read from its header by image-size (a
 * maintained parser of every format we take), and whether the file ends where its format says it
 * does. Each refusal maps to a documented error code:
 * - `not_an_image`: the first bytes are none of PNG, JPEG, WebP, GIF (text, SVG, PDF, BMP, ...);
 * - `corrupt`: they are, but the header cannot be read, the size is zero, the header says another
 *   kind than the first bytes, or the file is cut short (a PNG without its IEND chunk, a JPEG
 *   without its end marker, a GIF without its trailer, a RIFF length past the end);
 * - `too_many_pixels`: a side over MAX_IMAGE_SIDE.
 * A file whose compressed data is damaged past its header passes here and fails to decode in the
 * browser (the web client decodes every file before uploading it).
 */
import { imageSize } from 'image-size';
import { MAX_IMAGE_SIDE, imageKindOf, type ImageMime } from '@wb/protocol';

export interface ImageHeader {
  readonly mime: ImageMime;
  readonly width: number;
  readonly height: number;
}

export type ImageRefusal = 'not_an_image' | 'corrupt' | 'too_many_pixels';

export type ImageSniff = { ok: true; header: ImageHeader } | { ok: false; refusal: ImageRefusal };

/** image-size's name for each kind we take. */
const SIZE_TYPE: Record<ImageMime, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' };

const PNG_IEND = [0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82];

/** Whether the file ends where its format says it ends (a cut upload is refused, not stored). */
function endsWhole(mime: ImageMime, b: Uint8Array): boolean {
  switch (mime) {
    case 'image/png':
      return b.length >= 8 && PNG_IEND.every((v, i) => b[b.length - 8 + i] === v);
    case 'image/jpeg':
      return b[b.length - 2] === 0xff && b[b.length - 1] === 0xd9;
    case 'image/gif':
      return b[b.length - 1] === 0x3b;
    case 'image/webp':
      // The RIFF length counts the bytes after its own field.
      return b.length >= 12 && new DataView(b.buffer, b.byteOffset, b.length).getUint32(4, true) + 8 <= b.length;
  }
}

export function sniffImage(bytes: Uint8Array): ImageSniff {
  const mime = imageKindOf(bytes);
  if (!mime) return { ok: false, refusal: 'not_an_image' };
  if (!endsWhole(mime, bytes)) return { ok: false, refusal: 'corrupt' };
  let size: { width?: number; height?: number; type?: string };
  try {
    size = imageSize(bytes);
  } catch {
    return { ok: false, refusal: 'corrupt' };
  }
  const { width = 0, height = 0 } = size;
  if (size.type !== SIZE_TYPE[mime] || width <= 0 || height <= 0) return { ok: false, refusal: 'corrupt' };
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE) return { ok: false, refusal: 'too_many_pixels' };
  return { ok: true, header: { mime, width, height } };
}
