import { randomUUID } from 'node:crypto';
import type { Store } from '@wb/db';
import {
  CreateRoomRequest,
  ErrorCode,
  JoinRoomRequest,
  RoomCode,
  SignOutRequest,
  UserId,
  parsePacket,
  refusalText,
  type SessionGrant,
} from '@wb/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { sessionFromBearer, teacherFromCookie } from '../authz.ts';
import type { Config } from '../config.ts';
import type { RoomPublisher } from '../realtime/roomPublisher.ts';
import { hashSecret, newRoomCode, newSessionToken } from '../tokens.ts';
import { sendError } from './errors.ts';
import { HTTP_LIMITS, type LimitCheck, type RateLimiter } from './rateLimits.ts';
import { taughtRoom } from './teacherGuard.ts';

const RevokeRequest = z.strictObject({ reason: z.string().trim().max(200).optional() });

/** The JSON API under /api. Every route and error is documented in docs/protocol.md. */
export function registerRoutes(
  app: FastifyInstance,
  deps: { store: Store; config: Config; publisher: RoomPublisher; limits: RateLimiter },
): void {
  const { store, config, limits } = deps;

  async function grantSession(
    room: SessionGrant['room'],
    member: { userId: string; role: SessionGrant['role']; displayName: string },
    admission: SessionGrant['admission'] = 'admitted',
  ): Promise<SessionGrant> {
    const token = newSessionToken();
    const session = await store.openSession({
      id: randomUUID(),
      roomId: room.id,
      userId: member.userId,
      tokenHash: hashSecret(token),
      ttlMs: config.SESSION_TTL_MS,
    });
    return { token, sessionId: session.id, userId: member.userId, role: member.role, displayName: member.displayName, room, admission };
  }

  const roomCodeOf = (params: unknown) => parsePacket(RoomCode, (params as { code?: unknown }).code);

  app.post('/api/rooms', async (request, reply) => {
    if (!(await limits.allow(reply, [[HTTP_LIMITS.roomsPerAddress, request.ip]]))) return reply;
    const body = parsePacket(CreateRoomRequest, request.body);
    if (!body.ok) return sendError(reply, body.error.code, body.error.message);
    // Signed in: the room belongs to the account. Not signed in (or the cookie expired): the room
    // still starts, without an owner, as for a teacher trying the app on a laptop.
    const account = await teacherFromCookie(store, request.headers.cookie);
    if (account.ok && !(await limits.allow(reply, [[HTTP_LIMITS.roomsPerTeacher, account.teacher.id]]))) return reply;
    // Teach again: the source must be one of this account's lessons.
    let copyPagesFrom: string | undefined;
    if (body.value.teachAgainFrom !== undefined) {
      const source = account.ok ? await store.findTeacherRoom(account.teacher.id, body.value.teachAgainFrom) : null;
      if (!source) return sendError(reply, ErrorCode.NOT_FOUND, 'None of your lessons has this code.');
      copyPagesFrom = source.id;
    }
    for (let attempt = 0; attempt < 5; attempt++) {
      const created = await store.createRoom({
        ...(copyPagesFrom !== undefined ? { copyPagesFrom } : {}),
        prepared: body.value.prepare === true || copyPagesFrom !== undefined,
        teacherId: account.ok ? account.teacher.id : null,
        code: newRoomCode(),
        title: body.value.title ?? `${body.value.teacherName}'s lesson`,
        teacherName: body.value.teacherName,
        memberKeyHash: hashSecret(body.value.memberKey),
        requireApproval: body.value.requireApproval ?? false,
        ...(body.value.settings ? { settings: body.value.settings } : {}),
      });
      if (created.decision === 'code_taken') continue;
      if (created.decision === 'no_source') return sendError(reply, ErrorCode.NOT_FOUND, 'None of your lessons has this code.');
      deps.publisher.publish(created.events);
      return reply.code(201).send(await grantSession(created.room, created.member));
    }
    return sendError(reply, ErrorCode.UNAVAILABLE, 'Could not find a free room code; try again.');
  });

  app.get('/api/rooms/:code', async (request, reply) => {
    const code = roomCodeOf(request.params);
    if (!code.ok) return sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'No lesson has this code.');
    const room = await store.findRoomByCode(code.value);
    if (!room) return sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'No lesson has this code.');
    return room;
  });

  app.post('/api/rooms/:code/join', async (request, reply) => {
    const code = roomCodeOf(request.params);
    const checks: LimitCheck[] = [
      [HTTP_LIMITS.joinsPerAddressMinute, request.ip],
      [HTTP_LIMITS.joinsPerAddressHour, request.ip],
    ];
    // Per lesson by its code, before the database is asked whether the lesson exists.
    if (code.ok) checks.push([HTTP_LIMITS.joinsPerLessonMinute, code.value], [HTTP_LIMITS.joinsPerLessonHour, code.value]);
    if (!(await limits.allow(reply, checks))) return reply;
    if (!code.ok) return sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'No lesson has this code.');
    const body = parsePacket(JoinRoomRequest, request.body);
    if (!body.ok) return sendError(reply, body.error.code, body.error.message);
    const room = await store.findRoomByCode(code.value);
    if (!room) return sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'No lesson has this code.');
    const joined = await store.joinRoom({
      roomId: room.id,
      displayName: body.value.displayName,
      memberKeyHash: hashSecret(body.value.memberKey),
      role: 'student',
    });
    switch (joined.decision) {
      case 'no_room':
        return sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'No lesson has this code.');
      case 'archived':
        return sendError(reply, ErrorCode.ROOM_ARCHIVED, 'This lesson has been archived.');
      case 'ended':
        return sendError(reply, ErrorCode.LESSON_ENDED, 'The lesson has ended. Ask your teacher to reopen it.');
      case 'revoked':
        return sendError(reply, ErrorCode.MEMBERSHIP_REVOKED, 'The teacher removed you from this lesson.');
      case 'denied':
        return sendError(reply, ErrorCode.ADMISSION_DENIED, 'The teacher declined your request to join this lesson.');
      case 'name_reserved':
        return sendError(reply, ErrorCode.NAME_RESERVED, refusalText[ErrorCode.NAME_RESERVED]);
      case 'not_started':
        // A prepared lesson: the student's page waits ("not started yet") and joins again.
        return sendError(reply, ErrorCode.LESSON_NOT_STARTED, refusalText[ErrorCode.LESSON_NOT_STARTED]);
      case 'pending':
        // A session for the lobby: it may wait on its admission or leave, and nothing else.
        deps.publisher.publish(joined.events);
        return grantSession(room, joined.member, 'pending');
      case 'joined':
      case 'returned':
        deps.publisher.publish(joined.events);
        return grantSession(room, joined.member);
    }
  });

  app.post('/api/session/sign-out', async (request, reply) => {
    const body = parsePacket(SignOutRequest, request.body ?? {});
    if (!body.ok) return sendError(reply, body.error.code, body.error.message);
    const found = await sessionFromBearer(store, request.headers.authorization);
    if (!found.ok) {
      // Signing out twice is not an error: the session is over either way.
      if (found.error.code === ErrorCode.SESSION_CLOSED) return { ok: true };
      return sendError(reply, found.error.code, found.error.message);
    }
    if (found.admission === 'pending') {
      // Leaving the lobby withdraws the request; admitted meanwhile, it is an ordinary sign-out.
      const withdrawn = await store.withdrawFromLobby(found.actor.sessionId);
      if (withdrawn.decision === 'withdrawn') {
        deps.publisher.publish(withdrawn.events);
        return { ok: true };
      }
    }
    const closed = await store.closeSession({ sessionId: found.actor.sessionId, reason: 'signed_out', requestId: request.id });
    if (closed.decision === 'closed') deps.publisher.publish(closed.events);
    return { ok: true };
  });

  app.post('/api/rooms/:code/members/:userId/revoke', async (request, reply) => {
    const taught = await taughtRoom(store, request, reply);
    if (!taught) return reply;
    const { room, actor } = taught;
    const userId = parsePacket(UserId, (request.params as { userId?: unknown }).userId);
    if (!userId.ok) return sendError(reply, ErrorCode.NOT_FOUND, 'No such member.');
    const body = parsePacket(RevokeRequest, request.body ?? {});
    if (!body.ok) return sendError(reply, body.error.code, body.error.message);
    const revoked = await store.revokeMember({
      roomId: room.id,
      userId: userId.value,
      by: actor.userId,
      reason: body.value.reason ?? null,
      requestId: request.id,
    });
    switch (revoked.decision) {
      case 'not_a_member':
        return sendError(reply, ErrorCode.NOT_FOUND, 'No such member.');
      case 'cannot_revoke_teacher':
        return sendError(reply, ErrorCode.FORBIDDEN, 'A teacher cannot be removed.');
      case 'not_admitted':
        return sendError(reply, ErrorCode.CONFLICT, 'This student is waiting in the lobby or was declined: admit or deny them.');
      case 'already_revoked':
        return { ok: true, decision: revoked.decision };
      case 'revoked':
        deps.publisher.publish(revoked.events);
        return { ok: true, decision: revoked.decision };
    }
  });

  app.get('/api/rooms/:code/attendance', async (request, reply) => {
    const taught = await taughtRoom(store, request, reply);
    if (!taught) return reply;
    const { room } = taught;
    const facts = await store.listAttendance(room.id);
    return {
      room,
      facts: facts.map((f) => ({
        eventId: f.eventId,
        userId: f.userId,
        sessionId: f.sessionId,
        kind: f.kind,
        at: f.at.toISOString(),
      })),
    };
  });
}
