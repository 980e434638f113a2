import type { Store } from '@wb/db';
import {
  DEFAULT_SHARE_OPTIONS,
  ErrorCode,
  ImageHash,
  RoomCode,
  ShareLinkRequest,
  ShareToken,
  parsePacket,
  refusalText,
  type RoomInfo,
  type ShareLinkCreated,
} from '@wb/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { teacherFromCookie } from '../authz.ts';
import { hashSecret, newSessionToken } from '../tokens.ts';
import { sendError } from './errors.ts';
import { HTTP_LIMITS, type RateLimiter } from './rateLimits.ts';
import { taughtRoom } from './teacherGuard.ts';

/** A board's place in the lesson's list, as a path segment: a small whole number. */
const BoardIndex = z.coerce.number().int().min(0).max(10_000);
/** A replay page's cursor as the server wrote it (opaque to clients). */
const ReplayQuery = z.object({ after: z.string().max(200).optional() });

const IMAGE_CACHE_CONTROL = 'private, max-age=300';

/**
 * Share links and replay (docs/protocol.md, "Share links and replay"). The teacher's routes come
 * twice, as the attendance report's do: for her lesson session (bearer token, `/api/rooms/:code/…`)
 * and for the account that owns the lesson (cookie, `/api/teacher/rooms/:code/…`, from the lesson
 * library). The viewer's routes (`/api/shared/:token/…`) need no account: the token is the key,
 * checked against its hash by the store in the statement that reads (shareLinks.ts, SL1), and
 * everything they answer is `no-store`, so a link turned off shows nothing from a cache either.
 */
