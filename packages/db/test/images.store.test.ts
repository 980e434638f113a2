/**
 * The image store (images.ts, migration 0012) as a contract on PGlite and real Postgres: a put is
 * authorised like a drawing (an active member who may draw), content-addressed (the same bytes
 * once, however many lessons hold them), checked against the per-lesson caps under one lock so two
 * uploads cannot both pass, read only through the lesson that holds the image, and a lesson purge
 * removes the bytes only when no other lesson names them.
 */
import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import type { EditActor } from '../src/editRights.ts';
import type { StoredImage } from '../src/images.ts';
import { purgeRoom } from '../src/retention.ts';
import { rows } from '../src/sql.ts';
import { createStore, type Store } from '../src/store.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { pngFile } from '../../protocol/test/pngFixture.ts';
import { CLOCK_START, newRoom, seatStudent, storeDatabaseKinds, SESSION_TTL_MS } from './fixtures.ts';

const CAPS = { maxImages: 3, maxBytes: 100_000 };
let colour = 0;

function image(w = 4, h = 4): StoredImage {
  colour++;
  const data = pngFile(w, h, [colour & 0xff, (colour >> 8) & 0xff, 99, 255]);
  return { sha256: createHash('sha256').update(data).digest('hex'), mime: 'image/png', width: w, height: h, bytes: data.length, data };
}

const meta = ({ data: _data, ...rest }: StoredImage) => rest;

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`image store on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    let testDb: TestDatabase;
    let store: Store;
    const clock = new FrozenClock(CLOCK_START);

    beforeAll(async () => {
      testDb = await openTestDatabase(kind);
      store = createStore(testDb.database, clock);
    });
    afterAll(async () => {
      await testDb?.drop();
    });

    async function lesson(settings?: Parameters<typeof newRoom>[1]) {
      const room = await newRoom(store, settings);
      const sessionId = randomUUID();
      await store.openSession({ id: sessionId, roomId: room.roomId, userId: room.teacherId, tokenHash: randomUUID(), ttlMs: SESSION_TTL_MS });
      const teacher: EditActor = { roomId: room.roomId, sessionId, userId: room.teacherId };
      const seat = await seatStudent(store, room);
      const student: EditActor = { roomId: room.roomId, sessionId: seat.sessionId, userId: seat.userId };
      return { ...room, teacher, student };
    }

    const blobCount = async (sha256: string) =>
      (await rows<{ n: number | string }>(testDb.database.db, sql`SELECT count(*) AS n FROM image_blobs WHERE sha256 = ${sha256}`)).map((r) => Number(r.n))[0];

    test('[IMG1] a stored image is read back whole, through its lesson only', async () => {
      const l = await lesson();
      const other = await lesson();
      const picture = image(5, 3);
      const put = await store.putImage(l.student, picture, CAPS);
      expect(put).toEqual({ decision: 'stored', image: meta(picture), newBytes: true });
      const got = await store.getImage(l.roomId, picture.sha256);
      expect(got && Buffer.from(got.data).equals(Buffer.from(picture.data))).toBe(true);
      expect(got && meta({ ...got })).toEqual(meta(picture));
      expect(await store.hasImage(l.roomId, picture.sha256)).toBe(true);
      expect(await store.getImage(other.roomId, picture.sha256)).toBeNull();
      expect(await store.hasImage(other.roomId, picture.sha256)).toBe(false);
    });

    test('[IMG2] content-addressed: the same bytes twice in a lesson, or in two lessons, are stored once', async () => {
      const a = await lesson();
      const b = await lesson();
      const picture = image();
      expect((await store.putImage(a.teacher, picture, CAPS)).decision).toBe('stored');
      expect(await store.putImage(a.student, picture, CAPS)).toEqual({ decision: 'already_stored', image: meta(picture) });
      expect(await store.putImage(b.teacher, picture, CAPS)).toEqual({ decision: 'stored', image: meta(picture), newBytes: false });
      expect(await blobCount(picture.sha256)).toBe(1);
    });

    test('[IMG3] a put is authorised like drawing: not under look, not with a muted pen, not after revocation', async () => {
      const looking = await lesson({ editPolicy: 'look' });
      expect(await store.putImage(looking.student, image(), CAPS)).toEqual({ decision: 'forbidden_by_policy', refusal: 'look_only' });
      expect((await store.putImage(looking.teacher, image(), CAPS)).decision).toBe('stored');

      const muted = await lesson();
      expect((await store.setPenMuted(muted.teacher, { userId: muted.student.userId, muted: true })).decision).toBe('applied');
      expect(await store.putImage(muted.student, image(), CAPS)).toEqual({ decision: 'forbidden_by_policy', refusal: 'pen_muted' });

      const revoked = await lesson();
      await store.revokeMember({ roomId: revoked.roomId, userId: revoked.student.userId, by: revoked.teacherId, reason: null, requestId: null });
      const refused = image();
      expect(await store.putImage(revoked.student, refused, CAPS)).toEqual({ decision: 'not_a_member' });
      expect(await blobCount(refused.sha256)).toBe(0);
    });

    test('[IMG4] at a cap nothing is written; an image the lesson holds is still answered', async () => {
      const l = await lesson();
      const kept = [image(), image(), image()];
      for (const picture of kept) expect((await store.putImage(l.teacher, picture, CAPS)).decision).toBe('stored');
      const over = image();
      expect(await store.putImage(l.teacher, over, CAPS)).toMatchObject({ decision: 'images_cap', usage: { images: 3 } });
      expect(await blobCount(over.sha256)).toBe(0);
      expect((await store.putImage(l.teacher, kept[0]!, CAPS)).decision).toBe('already_stored');

      const small = await lesson();
      const first = image(10, 10);
      expect((await store.putImage(small.teacher, first, { maxImages: 10, maxBytes: first.bytes + 10 })).decision).toBe('stored');
      expect(await store.putImage(small.teacher, image(10, 10), { maxImages: 10, maxBytes: first.bytes + 10 })).toMatchObject({
        decision: 'bytes_cap',
        usage: { images: 1, bytes: first.bytes },
      });
    });

    test('[IMG5] uploads racing for the last places: exactly as many are stored as the cap allows', async () => {
      const caps = { maxImages: 2, maxBytes: 1_000_000 };
      for (let round = 0; round < 6; round++) {
        const l = await lesson();
        const results = await Promise.all(Array.from({ length: 5 }, (_, i) => store.putImage(i % 2 ? l.student : l.teacher, image(), caps)));
        expect(results.filter((r) => r.decision === 'stored')).toHaveLength(2);
        expect(results.filter((r) => r.decision === 'images_cap')).toHaveLength(3);
      }
    });

    test('[IMG6] a lesson purge removes its images, and the bytes only when no other lesson names them', async () => {
      const gone = await lesson();
      const stays = await lesson();
      const shared = image();
      const own = image();
      await store.putImage(gone.teacher, shared, CAPS);
      await store.putImage(stays.teacher, shared, CAPS);
      await store.putImage(gone.teacher, own, CAPS);
      await purgeRoom(testDb.database, gone.roomId, 'test');
      expect(await blobCount(own.sha256)).toBe(0);
      expect(await blobCount(shared.sha256)).toBe(1);
      expect(await store.hasImage(stays.roomId, shared.sha256)).toBe(true);
    });
  });
}
