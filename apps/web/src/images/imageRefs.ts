import type { ElementShape } from '@wb/protocol';

/**
 * Where the element drawing code (elementSvg.ts, elementCanvas.ts) finds the pictures of image
 * elements: the open lesson's ImageLibrary (imageLibrary.ts) registers itself here, and the pure
 * drawing functions ask by hash. With none registered (a test, another page) an image element is
 * drawn as its placeholder.
 */
export interface ImagePictures {
  /** A URL the page may show for the image (an object URL), or null while it is not loaded (asking starts the load). */
  href(sha256: string): string | null;
  /** The decoded picture for a canvas, or null while it is not loaded. */
  picture(sha256: string): CanvasImageSource | null;
  /** The image as a `data:` URI, for a standalone export; null when it cannot be had. */
  dataUri(sha256: string): Promise<string | null>;
}

let current: ImagePictures | null = null;

/** Makes `pictures` the source of images; returns the function that unregisters it. */
export function registerImagePictures(pictures: ImagePictures): () => void {
  current = pictures;
  return () => {
    if (current === pictures) current = null;
  };
}

export function imageHref(sha256: string): string | null {
  return current?.href(sha256) ?? null;
}

export function imagePicture(sha256: string): CanvasImageSource | null {
  return current?.picture(sha256) ?? null;
}

export function imageDataUri(sha256: string): Promise<string | null> {
  return current ? current.dataUri(sha256) : Promise.resolve(null);
}

/**
 * The pictures of these shapes' images as `data:` URIs (the library fetches each with the
 * session's bearer token, once per hash), for a document that must stand alone: an export, or a
 * copy's SVG and PNG for other apps (an SVG drawn as an image for a PNG loads no URL at all). An
 * image that cannot be had gets null: it is drawn as its placeholder.
 */
export async function embeddedImageHrefs(
  shapes: readonly ElementShape[],
  dataUriOf: (sha256: string) => Promise<string | null> = imageDataUri,
): Promise<(sha256: string) => string | null> {
  const hashes = new Set(shapes.flatMap((s) => (s.kind === 'image' ? [s.sha256] : [])));
  const uris = new Map<string, string>();
  await Promise.all(
    [...hashes].map(async (sha256) => {
      const uri = await dataUriOf(sha256);
      if (uri) uris.set(sha256, uri);
    }),
  );
  return (sha256) => uris.get(sha256) ?? null;
}

const listeners = new Set<(sha256: string) => void>();

/** Listens for images becoming ready, from whichever library is registered (now or later). */
export function onImageReady(listener: (sha256: string) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The registered library's picture of `sha256` is ready: layers showing its placeholder draw it. */
export function imageBecameReady(sha256: string): void {
  for (const listener of listeners) listener(sha256);
}
