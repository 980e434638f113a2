/**
 * Images of a lesson (issue 23, migration 0012, docs/protocol.md "Images"), behind `ImageStore`:
 * put, get and has, by lesson and SHA-256. This is the database implementation: the bytes in
 * `image_blobs` (one row per distinct hash, so the same picture pasted twice, or in two lessons,
 * is stored once) and the lesson's right to it in `lesson_images`. An object store would keep the
 * bytes elsewhere and the same `lesson_images` rows here.
 *
 *   absent --put (member who may draw, under the caps)--> stored     (blob inserted if new)
 *   stored --put again (any lesson member who may draw)--> already_stored (nothing written)
 *   stored --lesson purged (retention.ts)----------------> absent    (blob too, if no other lesson names it)
 *
 * A put is one transaction: the member's right to draw (editRights.ts, as for an element create),
 * then, under a per-lesson advisory lock so two uploads cannot both pass a cap, the lesson's count
 * and bytes against the caps, then the inserts. A refused put writes nothing.
 */
import { sql } from 'drizzle-orm';
import type { ImageMime } from '@wb/protocol';
import type { Clock } from './clock.ts';
import { authorizeEdit, drawingRefusal, editTransaction, type EditActor, type PolicyRefusal } from './editRights.ts';
import { int, rows, type Db } from './sql.ts';

export interface ImageMeta {
  readonly sha256: string;
  readonly mime: ImageMime;
  readonly width: number;
  readonly height: number;
  /** Size of the stored bytes. */
  readonly bytes: number;
}

export interface StoredImage extends ImageMeta {
  readonly data: Uint8Array;
}

/** Per-lesson limits a put is checked against (the server's config). */
export interface ImageCaps {
  /** Distinct images a lesson may hold. */
  readonly maxImages: number;
  /** Their total stored bytes. */
  readonly maxBytes: number;
}

export type PutImageResult =
  /** `newBytes`: false when another lesson had stored the same bytes already (content-addressed). */
  | { decision: 'stored'; image: ImageMeta; newBytes: boolean }
  | { decision: 'already_stored'; image: ImageMeta }
  | { decision: 'not_a_member' }
  | { decision: 'forbidden_by_policy'; refusal: Exclude<PolicyRefusal, 'not_own' | 'feedback'> }
  | { decision: 'images_cap' | 'bytes_cap'; usage: { images: number; bytes: number } };

/** The storage interface the image routes use; `createStore` gives the database one. */
export interface ImageStore {
  putImage(actor: EditActor, image: StoredImage, caps: ImageCaps): Promise<PutImageResult>;
  /** The image if the lesson holds it, else null (also for another lesson's image). */
  getImage(lessonId: string, sha256: string): Promise<StoredImage | null>;
  hasImage(lessonId: string, sha256: string): Promise<boolean>;
}

interface MetaRow {
  sha256: string;
  mime: ImageMime;
  width: number;
  height: number;
  byte_size: number | string;
}

const toMeta = (r: MetaRow): ImageMeta => ({ sha256: r.sha256, mime: r.mime, width: int(r.width), height: int(r.height), bytes: int(r.byte_size) });

/**
 * Stores an image for the actor's lesson (`actor.roomId` is the lesson, never a private board):
 * the member must be allowed to draw there. Idempotent by hash.
 */
export async function putImage(db: Db, clock: Clock, actor: EditActor, image: StoredImage, caps: ImageCaps): Promise<PutImageResult> {
  return editTransaction(db, async (tx) => {
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth) return { decision: 'not_a_member' as const };
    const refusal = drawingRefusal(auth);
    if (refusal) return { decision: 'forbidden_by_policy' as const, refusal };
    // One upload of a lesson at a time passes the caps (held to the end of this transaction).
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`wb.images:${actor.roomId}`}))`);
    const [held] = await rows<MetaRow>(
      tx,
      sql`SELECT b.sha256, b.mime, b.width, b.height, b.byte_size FROM lesson_images l JOIN image_blobs b ON b.sha256 = l.sha256
          WHERE l.room_id = ${actor.roomId}::uuid AND l.sha256 = ${image.sha256}`,
    );
    if (held) return { decision: 'already_stored' as const, image: toMeta(held) };
    const [usage] = await rows<{ images: number | string; bytes: number | string }>(
      tx,
      sql`SELECT count(*) AS images, coalesce(sum(b.byte_size), 0) AS bytes FROM lesson_images l JOIN image_blobs b ON b.sha256 = l.sha256
          WHERE l.room_id = ${actor.roomId}::uuid`,
    );
    const used = { images: int(usage?.images ?? 0), bytes: int(usage?.bytes ?? 0) };
    if (used.images + 1 > caps.maxImages) return { decision: 'images_cap' as const, usage: used };
    if (used.bytes + image.data.byteLength > caps.maxBytes) return { decision: 'bytes_cap' as const, usage: used };
    const now = clock.now();
    const inserted = await rows<{ sha256: string }>(
      tx,
      sql`INSERT INTO image_blobs (sha256, mime, width, height, byte_size, data, created_at)
          VALUES (${image.sha256}, ${image.mime}, ${image.width}, ${image.height}, ${image.data.byteLength}, ${bytea(image.data)}, ${now})
          ON CONFLICT (sha256) DO NOTHING RETURNING sha256`,
    );
    await tx.execute(
      sql`INSERT INTO lesson_images (room_id, sha256, uploaded_by, created_at)
          VALUES (${actor.roomId}::uuid, ${image.sha256}, ${actor.userId}::uuid, ${now})`,
    );
    const [stored] = await rows<MetaRow>(tx, sql`SELECT sha256, mime, width, height, byte_size FROM image_blobs WHERE sha256 = ${image.sha256}`);
    if (!stored) throw new Error(`image ${image.sha256} vanished while being stored`);
    return { decision: 'stored' as const, image: toMeta(stored), newBytes: inserted.length === 1 };
  });
}

export async function getImage(db: Db, lessonId: string, sha256: string): Promise<StoredImage | null> {
  const [row] = await rows<MetaRow & { data: Uint8Array }>(
    db,
    sql`SELECT b.sha256, b.mime, b.width, b.height, b.byte_size, b.data FROM lesson_images l JOIN image_blobs b ON b.sha256 = l.sha256
        WHERE l.room_id = ${lessonId}::uuid AND l.sha256 = ${sha256}`,
  );
  return row ? { ...toMeta(row), data: row.data } : null;
}

/** The pictures a lesson holds (not their bytes), oldest first: for an account's export. */
export async function listLessonImages(db: Db, lessonId: string): Promise<ImageMeta[]> {
  const found = await rows<MetaRow>(
    db,
    sql`SELECT b.sha256, b.mime, b.width, b.height, b.byte_size FROM lesson_images l JOIN image_blobs b ON b.sha256 = l.sha256
        WHERE l.room_id = ${lessonId}::uuid ORDER BY l.created_at, l.sha256`,
  );
  return found.map(toMeta);
}

export async function hasImage(db: Db, lessonId: string, sha256: string): Promise<boolean> {
  const found = await rows<{ one: number }>(db, sql`SELECT 1 AS one FROM lesson_images WHERE room_id = ${lessonId}::uuid AND sha256 = ${sha256}`);
  return found.length > 0;
}

/** node-postgres sends a Buffer as bytea; PGlite takes a Uint8Array. A Buffer is both. */
function bytea(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}
