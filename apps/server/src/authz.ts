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
  denied: { code: ErrorCode.ADMISSION_DENIED, message: 'The teacher declined your request to join this lesson.' },
  archived: { code: ErrorCode.ROOM_ARCHIVED, message: 'This lesson has been archived.' },
  ended: { code: ErrorCode.LESSON_ENDED, message: 'The lesson has ended.' },
  pending: { code: ErrorCode.AWAITING_APPROVAL, message: 'Waiting for the teacher to let you in.' },
} as const;

/** Why a session's token is refused, by the store's decision: shared by HTTP and the socket handshake. */
export const sessionRefusals: Readonly<Record<keyof typeof refusals, ProtocolError>> = refusals;

/**
 * The refusal for a session the store would not authenticate. A removed member hears the teacher's
 * reason on every later attempt too (a reload), as on the live socket (`roomPublisher.ts`).
 */
export function sessionRefusal(found: { decision: keyof typeof refusals; reason?: string | null }): ProtocolError {
  if (found.decision === 'revoked' && found.reason) {
    return { code: ErrorCode.MEMBERSHIP_REVOKED, message: `${refusals.revoked.message} Reason: ${found.reason}` };
  }
  return refusals[found.decision];
}

export type SessionResult =
  | { ok: true; admission: 'admitted' | 'pending'; actor: Actor }
  | { ok: false; error: ProtocolError };

/**
 * Resolves `Authorization: Bearer <token>` to its session whether admitted or waiting in the
 * lobby. Only the lobby's own routes (admission, leaving) may act for a waiting session.
 */
export async function sessionFromBearer(store: Store, authorization: string | undefined): Promise<SessionResult> {
  const token = /^Bearer ([A-Za-z0-9_-]{20,200})$/.exec(authorization ?? '')?.[1];
  if (!token) return { ok: false, error: refusals.unknown };
  const found = await store.authenticateSession(hashSecret(token));
  if (found.decision !== 'ok' && found.decision !== 'pending') return { ok: false, error: sessionRefusal(found) };
  return {
    ok: true,
    admission: found.decision === 'ok' ? 'admitted' : 'pending',
    actor: {
      sessionId: found.session.id,
      userId: found.member.userId,
      roomId: found.room.id,
      role: found.member.role,
      displayName: found.member.displayName,
    },
  };
}

/** Resolves `Authorization: Bearer <token>` to the acting session, or says why it cannot. A waiting member cannot act. */
export async function actorFromBearer(store: Store, authorization: string | undefined): Promise<ActorResult> {
  const found = await sessionFromBearer(store, authorization);
  if (!found.ok) return found;
  if (found.admission === 'pending') return { ok: false, error: refusals.pending };
  return { ok: true, actor: found.actor };
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
  disabled: { code: ErrorCode.ACCOUNT_DISABLED, message: 'This account has been disabled. Ask your school’s administrator.' },
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
