import type { Store } from '@wb/db';
import { ErrorCode, RoomCode, attendanceCsv, parsePacket, pollsCsv, type RoomInfo } from '@wb/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { teacherFromCookie } from '../authz.ts';
import { sendError } from './errors.ts';
import { taughtRoom } from './teacherGuard.ts';

/**
 * The teacher's attendance report, as JSON for the page and as CSV for a school's scripts.
 * Both are computed from the append-only attendance facts only (docs/protocol.md). Two ways in:
 * a teacher's room session (bearer token; only while the room is open) and the teacher account
 * that owns the room (cookie; also for archived, past lessons).
 */
export function registerAttendanceRoutes(app: FastifyInstance, deps: { store: Store }): void {
  const { store } = deps;

  /** The room named by `:code`, if the signed-in account owns it; otherwise the refusal is sent. */
  async function ownedRoom(request: FastifyRequest, reply: FastifyReply): Promise<RoomInfo | null> {
    const found = await teacherFromCookie(store, request.headers.cookie);
    if (!found.ok) {
      sendError(reply, found.error.code, found.error.message);
      return null;
    }
    const code = parsePacket(RoomCode, (request.params as { code?: unknown }).code);
    // Another account's room is reported as missing: its existence is not this account's business.
    const room = code.ok ? await store.findTeacherRoom(found.teacher.id, code.value) : null;
    if (!room) sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'You have no lesson with this code.');
    return room;
  }

  async function sendReport(reply: FastifyReply, room: RoomInfo, format: 'json' | 'csv' | 'polls') {
    const attendance = await store.loadAttendanceReport(room.id);
    if (!attendance) return sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'No lesson has this code.');
    // The lesson's polls and who answered what (the teacher's own record of the lesson).
    const report = { ...attendance, polls: await store.listLessonPolls(room.id) };
    if (format === 'json') return reply.header('cache-control', 'no-store').send(report);
    const day = report.generatedAt.slice(0, 10);
    const [name, body] = format === 'csv' ? ['attendance', attendanceCsv(report)] : ['polls', pollsCsv(report)];
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${name}-${room.code}-${day}.csv"`)
      .header('cache-control', 'no-store')
      .send(body);
  }

  for (const [suffix, format] of [['report', 'json'], ['report.csv', 'csv'], ['polls.csv', 'polls']] as const) {
    app.get(`/api/rooms/:code/attendance/${suffix}`, async (request, reply) => {
      const room = (await taughtRoom(store, request, reply))?.room ?? null;
      return room ? sendReport(reply, room, format) : reply;
    });
    app.get(`/api/teacher/rooms/:code/attendance/${suffix}`, async (request, reply) => {
      const room = await ownedRoom(request, reply);
      return room ? sendReport(reply, room, format) : reply;
    });
  }
}
