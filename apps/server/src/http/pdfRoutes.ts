import type { Store } from '@wb/db';
import { ErrorCode, RoomCode, parsePacket, type RoomInfo } from '@wb/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { teacherFromCookie } from '../authz.ts';
import { classPackPdf, fileSlug, lessonPdf } from '../pdf/lessonPdf.ts';
import { sendError } from './errors.ts';
import { taughtRoom } from './teacherGuard.ts';

/**
 * The lesson's PDFs for its teacher (docs/protocol.md, "PDF export"): the whole lesson, and one
 * activity's class pack. Two ways in, as for the attendance report: the teacher's session in the
 * lesson (bearer token: the lesson's menu while it runs) and the teacher account that owns it
 * (cookie: the lesson library, any time after). A student's session is refused `forbidden`,
 * another account's lesson reads as missing (`room_not_found`), an unknown activity `not_found`.
 *
 * Drawing a PDF is CPU work of up to a few seconds (a class pack of 30 boards): at most
 * MAX_EXPORTS_AT_ONCE run at a time on a node, a request past that is answered `busy` at once
 * (I14: one teacher's downloads never starve the class's edits on the same node).
 */
export const MAX_EXPORTS_AT_ONCE = 2;

const ActivityIdParam = z.uuid();

export function registerPdfRoutes(app: FastifyInstance, deps: { store: Store }): void {
  const { store } = deps;
  let running = 0;

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

  async function sendPdf(reply: FastifyReply, filename: string, draw: () => Promise<Uint8Array | null>) {
    if (running >= MAX_EXPORTS_AT_ONCE) return sendError(reply, ErrorCode.BUSY, 'Other PDFs are being made on this server. Try again in a moment.');
    running += 1;
    let pdf: Uint8Array | null;
    try {
      pdf = await draw();
    } finally {
      running -= 1;
    }
    if (!pdf) return sendError(reply, ErrorCode.NOT_FOUND, 'This lesson has no such activity.');
    return reply
      .type('application/pdf')
      .header('content-disposition', attachment(filename))
      .header('cache-control', 'no-store')
      .send(Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength));
  }

  const lessonFile = (room: RoomInfo) => `${fileSlug(room.title)}-${room.code}.pdf`;

  /**
   * A download's name in any script: `filename*` (RFC 6266/8187, UTF-8) for browsers, and an ASCII
   * `filename` beside it (a header value cannot carry "Geometría" or Arabic as they are).
   */
  const attachment = (filename: string) =>
    `attachment; filename="${filename.normalize('NFKD').replace(/[^\x20-\x7e]/g, '').replace(/["\\]/g, '') || 'lesson.pdf'}"; filename*=UTF-8''${encodeURIComponent(filename)}`;

  async function sendClassPack(request: FastifyRequest, reply: FastifyReply, room: RoomInfo) {
    const activityId = ActivityIdParam.safeParse((request.params as { activityId?: unknown }).activityId);
    if (!activityId.success) return sendError(reply, ErrorCode.BAD_REQUEST, 'An activity id is a UUID.');
    return sendPdf(reply, `class-pack-${room.code}-${activityId.data.slice(0, 8)}.pdf`, () => classPackPdf(store, room, activityId.data));
  }

  app.get('/api/rooms/:code/export/lesson.pdf', async (request, reply) => {
    const room = (await taughtRoom(store, request, reply))?.room;
    return room ? sendPdf(reply, lessonFile(room), () => lessonPdf(store, room)) : reply;
  });
  app.get('/api/teacher/rooms/:code/export/lesson.pdf', async (request, reply) => {
    const room = await ownedRoom(request, reply);
    return room ? sendPdf(reply, lessonFile(room), () => lessonPdf(store, room)) : reply;
  });
  app.get('/api/rooms/:code/export/activities/:activityId/class-pack.pdf', async (request, reply) => {
    const room = (await taughtRoom(store, request, reply))?.room;
    return room ? sendClassPack(request, reply, room) : reply;
  });
  app.get('/api/teacher/rooms/:code/export/activities/:activityId/class-pack.pdf', async (request, reply) => {
    const room = await ownedRoom(request, reply);
    return room ? sendClassPack(request, reply, room) : reply;
  });
}
