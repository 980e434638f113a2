/**
 * The image routes (docs/protocol.md, "Images") on both databases: who may upload and read a
 * lesson's images (401 without a session, 403 for another lesson's member or under `look`), the
 * content decides the kind (415 for anything else or a wrong label), the size limits (413), the
 * same bytes stored once, the per-lesson caps (409 quota_exceeded) and the upload rate limit.
 */
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { ErrorCode, MAX_IMAGE_BYTES, MAX_IMAGE_SIDE, type SessionGrant } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { GIF_1X1, noisyPngFile, pngFile } from '../../../packages/protocol/test/pngFixture.ts';
import { createRoom, describeOnEachDatabase, joinAs } from './support.ts';

const MAX_IMAGES = 3;
const MAX_BYTES = 300_000;

async function upload(app: App, grant: Pick<SessionGrant, 'room'>, bytes: Uint8Array, type: string, token?: string) {
  const response = await fetch(`${app.url}/api/rooms/${grant.room.id}/images`, {
    method: 'POST',
    headers: { 'content-type': type, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: bytes,
  });
  const body = (await response.json().catch(() => null)) as { sha256?: string; width?: number; height?: number; error?: { code: string; message: string } } | null;
  return { status: response.status, body };
}

async function read(app: App, lessonId: string, sha256: string, token?: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${app.url}/api/rooms/${lessonId}/images/${sha256}`, { headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  return response;
}

const hashOf = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
let colour = 0;
/** A PNG no other test uploaded (a colour of its own). */
const freshPng = (w = 4, h = 3) => {
  colour++;
  return pngFile(w, h, [colour & 0xff, (colour >> 8) & 0xff, 7, 255]);
};

describeOnEachDatabase('image routes', { env: { LESSON_IMAGES_MAX: String(MAX_IMAGES), LESSON_IMAGE_BYTES_MAX: String(MAX_BYTES) } }, (suite) => {
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  test('a member uploads a picture and every member of the lesson reads it back, cached for good with its ETag', async () => {
    const teacher = await createRoom(app);
    const ana = await joinAs(app, teacher.room.code, 'Ana');
    const png = freshPng(5, 2);
    const up = await upload(app, ana, png, 'image/png', ana.token);
    expect(up.status).toBe(201);
    expect(up.body).toEqual({ sha256: hashOf(png), mime: 'image/png', width: 5, height: 2, bytes: png.length });

    const got = await read(app, teacher.room.id, hashOf(png), teacher.token);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(got.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    expect(got.headers.get('etag')).toBe(`"${hashOf(png)}"`);
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await got.arrayBuffer()).equals(png)).toBe(true);

    const again = await read(app, teacher.room.id, hashOf(png), ana.token, { 'if-none-match': `"${hashOf(png)}"` });
    expect(again.status).toBe(304);
  });

  test('not signed in: upload and read are 401; another lesson’s student gets 403 and learns nothing', async () => {
    const teacher = await createRoom(app);
    const png = freshPng();
    expect((await upload(app, teacher, png, 'image/png', teacher.token)).status).toBe(201);
    const sha = hashOf(png);

    const anonymous = await upload(app, teacher, png, 'image/png');
    expect([anonymous.status, anonymous.body?.error?.code]).toEqual([401, ErrorCode.NOT_AUTHENTICATED]);
    expect((await read(app, teacher.room.id, sha)).status).toBe(401);

    const elsewhere = await createRoom(app, 'Mr Other');
    const stranger = await joinAs(app, elsewhere.room.code, 'Stranger');
    const readOther = await read(app, teacher.room.id, sha, stranger.token);
    expect(readOther.status).toBe(403);
    expect(((await readOther.json()) as { error: { code: string } }).error.code).toBe(ErrorCode.FORBIDDEN);
    // Asking its own lesson for the other lesson's hash: not there.
    expect((await read(app, elsewhere.room.id, sha, stranger.token)).status).toBe(404);
    const uploadOther = await upload(app, teacher, freshPng(), 'image/png', stranger.token);
    expect([uploadOther.status, uploadOther.body?.error?.code]).toEqual([403, ErrorCode.FORBIDDEN]);
  });

  test('the content decides: a mislabelled, non-image or damaged file is refused 415 and nothing is stored', async () => {
    const teacher = await createRoom(app);
    const png = freshPng();
    const refusals = [
      await upload(app, teacher, png, 'image/jpeg', teacher.token),
      await upload(app, teacher, GIF_1X1, 'image/png', teacher.token),
      await upload(app, teacher, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>1</script></svg>'), 'image/png', teacher.token),
      await upload(app, teacher, Buffer.from('%PDF-1.4 not a picture'), 'application/pdf', teacher.token),
      await upload(app, teacher, png.subarray(0, png.length - 12), 'image/png', teacher.token),
      await upload(app, teacher, png, 'text/plain', teacher.token),
    ];
    for (const r of refusals) expect([r.status, r.body?.error?.code]).toEqual([415, ErrorCode.UNSUPPORTED_IMAGE]);
    expect((await read(app, teacher.room.id, hashOf(png), teacher.token)).status).toBe(404);
    // Without a declared image type the content alone decides.
    expect((await upload(app, teacher, GIF_1X1, 'application/octet-stream', teacher.token)).status).toBe(201);
  });

  test(`over ${MAX_IMAGE_BYTES} bytes, or over ${MAX_IMAGE_SIDE} pixels a side, is refused 413`, async () => {
    const teacher = await createRoom(app);
    const big = Buffer.alloc(MAX_IMAGE_BYTES + 1);
    freshPng().copy(big);
    const tooBig = await upload(app, teacher, big, 'image/png', teacher.token);
    expect([tooBig.status, tooBig.body?.error?.code]).toEqual([413, ErrorCode.PAYLOAD_TOO_LARGE]);
    const wide = await upload(app, teacher, pngFile(MAX_IMAGE_SIDE + 1, 1), 'image/png', teacher.token);
    expect([wide.status, wide.body?.error?.code]).toEqual([413, ErrorCode.PAYLOAD_TOO_LARGE]);
  });

  test('the same bytes are stored once: pasted twice, or in two lessons', async () => {
    const first = await createRoom(app);
    const second = await createRoom(app, 'Mr Two');
    const png = freshPng(7, 7);
    expect((await upload(app, first, png, 'image/png', first.token)).status).toBe(201);
    expect((await upload(app, first, png, 'image/png', first.token)).status).toBe(200);
    expect((await upload(app, second, png, 'image/png', second.token)).status).toBe(201);
    const blobs = (await app.database.db.execute(sql`SELECT count(*)::int AS n FROM image_blobs WHERE sha256 = ${hashOf(png)}`)) as unknown as { rows: { n: number }[] };
    expect(blobs.rows[0]?.n).toBe(1);
    expect((await read(app, second.room.id, hashOf(png), second.token)).status).toBe(200);
  });

  test(`at the cap of ${MAX_IMAGES} images a new one is refused 409 quota_exceeded; one already there is still answered`, async () => {
    const teacher = await createRoom(app);
    const kept = [freshPng(), freshPng(), freshPng()];
    for (const png of kept) expect((await upload(app, teacher, png, 'image/png', teacher.token)).status).toBe(201);
    const over = await upload(app, teacher, freshPng(), 'image/png', teacher.token);
    expect([over.status, over.body?.error?.code]).toEqual([409, ErrorCode.QUOTA_EXCEEDED]);
    expect((await upload(app, teacher, kept[0]!, 'image/png', teacher.token)).status).toBe(200);
  });

  test(`at the cap of ${MAX_BYTES} image bytes per lesson a new one is refused 409 quota_exceeded`, async () => {
    const teacher = await createRoom(app);
    const first = noisyPngFile(200, 200);
    expect((await upload(app, teacher, first, 'image/png', teacher.token)).status).toBe(201);
    const second = await upload(app, teacher, noisyPngFile(200, 200), 'image/png', teacher.token);
    expect([second.status, second.body?.error?.code]).toEqual([409, ErrorCode.QUOTA_EXCEEDED]);
  });

  test('a student uploads under the lesson’s policy: not in a look-only lesson (403 forbidden_by_policy)', async () => {
    const looking = await createRoom(app, 'Ms Look', { editPolicy: 'look' });
    const ana = await joinAs(app, looking.room.code, 'Ana');
    const refused = await upload(app, looking, freshPng(), 'image/png', ana.token);
    expect([refused.status, refused.body?.error?.code]).toEqual([403, ErrorCode.FORBIDDEN_BY_POLICY]);
    expect((await upload(app, looking, freshPng(), 'image/png', looking.token)).status).toBe(201);
  });

  test('uploads into one lesson are rate-limited (429 with Retry-After) before any database work', async () => {
    const teacher = await createRoom(app);
    const png = freshPng();
    // All at once: the bucket's 100 tokens refill over a minute, so sent in a row they would refill meanwhile.
    const answers = await Promise.all(
      Array.from({ length: 110 }, async () => {
        const response = await fetch(`${app.url}/api/rooms/${teacher.room.id}/images`, { method: 'POST', headers: { 'content-type': 'image/png', authorization: `Bearer ${teacher.token}` }, body: png });
        await response.arrayBuffer();
        return { status: response.status, retryAfter: response.headers.get('retry-after') };
      }),
    );
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(5);
    expect(answers.filter((a) => a.status !== 429).every((a) => a.status === 200 || a.status === 201)).toBe(true);
    const retryAfter = limited[0]?.retryAfter;
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });
});
