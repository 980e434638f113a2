/**
 * Authorization in one place: who is acting, and may they do this here. Every state-changing HTTP
 * route and socket handler goes through these checks; the store re-checks membership inside the
 * same conditional write, so a revocation that commits first always wins.
 */
import type { Store } from '@wb/db';
import { ErrorCode, type ProtocolError, type Role, type TeacherAccount } from '@wb/protocol';
import { teacherTokenFrom } from './http/teacherCookie.ts';
import { hashSecret } from './tokens.ts';

export interface Actor {
  sessionId: string;
  userId: string;
  roomId: string;
  role: Role;
  displayName: string;
}

export type ActorResult = { ok: true; actor: Actor } | { ok: false; error: ProtocolError };

const refusals = {
  unknown: { code: ErrorCode.NOT_AUTHENTICATED, message: 'Sign in or join the lesson first.' },
  closed: { code: ErrorCode.SESSION_CLOSED, message: 'This session has ended.' },
  expired: { code: ErrorCode.TOKEN_EXPIRED, message: 'This session has expired. Join the lesson again.' },
  revoked: { code: ErrorCode.MEMBERSHIP_REVOKED, message: 'The teacher removed you from this lesson.' },
  archived: { code: ErrorCode.ROOM_ARCHIVED, message: 'This lesson has been archived.' },
} as const;

/** Resolves `Authorization: Bearer <token>` to the acting session, or says why it cannot. */
export async function actorFromBearer(store: Store, authorization: string | undefined): Promise<ActorResult> {
  const token = /^Bearer ([A-Za-z0-9_-]{20,200})$/.exec(authorization ?? '')?.[1];
  if (!token) return { ok: false, error: refusals.unknown };
  const found = await store.authenticateSession(hashSecret(token));
  if (found.decision !== 'ok') return { ok: false, error: refusals[found.decision] };
  return {
    ok: true,
    actor: {
      sessionId: found.session.id,
      userId: found.member.userId,
      roomId: found.room.id,
      role: found.member.role,
      displayName: found.member.displayName,
    },
  };
}

/** Teacher actions: only a teacher of this very room. */
export function mayTeach(actor: Actor, roomId: string): ProtocolError | null {
  if (actor.roomId !== roomId) return { code: ErrorCode.FORBIDDEN, message: 'This session belongs to another room.' };
  if (actor.role !== 'teacher') return { code: ErrorCode.FORBIDDEN, message: 'Only the teacher can do this.' };
  return null;
}

export type TeacherResult = { ok: true; teacher: TeacherAccount; tokenHash: string } | { ok: false; error: ProtocolError };

const teacherRefusals = {
  unknown: { code: ErrorCode.NOT_AUTHENTICATED, message: 'Sign in to your teacher account first.' },
  closed: { code: ErrorCode.SESSION_CLOSED, message: 'You signed out. Sign in again.' },
  expired: { code: ErrorCode.TOKEN_EXPIRED, message: 'Your sign-in has expired. Sign in again.' },
} as const;

/** Resolves the teacher-account cookie to the signed-in teacher, or says why it cannot. */
export async function teacherFromCookie(store: Store, cookieHeader: string | undefined): Promise<TeacherResult> {
  const token = teacherTokenFrom(cookieHeader);
  if (!token) return { ok: false, error: teacherRefusals.unknown };
  const tokenHash = hashSecret(token);
  const found = await store.authenticateTeacherSession(tokenHash);
  if (found.decision !== 'ok') return { ok: false, error: teacherRefusals[found.decision] };
  return { ok: true, teacher: found.teacher, tokenHash };
}
