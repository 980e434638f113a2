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

const startsWith = (b: Uint8Array, magic: readonly number[], at = 0) => magic.every((v, i) => b[at + i] === v);
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
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