export function registerShareRoutes(app: FastifyInstance, deps: { store: Store; limits: RateLimiter }): void {
  const { store, limits } = deps;

  /** The lesson named by `:code` if the signed-in account owns it; otherwise the refusal is sent. */
  async function ownedRoom(request: FastifyRequest, reply: FastifyReply): Promise<RoomInfo | null> {
    const found = await teacherFromCookie(store, request.headers.cookie);
    if (!found.ok) {
      sendError(reply, found.error.code, found.error.message);
      return null;
    }
    const code = parsePacket(RoomCode, (request.params as { code?: unknown }).code);
    const room = code.ok ? await store.findTeacherRoom(found.teacher.id, code.value) : null;
    if (!room) sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'You have no lesson with this code.');
    return room;
  }

  const ways = [
    ['/api/rooms/:code', async (request: FastifyRequest, reply: FastifyReply) => (await taughtRoom(store, request, reply))?.room ?? null],
    ['/api/teacher/rooms/:code', ownedRoom],
  ] as const;

  for (const [prefix, lessonOf] of ways) {
    app.get(`${prefix}/share`, async (request, reply) => {
      const room = await lessonOf(request, reply);
      if (!room) return reply;
      return reply.header('cache-control', 'no-store').send(await store.shareLinkState(room.id));
    });

    app.post(`${prefix}/share`, async (request, reply) => {
      const room = await lessonOf(request, reply);
      if (!room) return reply;
      const body = parsePacket(ShareLinkRequest, request.body ?? {});
      if (!body.ok) return sendError(reply, body.error.code, body.error.message);
      const token = newSessionToken();
      const made = await store.createShareLink({ lessonId: room.id, tokenHash: hashSecret(token), options: { ...DEFAULT_SHARE_OPTIONS, ...body.value } });
      switch (made.decision) {
        case 'no_lesson':
          return sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'No lesson has this code.');
        case 'lesson_open':
          return sendError(reply, ErrorCode.CONFLICT, 'End the lesson before sharing it.');
        case 'created': {
          const answer: ShareLinkCreated = { ...made.state, token };
          return reply.code(201).header('cache-control', 'no-store').send(answer);
        }
      }
    });

    app.patch(`${prefix}/share`, async (request, reply) => {
      const room = await lessonOf(request, reply);
      if (!room) return reply;
      const body = parsePacket(ShareLinkRequest, request.body ?? {});
      if (!body.ok) return sendError(reply, body.error.code, body.error.message);
      const changed = await store.setShareOptions({ lessonId: room.id, options: body.value });
      if (changed.decision === 'no_link') return sendError(reply, ErrorCode.NOT_FOUND, 'This lesson has no share link on.');
      return reply.header('cache-control', 'no-store').send(changed.state);
    });

    app.delete(`${prefix}/share`, async (request, reply) => {
      const room = await lessonOf(request, reply);
      if (!room) return reply;
      const off = await store.turnOffShareLink(room.id);
      return { ok: true, decision: off.decision };
    });

    app.get(`${prefix}/replay`, async (request, reply) => {
      const room = await lessonOf(request, reply);
      if (!room) return reply;
      return reply.header('cache-control', 'no-store').send(await store.lessonBoardsForReplay(room.id, room.title));
    });

    app.get(`${prefix}/replay/:index`, async (request, reply) => {
      const room = await lessonOf(request, reply);
      if (!room) return reply;
      const index = BoardIndex.safeParse((request.params as { index?: unknown }).index);
      const query = ReplayQuery.safeParse(request.query);
      if (!index.success) return sendError(reply, ErrorCode.NOT_FOUND, 'This lesson has no such board.');
      if (!query.success) return sendError(reply, ErrorCode.BAD_REQUEST, 'after: a cursor from the previous page');
      const read = await store.readLessonReplay(room.id, index.data, query.data.after ?? null);
      if (read.decision !== 'ok') return sendError(reply, ErrorCode.NOT_FOUND, 'This lesson has no such board.');
      return reply.header('cache-control', 'no-store').send(read.value);
    });
  }

  /**
   * The viewer's rate limit and token, before any database work: a malformed token is refused as
   * a link that is off (no hint whether a token exists). Answers the token's hash, or null when refused.
   */
  async function admitViewer(request: FastifyRequest, reply: FastifyReply): Promise<string | null> {
    reply.header('cache-control', 'no-store');
    if (!(await limits.allow(reply, [[HTTP_LIMITS.sharedReadsPerAddress, request.ip]]))) return null;
    const token = ShareToken.safeParse((request.params as { token?: unknown }).token);
    if (!token.success) {
      sendError(reply, ErrorCode.SHARE_LINK_OFF, refusalText[ErrorCode.SHARE_LINK_OFF]);
      return null;
    }
    return hashSecret(token.data);
  }

  const linkOff = (reply: FastifyReply) => sendError(reply, ErrorCode.SHARE_LINK_OFF, refusalText[ErrorCode.SHARE_LINK_OFF]);

  app.get('/api/shared/:token', async (request, reply) => {
    const hash = await admitViewer(request, reply);
    if (hash === null) return reply;
    const lesson = await store.openSharedLesson(hash);
    return lesson ?? linkOff(reply);
  });

  app.get('/api/shared/:token/boards/:index', async (request, reply) => {
    const hash = await admitViewer(request, reply);
    if (hash === null) return reply;
    const index = BoardIndex.safeParse((request.params as { index?: unknown }).index);
    if (!index.success) return sendError(reply, ErrorCode.NOT_FOUND, 'This link shows no such board.');
    const read = await store.readSharedBoard(hash, index.data);
    if (read.decision === 'ok') return read.value;
    return read.decision === 'off' ? linkOff(reply) : sendError(reply, ErrorCode.NOT_FOUND, 'This link shows no such board.');
  });

  app.get('/api/shared/:token/boards/:index/replay', async (request, reply) => {
    const hash = await admitViewer(request, reply);
    if (hash === null) return reply;
    const index = BoardIndex.safeParse((request.params as { index?: unknown }).index);
    const query = ReplayQuery.safeParse(request.query);
    if (!index.success) return sendError(reply, ErrorCode.NOT_FOUND, 'This link shows no such board.');
    if (!query.success) return sendError(reply, ErrorCode.BAD_REQUEST, 'after: a cursor from the previous page');
    const read = await store.readSharedReplay(hash, index.data, query.data.after ?? null);
    switch (read.decision) {
      case 'ok':
        return read.value;
      case 'off':
        return linkOff(reply);
      case 'no_replay':
        return sendError(reply, ErrorCode.FORBIDDEN, 'This link does not include replay.');
      case 'not_found':
        return sendError(reply, ErrorCode.NOT_FOUND, 'This link shows no such board.');
    }
  });

  app.get('/api/shared/:token/images/:sha256', async (request, reply) => {
    const hash = await admitViewer(request, reply);
    if (hash === null) return reply;
    const sha256 = ImageHash.safeParse((request.params as { sha256?: unknown }).sha256);
    if (!sha256.success) return sendError(reply, ErrorCode.NOT_FOUND, 'This lesson has no such image.');
    const lessonId = await store.sharedLessonId(hash);
    if (!lessonId) return linkOff(reply);
    const image = await store.getImage(lessonId, sha256.data);
    if (!image) return sendError(reply, ErrorCode.NOT_FOUND, 'This lesson has no such image.');
    // Cached briefly and privately (not `immutable`): a link turned off stops serving within minutes at most.
    return reply
      .header('content-type', image.mime)
      .header('cache-control', IMAGE_CACHE_CONTROL)
      .header('content-disposition', 'inline')
      .send(Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength));
  });
}
