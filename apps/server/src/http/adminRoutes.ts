import type { Store } from '@wb/db';
import {
  AdminTeacherList,
  DeleteAccountRequest,
  ErrorCode,
  parsePacket,
  type DeletionReply,
  MAX_LISTED_TEACHERS,
  type PasswordResetLink,
  type TeacherAccount,
  type TeacherStatusReply,
} from '@wb/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { exportAccount } from '../accountExport.ts';
import { teacherFromCookie } from '../authz.ts';
import type { Config } from '../config.ts';
import { isAdmin } from '../signInPolicy.ts';
import { hashSecret, newSessionToken } from '../tokens.ts';
import { sendError } from './errors.ts';
import type { ProxyTrust } from './proxyTrust.ts';
import type { RoomPublisher } from '../realtime/roomPublisher.ts';
import { disconnectLesson } from './teacherRoutes.ts';

/** Lesson sessions closed per disable (I10); a teacher has one per lesson she is in, rarely more than a few. */
const MAX_CLOSED_TEACHING_SESSIONS = 1_000;

/** Open lessons read per page when an account is deleted (I10: a bounded read, however many it owns). */
const ACCOUNT_LESSONS_PAGE = 100;

/** A reset link works for a day: long enough to reach the teacher by another channel, then useless. */
export const PASSWORD_RESET_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The admin's routes (docs/protocol.md, "Admin"): accounts named in ADMIN_EMAILS list the
 * teachers, disable or enable one, issue a one-time password-reset link, export an account's data
 * and delete an account with all its lessons. The check is the
 * server's, on every request; the page only hides what a non-admin cannot do.
 */
