import { z } from 'zod';

/**
 * Images on the board (issue 23, docs/protocol.md "Images"). An image element names its picture by
 * the SHA-256 of the stored bytes; the bytes travel over HTTP (`POST`/`GET
 * /api/rooms/:roomId/images`), never over the socket.
 *
 * The kind of a file is decided by its first bytes (its "magic"), never by its name or its
 * declared type, and its pixel size is read from its header. Pure code over a Uint8Array: the
 * server checks every upload with it and the web client checks a file before sending it.
 */

/** Largest upload, in bytes (10 MB). */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
/**
 * Largest width or height of a stored image, in pixels. The server has no image decoder (no native
 * dependencies), so it does not downscale: it refuses larger images, and the web client scales a
 * larger picture down to this side in the browser before uploading it.
 */
export const MAX_IMAGE_SIDE = 4_096;

export const IMAGE_MIME_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
export const ImageMime = z.enum(IMAGE_MIME_TYPES);
export type ImageMime = z.infer<typeof ImageMime>;

/** A stored image's name: the lower-case hex SHA-256 of its bytes. */
export const ImageHash = z.string().regex(/^[0-9a-f]{64}$/, 'an image hash is 64 lower-case hex digits');
export type ImageHash = z.infer<typeof ImageHash>;

/** What `POST /api/rooms/:roomId/images` answers (201 stored, 200 already in the lesson). */
export const ImageUploadReply = z.object({
  sha256: ImageHash,
  mime: ImageMime,
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  bytes: z.number().int().positive(),
});
export type ImageUploadReply = z.infer<typeof ImageUploadReply>;

export interface ImageHeader {
  readonly mime: ImageMime;
  readonly width: number;
  readonly height: number;
}

/** Why a file is not an image the board takes; each maps to a documented error code. */
export type ImageRefusal = 'not_an_image' | 'corrupt' | 'too_many_pixels';

export type ImageSniff = { ok: true; header: ImageHeader } | { ok: false; refusal: ImageRefusal };

const startsWith = (b: Uint8Array, magic: readonly number[], at = 0) => magic.every((v, i) => b[at + i] === v);
const u16be = (b: Uint8Array, at: number) => ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0);
const u16le = (b: Uint8Array, at: number) => (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
const u24le = (b: Uint8Array, at: number) => u16le(b, at) | ((b[at + 2] ?? 0) << 16);
const u32be = (b: Uint8Array, at: number) => u16be(b, at) * 65_536 + u16be(b, at + 2);

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const PNG_IEND = [0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82];
const JPEG_MAGIC = [0xff, 0xd8, 0xff];
const RIFF = [0x52, 0x49, 0x46, 0x46];
const WEBP = [0x57, 0x45, 0x42, 0x50];
const GIF87 = [0x47, 0x49, 0x46, 0x38, 0x37, 0x61];
const GIF89 = [0x47, 0x49, 0x46, 0x38, 0x39, 0x61];

/** The kind the first bytes say, or null for anything else (text, SVG, PDF, BMP, a renamed file). */
export function imageKindOf(bytes: Uint8Array): ImageMime | null {
  if (startsWith(bytes, PNG_MAGIC)) return 'image/png';
  if (startsWith(bytes, JPEG_MAGIC)) return 'image/jpeg';
  if (startsWith(bytes, RIFF) && startsWith(bytes, WEBP, 8)) return 'image/webp';
  if (startsWith(bytes, GIF87) || startsWith(bytes, GIF89)) return 'image/gif';
  return null;
}

/**
 * The kind and pixel size of an image, from its bytes alone:
 * - `not_an_image`: the first bytes are none of PNG, JPEG, WebP, GIF;
 * - `corrupt`: they are, but the header cannot be read, the size is zero, or the file is cut
 *   short (a PNG without its IEND chunk, a JPEG without its end marker, a RIFF length past the end);
 * - `too_many_pixels`: a side over MAX_IMAGE_SIDE.
 * A file whose compressed data is damaged past its header passes here and fails to decode in the
 * browser (the web client decodes every file before uploading it).
 */
export function sniffImage(bytes: Uint8Array): ImageSniff {
  const mime = imageKindOf(bytes);
  if (!mime) return { ok: false, refusal: 'not_an_image' };
  const size = readSize(mime, bytes);
  if (!size || size.width <= 0 || size.height <= 0) return { ok: false, refusal: 'corrupt' };
  if (size.width > MAX_IMAGE_SIDE || size.height > MAX_IMAGE_SIDE) return { ok: false, refusal: 'too_many_pixels' };
  return { ok: true, header: { mime, ...size } };
}

function readSize(mime: ImageMime, b: Uint8Array): { width: number; height: number } | null {
  switch (mime) {
    case 'image/png':
      // IHDR is the first chunk: length 13, then width and height as big-endian u32.
      if (b.length < 33 || !startsWith(b, [0x49, 0x48, 0x44, 0x52], 12)) return null;
      if (!startsWith(b, PNG_IEND, b.length - 8)) return null;
      return { width: u32be(b, 16), height: u32be(b, 20) };
    case 'image/gif':
      // The logical screen size; a GIF ends with its trailer byte 0x3B.
      if (b.length < 14 || b[b.length - 1] !== 0x3b) return null;
      return { width: u16le(b, 6), height: u16le(b, 8) };
    case 'image/webp':
      return webpSize(b);
    case 'image/jpeg':
      return jpegSize(b);
  }
}

function webpSize(b: Uint8Array): { width: number; height: number } | null {
  // The RIFF length counts the bytes after its own field: a shorter file was cut.
  if (b.length < 25 || (b[4] ?? 0) + ((b[5] ?? 0) << 8) + ((b[6] ?? 0) << 16) + (b[7] ?? 0) * 16_777_216 + 8 > b.length) return null;
  const chunk = String.fromCharCode(b[12] ?? 0, b[13] ?? 0, b[14] ?? 0, b[15] ?? 0);
  if (chunk === 'VP8X') return b.length < 30 ? null : { width: u24le(b, 24) + 1, height: u24le(b, 27) + 1 };
  if (chunk === 'VP8 ') {
    // A key frame: start code 9d 01 2a, then 14-bit sizes.
    if (b.length < 30 || !startsWith(b, [0x9d, 0x01, 0x2a], 23)) return null;
    return { width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff };
  }
  if (chunk === 'VP8L') {
    if (b[20] !== 0x2f) return null;
    const bits = (b[21] ?? 0) | ((b[22] ?? 0) << 8) | ((b[23] ?? 0) << 16) | ((b[24] ?? 0) << 24);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  return null;
}

/** Start-of-frame markers (baseline, progressive, ...): not DHT (C4), JPG (C8) or DAC (CC). */
const JPEG_SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

function jpegSize(b: Uint8Array): { width: number; height: number } | null {
  if (b[b.length - 2] !== 0xff || b[b.length - 1] !== 0xd9) return null;
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1] ?? 0;
    // Fill bytes and markers without a length.
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (JPEG_SOF.has(marker)) return { height: u16be(b, at + 5), width: u16be(b, at + 7) };
    // Scan data before any frame header: not a JPEG we can size.
    if (marker === 0xda || marker === 0xd9) return null;
    const length = u16be(b, at + 2);
    if (length < 2) return null;
    at += 2 + length;
  }
  return null;
}
