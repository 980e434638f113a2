import type { BrowserContext } from '@playwright/test';

/**
 * PNGs (screenshots, exports) decoded by the browser's own image decoder, on a blank page of the
 * context (no image library in the tests, and no page's Content-Security-Policy in the way), and
 * reduced there by `reduce`, so only its result comes back, not megabytes of pixels. `reduce`
 * runs in the page: it may use only its arguments (each image's RGBA bytes, row by row).
 */
export async function reducePngPixels<R>(
  context: BrowserContext,
  pngs: readonly Buffer[],
  reduce: (pixels: Uint8ClampedArray[]) => R,
): Promise<R> {
  const blank = await context.newPage();
  try {
    return (await blank.evaluate(
      async ({ base64s, reduceSource }) => {
        const decode = async (base64: string) => {
          const image = new Image();
          image.src = `data:image/png;base64,${base64}`;
          await image.decode();
          const canvas = document.createElement('canvas');
          canvas.width = image.naturalWidth;
          canvas.height = image.naturalHeight;
          const ctx = canvas.getContext('2d')!;
          ctx.drawImage(image, 0, 0);
          return ctx.getImageData(0, 0, canvas.width, canvas.height).data;
        };
        const pixels = await Promise.all(base64s.map(decode));
        const run = new Function(`return (${reduceSource});`)() as (pixels: Uint8ClampedArray[]) => unknown;
        return run(pixels);
      },
      { base64s: pngs.map((png) => png.toString('base64')), reduceSource: reduce.toString() },
    )) as R;
  } finally {
    await blank.close();
  }
}