export function registerAdminRoutes(app: FastifyInstance, deps: { store: Store; config: Config; proxies: ProxyTrust; publisher: RoomPublisher }): void {
  const { store, config } = deps;

  /** The signed-in admin, or null after sending the refusal. */
  async function admin(request: FastifyRequest, reply: FastifyReply): Promise<TeacherAccount | null> {
    const found = await teacherFromCookie(store, request.headers.cookie);
    if (!found.ok) {
      sendError(reply, found.error.code, found.error.message);
      return null;
    }
    if (!isAdmin(config, found.teacher.email)) {
      sendError(reply, ErrorCode.FORBIDDEN, 'Only an administrator can do this.');
      return null;
    }
    reply.header('cache-control', 'no-store');
    return found.teacher;
  }

  const teacherIdOf = (request: FastifyRequest) => z.uuid().safeParse((request.params as { id?: unknown }).id);

  app.get('/api/admin/teachers', async (request, reply) => {
    if (!(await admin(request, reply))) return reply;
    const list: AdminTeacherList = { teachers: (await store.listTeachers(MAX_LISTED_TEACHERS)).map((t) => ({ ...t, admin: isAdmin(config, t.email) })) };
    return list;
  });

  for (const [action, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    app.post(`/api/admin/teachers/:id/${action}`, async (request, reply) => {
      const by = await admin(request, reply);
      if (!by) return reply;
      const id = teacherIdOf(request);
      if (!id.success) return sendError(reply, ErrorCode.NOT_FOUND, 'No teacher account has this id.');
      if (disabled && id.data === by.id) return sendError(reply, ErrorCode.FORBIDDEN, 'An administrator cannot disable their own account.');
      const changed = await store.setTeacherStatus({ teacherId: id.data, disabled });
      if (changed.decision === 'not_found') return sendError(reply, ErrorCode.NOT_FOUND, 'No teacher account has this id.');
      if (disabled) {
        // Her lessons' teacher sessions too (their bearer tokens): closed by the server, as on an
        // archive, so every socket of them is told and a live lesson does not go on under her.
        for (const sessionId of await store.openTeachingSessions(id.data, MAX_CLOSED_TEACHING_SESSIONS)) {
          const closed = await store.closeSession({ sessionId, reason: 'server', requestId: null });
          if (closed.decision === 'closed') deps.publisher.publish(closed.events);
        }
      }
      request.log.info({ admin: by.id, teacherId: id.data, decision: changed.decision }, `teacher account ${action}`);
      const answer: TeacherStatusReply = { ok: true, decision: changed.decision, closedSessions: 'closedSessions' in changed ? changed.closedSessions : 0 };
      return answer;
    });
  }

  app.post('/api/admin/teachers/:id/password-reset', async (request, reply) => {
    const by = await admin(request, reply);
    if (!by) return reply;
    const id = teacherIdOf(request);
    if (!id.success) return sendError(reply, ErrorCode.NOT_FOUND, 'No teacher account has this id.');
    const token = newSessionToken();
    const issued = await store.createPasswordReset({ teacherId: id.data, tokenHash: hashSecret(token), ttlMs: PASSWORD_RESET_TTL_MS });
    if (issued.decision === 'not_found') return sendError(reply, ErrorCode.NOT_FOUND, 'No teacher account has this id.');
    request.log.info({ admin: by.id, teacherId: id.data }, 'password reset link issued');
    const origin = config.PUBLIC_URL ?? deps.proxies.selfOrigin(request.raw) ?? '';
    // The token rides in the fragment: browsers never send it to a server or in a Referer.
    const link: PasswordResetLink = { url: `${origin}/teacher#reset=${token}`, expiresAt: issued.expiresAt.toISOString() };
    return link;
  });

  // One zip of everything the account holds (accountExport.ts).
  app.get('/api/admin/teachers/:id/export', async (request, reply) => {
    const by = await admin(request, reply);
    if (!by) return reply;
    const id = teacherIdOf(request);
    const [teacher] = id.success ? await store.listTeachers(1, id.data) : [];
    if (!teacher) return sendError(reply, ErrorCode.NOT_FOUND, 'No teacher account has this id.');
    const exportedAt = new Date();
    const archive = await exportAccount(store, { ...teacher, admin: isAdmin(config, teacher.email) }, exportedAt);
    request.log.info({ admin: by.id, teacherId: teacher.id, bytes: archive.byteLength }, 'account exported');
    return reply
      .type('application/zip')
      .header('content-disposition', `attachment; filename="account-${teacher.id}-${exportedAt.toISOString().slice(0, 10)}.zip"`)
      .send(Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength));
  });

  // Deletes an account and every lesson it owns, for good; the audit keeps ids and counts only.
  app.post('/api/admin/teachers/:id/delete', async (request, reply) => {
    const by = await admin(request, reply);
    if (!by) return reply;
    const id = teacherIdOf(request);
    const found = id.success ? await store.findTeacherById(id.data) : null;
    if (!found) return sendError(reply, ErrorCode.NOT_FOUND, 'No teacher account has this id.');
    const body = parsePacket(DeleteAccountRequest, request.body);
    if (!body.ok) return sendError(reply, body.error.code, body.error.message);
    if (body.value.confirmEmail !== found.email) return sendError(reply, ErrorCode.BAD_REQUEST, 'The email typed is not this account’s.');
    if (found.id === by.id) return sendError(reply, ErrorCode.FORBIDDEN, 'An administrator cannot delete their own account.');
    // Its open lessons first hear that they ended, as on an archive: every one of them, page by page.
    for (let afterId: string | null = null; ; ) {
      const page = await store.listOpenTeacherLessons(found.id, { afterId, limit: ACCOUNT_LESSONS_PAGE });
      for (const lesson of page) await disconnectLesson(store, deps.publisher, found.id, lesson.code);
      if (page.length < ACCOUNT_LESSONS_PAGE) break;
      afterId = page.at(-1)!.id;
    }
    const deleted = await store.deleteTeacherAccount({ teacherId: found.id, reason: 'account deleted by an administrator' });
    if (!deleted) return sendError(reply, ErrorCode.NOT_FOUND, 'No teacher account has this id.');
    request.log.info({ admin: by.id, teacherId: found.id, lessons: deleted.lessons, auditId: deleted.auditId }, 'teacher account deleted');
    const answer: DeletionReply = { ok: true, decision: 'deleted', lessons: deleted.lessons };
    return answer;
  });
}
