import type { FastifyReply, FastifyRequest } from 'fastify';

/** The signed-in teacher's session cookie. Its value is a 256-bit token; the store keeps its hash. */
export const TEACHER_COOKIE = 'wb_teacher';

/** A school day and then some: a teacher signs in in the morning and is not asked again that day. */
export const TEACHER_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** The cookie's token from a `Cookie` header, or null. Only the one cookie is read. */
export function teacherTokenFrom(cookieHeader: string | undefined): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === TEACHER_COOKIE) {
      const token = value.join('=');
      return /^[A-Za-z0-9_-]{20,200}$/.test(token) ? token : null;
    }
  }
  return null;
}

/**
 * Sets (or with `token` null, clears) the cookie. HttpOnly: page scripts never see it.
 * SameSite=Lax: another site's form posts do not carry it (the origin check refuses them too).
 * Secure whenever the request came over https (directly or through a proxy that says so), so a
 * laptop on plain http still works.
 */
export function setTeacherCookie(request: FastifyRequest, reply: FastifyReply, token: string | null): void {
  const attributes = [
    `${TEACHER_COOKIE}=${token ?? ''}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${token ? Math.floor(TEACHER_SESSION_TTL_MS / 1000) : 0}`,
  ];
  if (request.protocol === 'https') attributes.push('Secure');
  reply.header('set-cookie', attributes.join('; '));
}
