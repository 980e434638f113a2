/**
 * The pictures of a copy, carried to a paste in another lesson of the same browser. The server
 * places an image only when its lesson holds the picture (`image_unknown`, docs/protocol.md), so a
 * copy keeps its images' bytes in a stash shared by the browser's tabs (IndexedDB, same origin),
 * keyed by sha256, and a paste uploads each picture its lesson lacks before creating the elements.
 * The upload is content-addressed: the same picture sent twice is stored once.
 */
import { RequestErrorCode, type ElementShape } from '@wb/protocol';
import { errorMessage, refusalMessage } from '../i18n/errors.ts';
import { i18n } from '../i18n/i18n.ts';

/** Where a copy's pictures wait for a paste: only the last copy's are kept. */
export interface PictureStash {
  /** Replaces whatever was kept with these pictures (sha256 to bytes). */
  replace(pictures: ReadonlyMap<string, Blob>): Promise<void>;
  get(sha256: string): Promise<Blob | null>;
}

/** The lesson a paste lands in, as far as its pictures go. */
export interface LessonPictures {
  /** Whether the lesson holds this picture (already shown here, or found on the server). */
  has(sha256: string): Promise<boolean>;
  /** Uploads the bytes to the lesson; resolves with the stored sha256, throws when refused. */
  upload(bytes: Blob): Promise<string>;
}

const imageHashes = (shapes: readonly ElementShape[]) => [...new Set(shapes.flatMap((s) => (s.kind === 'image' ? [s.sha256] : [])))];

/**
 * Keeps the copied images' bytes (`blobOf`: the copying tab's image library) in the stash, in
 * place of the previous copy's. A picture that cannot be had is left out: its paste elsewhere is
 * then refused, as before. Best effort: a stash that fails changes nothing about the copy.
 */
export async function stashCopiedPictures(shapes: readonly ElementShape[], blobOf: (sha256: string) => Promise<Blob | null>, stash: PictureStash): Promise<void> {
  const pictures = new Map<string, Blob>();
  await Promise.all(
    imageHashes(shapes).map(async (sha256) => {
      const blob = await blobOf(sha256).catch(() => null);
      if (blob) pictures.set(sha256, blob);
    }),
  );
  await stash.replace(pictures).catch(() => undefined);
}

/**
 * The pasted shapes that can be created in this lesson: every image whose picture the lesson
 * lacks is uploaded first from the stash. An image whose bytes are not kept (cleared storage,
 * another browser) or whose upload is refused is left out, and the person is told once; the rest
 * are pasted.
 */
export async function pastablePictures(shapes: readonly ElementShape[], lesson: LessonPictures, stash: PictureStash, tell: (text: string) => void): Promise<ElementShape[]> {
  const unavailable = new Set<string>();
  const refusals: string[] = [];
  await Promise.all(
    imageHashes(shapes).map(async (sha256) => {
      if (await lesson.has(sha256).catch(() => false)) return;
      const bytes = await stash.get(sha256).catch(() => null);
      if (!bytes) {
        unavailable.add(sha256);
        return;
      }
      try {
        if ((await lesson.upload(bytes)) !== sha256) unavailable.add(sha256);
      } catch (error) {
        unavailable.add(sha256);
        refusals.push(errorMessage(error, 'image.notAddedPlain'));
      }
    }),
  );
  if (unavailable.size === 0) return [...shapes];
  tell(refusals[0] ? i18n._('paste.pictureNotAdded', { reason: refusals[0] }) : refusalMessage(RequestErrorCode.IMAGE_UNKNOWN));
  return shapes.filter((s) => s.kind !== 'image' || !unavailable.has(s.sha256));
}

/** A stash in memory (tests, or a browser without IndexedDB: then only this tab's pastes). */
export function memoryPictureStash(): PictureStash {
  let kept = new Map<string, Blob>();
  return {
    replace: async (pictures) => {
      kept = new Map(pictures);
    },
    get: async (sha256) => kept.get(sha256) ?? null,
  };
}

const DB_NAME = 'wb.copiedPictures';
const STORE = 'pictures';

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error('IndexedDB request failed'));
  });
}

function openDb(): Promise<IDBDatabase> {
  const open = indexedDB.open(DB_NAME, 1);
  open.onupgradeneeded = () => open.result.createObjectStore(STORE);
  return request(open);
}

/** The stash in IndexedDB, shared by this browser's tabs (same origin); in memory where there is none. */
export function browserPictureStash(): PictureStash {
  if (typeof indexedDB === 'undefined') return memoryPictureStash();
  return {
    async replace(pictures) {
      const db = await openDb();
      try {
        const tx = db.transaction(STORE, 'readwrite');
        const store = tx.objectStore(STORE);
        store.clear();
        for (const [sha256, blob] of pictures) store.put(blob, sha256);
        await new Promise<void>((resolve, reject) => {
          tx.oncomplete = () => resolve();
          tx.onerror = tx.onabort = () => reject(tx.error ?? new Error('IndexedDB write failed'));
        });
      } finally {
        db.close();
      }
    },
    async get(sha256) {
      const db = await openDb();
      try {
        const found: unknown = await request(db.transaction(STORE).objectStore(STORE).get(sha256));
        return found instanceof Blob ? found : null;
      } finally {
        db.close();
      }
    },
  };
}
