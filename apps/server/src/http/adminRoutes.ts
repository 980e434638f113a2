import type { Store } from '@wb/db';
import {
  AdminTeacherList,
  ErrorCode,
  MAX_LISTED_TEACHERS,
  type PasswordResetLink,
  type TeacherAccount,
  type TeacherStatusReply,
} from '@wb/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { teacherFromCookie } from '../authz.ts';
import type { Config } from '../config.ts';
import { isAdmin } from '../signInPolicy.ts';
import { hashSecret, newSessionToken } from '../tokens.ts';
import { sendError } from './errors.ts';
import type { ProxyTrust } from './proxyTrust.ts';

/** A reset link works for a day: long enough to reach the teacher by another channel, then useless. */
export const PASSWORD_RESET_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The admin's routes (docs/protocol.md, "Admin"): accounts named in ADMIN_EMAILS list the
 * teachers, disable or enable one, and issue a one-time password-reset link. The check is the
 * server's, on every request; the page only hides what a non-admin cannot do.
 */
export function registerAdminRoutes(app: FastifyInstance, deps: { store: Store; config: Config; proxies: ProxyTrust }): void {
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
}
