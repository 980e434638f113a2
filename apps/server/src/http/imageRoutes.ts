import { createHash } from 'node:crypto';
import type { EditActor, ImageStore, Store } from '@wb/db';
import { ErrorCode, ImageHash, MAX_IMAGE_BYTES, MAX_IMAGE_SIDE, ImageMime, policyText, type ImageUploadReply } from '@wb/protocol';
import { sniffImage } from './imageSniff.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { actorFromBearer, type Actor } from '../authz.ts';
import { sendError } from './errors.ts';
import { HTTP_LIMITS, type RateLimiter } from './rateLimits.ts';

/** The declared types an upload may carry: an image type (it must match the content) or none in particular. */
const UPLOAD_TYPES = [...ImageMime.options, 'application/octet-stream'];
const LessonParam = z.uuid();

/** Images never change under their name (the hash of their bytes): the browser keeps them a year, privately. */
const IMAGE_CACHE_CONTROL = 'private, max-age=31536000, immutable';

const policyRefusal = { look_only: policyText.lookOnly, pen_muted: policyText.penMuted } as const;

/**
 * The image routes (docs/protocol.md, "Images"): upload a picture to a lesson, and read one back.
 * Both act for a session (`Authorization: Bearer`) of the lesson named in the path; the rate
 * limits and the session are checked when the request arrives, before an upload's body is read.
 */
export function registerImageRoutes(
  app: FastifyInstance,
  deps: { store: Store; images: ImageStore; limits: RateLimiter; caps: { maxImages: number; maxBytes: number } },
): void {
  const { store, images, limits, caps } = deps;
  const actors = new WeakMap<FastifyRequest, Actor>();

  /** Rate limits, then the session, then that it is this lesson's: the request's actor, or the refusal sent. */
  const admit = (rules: 'upload' | 'read') => async (request: FastifyRequest, reply: FastifyReply) => {
    const lessonId = (request.params as { roomId?: unknown }).roomId;
    const lessonKey = typeof lessonId === 'string' ? lessonId.slice(0, 64) : '';
    const checks =
      rules === 'upload'
        ? ([
            [HTTP_LIMITS.imageUploadsPerAddress, request.ip],
            [HTTP_LIMITS.imageUploadsPerLesson, lessonKey],
          ] as const)
        : ([[HTTP_LIMITS.imageReadsPerAddress, request.ip]] as const);
    if (!(await limits.allow(reply, checks))) return reply;
    const found = await actorFromBearer(store, request.headers.authorization);
    if (!found.ok) return sendError(reply, found.error.code, found.error.message);
    if (!LessonParam.safeParse(lessonId).success || found.actor.roomId !== lessonId) {
      return sendError(reply, ErrorCode.FORBIDDEN, 'This session belongs to another lesson.');
    }
    actors.set(request, found.actor);
  };

  void app.register(async (scope) => {
    // The body of an upload is the file itself, read whole into memory (at most MAX_IMAGE_BYTES),
    // whatever its declared type: the content decides, and a wrong declaration is refused below.
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_IMAGE_BYTES }, (_request, body, done) => done(null, body));

    scope.post('/api/rooms/:roomId/images', { onRequest: admit('upload'), bodyLimit: MAX_IMAGE_BYTES }, async (request, reply) => {
      const actor = actors.get(request);
      if (!actor) return sendError(reply, ErrorCode.NOT_AUTHENTICATED, 'Sign in or join the lesson first.');
      const body = request.body;
      // A JSON or form body was parsed as such, not kept as bytes: it is not an image either.
      if (!Buffer.isBuffer(body) || body.length === 0) {
        return sendError(reply, ErrorCode.UNSUPPORTED_IMAGE, 'Send the image file itself as the body, with Content-Type image/png, image/jpeg, image/webp or image/gif.');
      }
      const sniffed = sniffImage(body);
      if (!sniffed.ok) {
        switch (sniffed.refusal) {
          case 'not_an_image':
            return sendError(reply, ErrorCode.UNSUPPORTED_IMAGE, 'This file is not a PNG, JPEG, WebP or GIF image.');
          case 'corrupt':
            return sendError(reply, ErrorCode.UNSUPPORTED_IMAGE, 'This image is damaged: its header cannot be read or the file is cut short.');
          case 'too_many_pixels':
            return sendError(reply, ErrorCode.PAYLOAD_TOO_LARGE, `An image is at most ${MAX_IMAGE_SIDE} pixels wide and high; scale it down first.`);
        }
      }
      const declared = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
      if (!UPLOAD_TYPES.includes(declared ?? '') || (declared !== 'application/octet-stream' && declared !== sniffed.header.mime)) {
        return sendError(reply, ErrorCode.UNSUPPORTED_IMAGE, `The file says it is ${declared} but holds ${sniffed.header.mime}; nothing was stored.`);
      }
      const sha256 = createHash('sha256').update(body).digest('hex');
      const editor: EditActor = { roomId: actor.roomId, sessionId: actor.sessionId, userId: actor.userId };
      const put = await images.putImage(editor, { sha256, ...sniffed.header, bytes: body.length, data: body }, caps);
      switch (put.decision) {
        case 'not_a_member':
          return sendError(reply, ErrorCode.FORBIDDEN, 'This session cannot add to this lesson now.');
        case 'forbidden_by_policy':
          return sendError(reply, ErrorCode.FORBIDDEN_BY_POLICY, policyRefusal[put.refusal]);
        case 'images_cap':
          return sendError(reply, ErrorCode.QUOTA_EXCEEDED, `This lesson already holds ${caps.maxImages} images, as many as it may; nothing was stored.`);
        case 'bytes_cap':
          return sendError(reply, ErrorCode.QUOTA_EXCEEDED, `This lesson's images would pass ${Math.round(caps.maxBytes / 1024 / 1024)} MB; nothing was stored.`);
        case 'stored':
        case 'already_stored': {
          const answer: ImageUploadReply = { sha256: put.image.sha256, mime: put.image.mime, width: put.image.width, height: put.image.height, bytes: put.image.bytes };
          return reply.code(put.decision === 'stored' ? 201 : 200).send(answer);
        }
      }
    });

    scope.get('/api/rooms/:roomId/images/:sha256', { onRequest: admit('read') }, async (request, reply) => {
      const actor = actors.get(request);
      if (!actor) return sendError(reply, ErrorCode.NOT_AUTHENTICATED, 'Sign in or join the lesson first.');
      const sha256 = ImageHash.safeParse((request.params as { sha256?: unknown }).sha256);
      if (!sha256.success) return sendError(reply, ErrorCode.NOT_FOUND, 'This lesson has no such image.');
      const etag = `"${sha256.data}"`;
      // The name is the content: a browser that has it has the current version.
      if (request.headers['if-none-match'] === etag && (await images.hasImage(actor.roomId, sha256.data))) {
        return reply.code(304).header('etag', etag).header('cache-control', IMAGE_CACHE_CONTROL).send();
      }
      const image = await images.getImage(actor.roomId, sha256.data);
      if (!image) return sendError(reply, ErrorCode.NOT_FOUND, 'This lesson has no such image.');
      return reply
        .header('content-type', image.mime)
        .header('cache-control', IMAGE_CACHE_CONTROL)
        .header('etag', etag)
        .header('content-disposition', 'inline')
        .send(Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength));
    });
  });
}
