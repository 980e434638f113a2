import { IMAGE_MIME_TYPES, MAX_IMAGE_BYTES, MAX_IMAGE_SIDE, imageKindOf, type ImageMime } from '@wb/protocol';
import { i18n } from '../i18n/i18n.ts';

/**
 * A file checked in the browser before it is sent, with the same rules the server applies
 * (docs/protocol.md, "Images"): its kind by its first bytes, its declared type (when it has one)
 * the same as its content, and it must decode. A picture over MAX_IMAGE_SIDE pixels a side, or
 * over MAX_IMAGE_BYTES, is scaled down here (the server has no image decoder and refuses it);
 * scaling re-encodes it (a GIF loses its animation). The person reads why a file was refused.
 */
export type PreparedImage =
  | { ok: true; bytes: Blob; mime: ImageMime; width: number; height: number }
  | { ok: false; message: string };

export const IMAGE_ACCEPT = IMAGE_MIME_TYPES.join(',');

const isImageMime = (type: string): type is ImageMime => (IMAGE_MIME_TYPES as readonly string[]).includes(type);

/** Files as big as this are not even read: scaling a picture down cannot bring them under the limit sensibly (50 MB). */
const MAX_SOURCE_BYTES = 50 * 1024 * 1024;

export async function prepareImage(file: Blob, name = i18n._('image.thisFile')): Promise<PreparedImage> {
  if (file.size > MAX_SOURCE_BYTES) return { ok: false, message: i18n._('image.tooLargeSource', { name }) };
  const head = new Uint8Array(await file.slice(0, 16).arrayBuffer());
  const mime = imageKindOf(head);
  if (!mime) return { ok: false, message: i18n._('image.notImage', { name }) };
  if (file.type && isImageMime(file.type) && file.type !== mime) {
    return { ok: false, message: i18n._('image.mismatch', { name, claimed: file.type.slice(6).toUpperCase(), actual: mime.slice(6).toUpperCase() }) };
  }
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    return { ok: false, message: i18n._('image.damaged', { name }) };
  }
  try {
    const side = Math.max(bitmap.width, bitmap.height);
    if (side <= MAX_IMAGE_SIDE && file.size <= MAX_IMAGE_BYTES) return { ok: true, bytes: file, mime, width: bitmap.width, height: bitmap.height };
    // Scaled to the largest side allowed; a photo stays JPEG, anything else becomes PNG.
    const scale = Math.min(1, MAX_IMAGE_SIDE / side);
    const width = Math.max(1, Math.round(bitmap.width * scale));
    const height = Math.max(1, Math.round(bitmap.height * scale));
    const outMime: ImageMime = mime === 'image/jpeg' ? 'image/jpeg' : 'image/png';
    const bytes = await encode(bitmap, width, height, outMime);
    if (!bytes || bytes.size > MAX_IMAGE_BYTES) return { ok: false, message: i18n._('image.tooLarge', { name, side: MAX_IMAGE_SIDE }) };
    return { ok: true, bytes, mime: outMime, width, height };
  } finally {
    bitmap.close();
  }
}

/** A bitmap drawn at the given size and encoded (PNG, or JPEG at 0.9). */
export async function encode(source: CanvasImageSource, width: number, height: number, mime: ImageMime): Promise<Blob | null> {
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext('2d');
  if (!ctx) return null;
  if (mime === 'image/jpeg') {
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, width, height);
  }
  ctx.drawImage(source, 0, 0, width, height);
  return new Promise((resolve) => canvas.toBlob(resolve, mime, 0.9));
}
