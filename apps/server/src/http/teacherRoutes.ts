import { randomUUID } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import type { Store } from '@wb/db';
import {
  DeleteLessonRequest,
  ErrorCode,
  PasswordResetRequest,
  RenameRoomRequest,
  RoomCode,
  SignInRequest,
  SignOutRequest,
  SignUpRequest,
  parsePacket,
  type DeletionReply,
  type LessonBoards,
  type LessonThumbnail,
  type RoomChangeReply,
  type SessionGrant,
  type TeacherAccount,
  type TeacherRoomList,
} from '@wb/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { teacherFromCookie, type TeacherResult } from '../authz.ts';
import type { Config } from '../config.ts';
import type { RoomPublisher } from '../realtime/roomPublisher.ts';
import { isAdmin, mayMakeAccount } from '../signInPolicy.ts';
import { newSessionToken, hashSecret } from '../tokens.ts';
import { sendError } from './errors.ts';
import { HTTP_LIMITS, accountKey, type RateLimiter } from './rateLimits.ts';
import { TEACHER_SESSION_TTL_MS, setTeacherCookie, teacherTokenFrom } from './teacherCookie.ts';

/**
 * Teacher accounts (docs/protocol.md, "Teacher accounts"): sign-up, sign-in, sign-out, and the
 * teacher's rooms. Passwords are hashed with argon2id (@node-rs/argon2's defaults: 19 MiB,
 * 2 passes, OWASP's recommendation); a session is an httpOnly cookie.
 */
