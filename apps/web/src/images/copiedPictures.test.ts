import { refusalText, type ElementShape } from '@wb/protocol';
import { describe, expect, test, vi } from 'vitest';
import { ApiError } from '../api/roomsApi.ts';
import { rect } from '../sync/testFixtures.ts';
import { memoryPictureStash, pastablePictures, stashCopiedPictures, type LessonPictures } from './copiedPictures.ts';

const photo = (c: string, x: number): ElementShape => ({ kind: 'image', x, y: 0, w: 160, h: 90, sha256: c.repeat(64), naturalWidth: 1600, naturalHeight: 900 });
const cat = photo('a', 0);
const dog = photo('b', 200);
const bytesOf = (c: string) => new Blob([c.repeat(8)], { type: 'image/png' });

/** A lesson holding `held`; an upload stores the bytes under the hash they were stashed as. */
function lessonHolding(held: string[], stashedAs: Map<Blob, string>): LessonPictures & { uploads: string[] } {
  const pictures = new Set(held);
  const uploads: string[] = [];
  return {
    uploads,
    has: async (sha256) => pictures.has(sha256),
    upload: async (bytes) => {
      const sha256 = stashedAs.get(bytes);
      if (!sha256) throw new Error('unknown bytes');
      uploads.push(sha256);
      pictures.add(sha256);
      return sha256;
    },
  };
}

describe('CB8: a copied picture is carried to a paste in another lesson', () => {
  test('a copy stashes its images\' bytes (once per picture) in place of the previous copy\'s', async () => {
    const stash = memoryPictureStash();
    await stashCopiedPictures([dog], async () => bytesOf('b'), stash);
    const blobOf = vi.fn(async (sha256: string) => bytesOf(sha256[0] ?? ''));
    await stashCopiedPictures([cat, rect(0, 120), { ...cat, x: 400 }], blobOf, stash);
    expect(blobOf).toHaveBeenCalledTimes(1);
    expect(await stash.get('a'.repeat(64))).not.toBeNull();
    expect(await stash.get('b'.repeat(64))).toBeNull();
  });

  test('a paste uploads each picture the lesson lacks from the stash, then every shape is pasted', async () => {
    const stash = memoryPictureStash();
    const catBytes = bytesOf('a');
    await stashCopiedPictures([cat, dog], async (sha256) => (sha256 === 'a'.repeat(64) ? catBytes : bytesOf('b')), stash);
    const lesson = lessonHolding(['b'.repeat(64)], new Map([[catBytes, 'a'.repeat(64)]]));
    const tell = vi.fn();
    const shapes = [cat, rect(0, 120), dog, { ...cat, x: 400 }];
    expect(await pastablePictures(shapes, lesson, stash, tell)).toEqual(shapes);
    // Once per picture, and not the one the lesson holds already.
    expect(lesson.uploads).toEqual(['a'.repeat(64)]);
    expect(tell).not.toHaveBeenCalled();
  });

  test('a picture whose bytes are not kept is left out with the clear message; the rest is pasted', async () => {
    const stash = memoryPictureStash();
    const lesson = lessonHolding([], new Map());
    const tell = vi.fn();
    expect(await pastablePictures([cat, rect(0, 120), { ...cat, x: 400 }], lesson, stash, tell)).toEqual([rect(0, 120)]);
    expect(tell).toHaveBeenCalledTimes(1);
    expect(tell).toHaveBeenCalledWith(refusalText.image_unknown);
    expect(lesson.uploads).toEqual([]);
  });

  test('a refused upload is explained by its code, and its images are left out', async () => {
    const stash = memoryPictureStash();
    await stashCopiedPictures([cat], async () => bytesOf('a'), stash);
    const refusal = new ApiError(413, 'quota_exceeded', 'This lesson already holds 500 images.');
    const lesson: LessonPictures = { has: async () => false, upload: async () => Promise.reject(refusal) };
    const tell = vi.fn();
    expect(await pastablePictures([cat, rect(0, 120)], lesson, stash, tell)).toEqual([rect(0, 120)]);
    expect(tell).toHaveBeenCalledWith(`A copied picture was not added: ${refusalText.quota_exceeded}`);
  });
});