export function registerTeacherRoutes(
  app: FastifyInstance,
  deps: { store: Store; publisher: RoomPublisher; config: Config; limits: RateLimiter },
): void {
  const { store, publisher, limits } = deps;
  // Verified against when the email is unknown, so a wrong address costs as long as a wrong
  // password and the timing does not tell which addresses have accounts.
  const decoyHash = hash('decoy password, never anyone’s');

  async function signIn(request: FastifyRequest, reply: FastifyReply, teacher: TeacherAccount): Promise<TeacherAccount> {
    await openSignedInSession(store, request, reply, teacher);
    return { ...teacher, admin: isAdmin(deps.config, teacher.email) };
  }

  /** The signed-in teacher, or null after sending the refusal. */
  async function signedIn(request: FastifyRequest, reply: FastifyReply): Promise<Extract<TeacherResult, { ok: true }> | null> {
    const found = await teacherFromCookie(store, request.headers.cookie);
    if (found.ok) return found;
    sendError(reply, found.error.code, found.error.message);
    return null;
  }

  const roomCodeOf = (request: FastifyRequest) => parsePacket(RoomCode, (request.params as { code?: unknown }).code);

  app.post('/api/teacher/sign-up', async (request, reply) => {
    if (!(await limits.allow(reply, [[HTTP_LIMITS.signUpPerAddress, request.ip]]))) return reply;
    const body = parsePacket(SignUpRequest, request.body);
    if (!body.ok) return sendError(reply, body.error.code, body.error.message);
    if (!mayMakeAccount(deps.config, body.value.email)) {
      return sendError(reply, ErrorCode.SIGN_UP_CLOSED, 'New accounts cannot be made here with this address. Ask your school’s administrator.');
    }
    const passwordHash = await limits.withPasswordHash(reply, () => hash(body.value.password));
    if (passwordHash === null) return reply;
    const created = await store.createTeacher({
      email: body.value.email,
      passwordHash,
      displayName: body.value.displayName,
    });
    if (created.decision === 'email_taken') {
      return sendError(reply, ErrorCode.CONFLICT, 'An account with this email already exists. Sign in instead.');
    }
    return reply.code(201).send(await signIn(request, reply, created.teacher));
  });

  // Both limits are counted before the store is asked or a hash is checked: a refusal is cheap.
  app.post('/api/teacher/sign-in', async (request, reply) => {
    if (!(await limits.allow(reply, [[HTTP_LIMITS.signInPerAddress, request.ip]]))) return reply;
    const body = parsePacket(SignInRequest, request.body);
    if (!body.ok) return sendError(reply, body.error.code, body.error.message);
    if (!(await limits.allow(reply, [[HTTP_LIMITS.signInPerAccount, accountKey(body.value.email)]]))) return reply;
    const found = await store.findTeacherCredentials(body.value.email);
    const decoy = await decoyHash;
    // An account made by a provider has no password: verified against the decoy, so it costs the same.
    const matches = await limits.withPasswordHash(reply, () => verify(found?.passwordHash ?? decoy, body.value.password).catch(() => false));
    if (matches === null) return reply;
    if (!found || !matches || found.passwordHash === null) return sendError(reply, ErrorCode.NOT_AUTHENTICATED, 'That email and password do not match an account.');
    if (found.disabled) return sendError(reply, ErrorCode.ACCOUNT_DISABLED, 'This account has been disabled. Ask your school’s administrator.');
    return signIn(request, reply, found.teacher);
  });

  // An admin's one-time link (adminRoutes.ts): a new password, and the teacher is signed in.
  app.post('/api/teacher/password-reset', async (request, reply) => {
    if (!(await limits.allow(reply, [[HTTP_LIMITS.signInPerAddress, request.ip]]))) return reply;
    const body = parsePacket(PasswordResetRequest, request.body);
    if (!body.ok) return sendError(reply, body.error.code, body.error.message);
    const passwordHash = await limits.withPasswordHash(reply, () => hash(body.value.password));
    if (passwordHash === null) return reply;
    const reset = await store.consumePasswordReset({ tokenHash: hashSecret(body.value.token), passwordHash });
    if (reset.decision === 'invalid') return sendError(reply, ErrorCode.RESET_LINK_INVALID, 'This reset link has been used or has expired. Ask your administrator for a new one.');
    if (reset.decision === 'disabled') return sendError(reply, ErrorCode.ACCOUNT_DISABLED, 'This account has been disabled. Ask your school’s administrator.');
    return signIn(request, reply, reset.teacher);
  });

  app.post('/api/teacher/sign-out', async (request, reply) => {
    const body = parsePacket(SignOutRequest, request.body ?? {});
    if (!body.ok) return sendError(reply, body.error.code, body.error.message);
    const token = teacherTokenFrom(request.headers.cookie);
    if (token) await store.closeTeacherSession(hashSecret(token));
    setTeacherCookie(request, reply, null);
    return { ok: true };
  });

  app.get('/api/teacher/me', async (request, reply) => {
    const found = await signedIn(request, reply);
    if (!found) return reply;
    reply.header('cache-control', 'no-store');
    const me: TeacherAccount = { ...found.teacher, admin: isAdmin(deps.config, found.teacher.email) };
    return me;
  });

  app.get('/api/teacher/rooms', async (request, reply) => {
    const found = await signedIn(request, reply);
    if (!found) return reply;
    const list: TeacherRoomList = { rooms: await store.listTeacherRooms(found.teacher.id) };
    return reply.header('cache-control', 'no-store').send(list);
  });

  // The boards kept with a lesson (docs/boards.md): its activities and every student's board.
  app.get('/api/teacher/rooms/:code/boards', async (request, reply) => {
    const found = await signedIn(request, reply);
    if (!found) return reply;
    const code = roomCodeOf(request);
    const room = code.ok ? await store.findTeacherRoom(found.teacher.id, code.value) : null;
    if (!room) return sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'You have no lesson with this code.');
    const boards: LessonBoards = await store.listLessonBoards(room.id);
    return reply.header('cache-control', 'no-store').send(boards);
  });

  // The library's thumbnail (issue 39): the lesson's first page and its first elements.
  app.get('/api/teacher/rooms/:code/thumbnail', async (request, reply) => {
    const found = await signedIn(request, reply);
    if (!found) return reply;
    const code = roomCodeOf(request);
    const room = code.ok ? await store.findTeacherRoom(found.teacher.id, code.value) : null;
    if (!room) return sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'You have no lesson with this code.');
    const thumbnail: LessonThumbnail | null = await store.lessonThumbnail(room.id);
    if (!thumbnail) return sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'You have no lesson with this code.');
    return reply.header('cache-control', 'no-store').send(thumbnail);
  });

  app.post('/api/teacher/rooms/:code/enter', async (request, reply) => {
    const found = await signedIn(request, reply);
    if (!found) return reply;
    const code = roomCodeOf(request);
    const room = code.ok ? await store.findTeacherRoom(found.teacher.id, code.value) : null;
    if (!room) return sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'You have no lesson with this code.');
    if (room.status !== 'open') return sendError(reply, ErrorCode.ROOM_ARCHIVED, 'This lesson has been archived.');
    const member = await store.roomTeacherMember(room.id);
    if (!member) return sendError(reply, ErrorCode.NOT_FOUND, 'This lesson has no teacher membership.');
    const token = newSessionToken();
    const session = await store.openSession({
      id: randomUUID(),
      roomId: room.id,
      userId: member.userId,
      tokenHash: hashSecret(token),
      ttlMs: deps.config.SESSION_TTL_MS,
    });
    const grant: SessionGrant = { token, sessionId: session.id, userId: member.userId, role: 'teacher', displayName: member.displayName, room, admission: 'admitted' };
    return reply.header('cache-control', 'no-store').send(grant);
  });

  app.post('/api/teacher/rooms/:code/rename', async (request, reply) => {
    const found = await signedIn(request, reply);
    if (!found) return reply;
    const code = roomCodeOf(request);
    if (!code.ok) return sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'You have no lesson with this code.');
    const body = parsePacket(RenameRoomRequest, request.body);
    if (!body.ok) return sendError(reply, body.error.code, body.error.message);
    const renamed = await store.renameRoom({ teacherId: found.teacher.id, code: code.value, title: body.value.title });
    if (renamed.decision === 'not_found') return sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'You have no lesson with this code.');
    if (renamed.decision === 'renamed') publisher.publish(renamed.events);
    const answer: RoomChangeReply = { ok: true, decision: renamed.decision, room: renamed.room };
    return answer;
  });

  // Deletes one of the account's lessons for good (docs/privacy.md). An open lesson is archived
  // first, so everyone in it is told and disconnected before its rows go.
  app.post('/api/teacher/rooms/:code/delete', async (request, reply) => {
    const found = await signedIn(request, reply);
    if (!found) return reply;
    const body = parsePacket(DeleteLessonRequest, request.body ?? {});
    if (!body.ok) return sendError(reply, body.error.code, body.error.message);
    const code = roomCodeOf(request);
    const room = code.ok ? await store.findTeacherRoom(found.teacher.id, code.value) : null;
    if (!room) return sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'You have no lesson with this code.');
    await disconnectLesson(store, publisher, found.teacher.id, room.code);
    const purged = await store.purgeLesson({
      roomId: room.id,
      reason: 'deleted by its teacher',
      requestedBy: 'teacher',
      teacherId: found.teacher.id,
      unusedSince: null,
      wait: true,
    });
    // Another request deleted it meanwhile: it is gone either way, and that one left the fact.
    if (!purged) return sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'You have no lesson with this code.');
    request.log.info({ teacherId: found.teacher.id, roomId: room.id, auditId: purged.auditId }, 'lesson deleted by its teacher');
    const answer: DeletionReply = { ok: true, decision: 'deleted', lessons: 1 };
    return answer;
  });

  app.post('/api/teacher/rooms/:code/archive', async (request, reply) => {
    const found = await signedIn(request, reply);
    if (!found) return reply;
    const code = roomCodeOf(request);
    if (!code.ok) return sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'You have no lesson with this code.');
    const archived = await store.archiveRoom({ teacherId: found.teacher.id, code: code.value });
    if (archived.decision === 'not_found') return sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'You have no lesson with this code.');
    if (archived.decision === 'archived') publisher.publish(archived.events);
    const answer: RoomChangeReply = { ok: true, decision: archived.decision, room: archived.room };
    return answer;
  });
}

/** Opens a teacher session and sets its cookie: after a password, a reset link or an OpenID provider. */
export async function openSignedInSession(store: Store, request: FastifyRequest, reply: FastifyReply, teacher: TeacherAccount): Promise<void> {
  const token = newSessionToken();
  await store.openTeacherSession({ teacherId: teacher.id, tokenHash: hashSecret(token), ttlMs: TEACHER_SESSION_TTL_MS });
  setTeacherCookie(request, reply, token);
  reply.header('cache-control', 'no-store');
}

/** Archives an open lesson (everyone in it hears the end and is disconnected); ended and archived ones are left as they are. */
export async function disconnectLesson(store: Store, publisher: RoomPublisher, teacherId: string, code: string): Promise<void> {
  const archived = await store.archiveRoom({ teacherId, code });
  if (archived.decision === 'archived') publisher.publish(archived.events);
}
