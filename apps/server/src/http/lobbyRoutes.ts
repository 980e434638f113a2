import type { Store } from '@wb/db';
import { DenyMemberRequest, ErrorCode, RoomSettingsRequest, UserId, parsePacket, type AdmissionStatus } from '@wb/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { sessionFromBearer, type SessionResult } from '../authz.ts';
import type { LobbyWaiters } from '../realtime/lobbyWaiters.ts';
import type { RoomPublisher } from '../realtime/roomPublisher.ts';
import { sendError } from './errors.ts';
import { taughtRoom } from './teacherGuard.ts';

/** The longest a waiting page's admission request is held open, in ms (under common proxies' 30 s idle limit). */
export const MAX_ADMISSION_WAIT_MS = 25_000;

const AdmissionQuery = z.object({ waitMs: z.coerce.number().int().min(0).max(MAX_ADMISSION_WAIT_MS).default(0) });

/**
 * The lobby: the teacher's setting and decisions (through `taughtRoom`, like every teacher route),
 * and the one route a waiting student's session may call besides leaving: its admission.
 */
export function registerLobbyRoutes(
  app: FastifyInstance,
  deps: { store: Store; publisher: RoomPublisher; waiters: LobbyWaiters },
): void {
  const { store, publisher, waiters } = deps;
  const userIdOf = (params: unknown) => parsePacket(UserId, (params as { userId?: unknown }).userId);

  app.post('/api/rooms/:code/settings', async (request, reply) => {
    const taught = await taughtRoom(store, request, reply);
    if (!taught) return reply;
    const body = parsePacket(RoomSettingsRequest, request.body);
    if (!body.ok) return sendError(reply, body.error.code, body.error.message);
    const changed = await store.setRequireApproval({ roomId: taught.room.id, requireApproval: body.value.requireApproval });
    switch (changed.decision) {
      case 'not_found':
        return sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'No lesson has this code.');
      case 'archived':
        return sendError(reply, ErrorCode.ROOM_ARCHIVED, 'This lesson has been archived.');
      case 'unchanged':
        return { ok: true, decision: changed.decision, room: changed.room };
      case 'changed':
        publisher.publish(changed.events);
        return { ok: true, decision: changed.decision, room: changed.room };
    }
  });

  app.post('/api/rooms/:code/members/:userId/admit', async (request, reply) => {
    const taught = await taughtRoom(store, request, reply);
    if (!taught) return reply;
    const userId = userIdOf(request.params);
    if (!userId.ok) return sendError(reply, ErrorCode.NOT_FOUND, 'No such member.');
    const admitted = await store.admitMember({ roomId: taught.room.id, userId: userId.value, by: taught.actor.userId });
    switch (admitted.decision) {
      case 'not_a_member':
        return sendError(reply, ErrorCode.NOT_FOUND, 'No such member.');
      case 'not_waiting':
        return { ok: true, decision: admitted.decision };
      case 'admitted':
        publisher.publish(admitted.events);
        return { ok: true, decision: admitted.decision };
    }
  });

  app.post('/api/rooms/:code/members/:userId/deny', async (request, reply) => {
    const taught = await taughtRoom(store, request, reply);
    if (!taught) return reply;
    const userId = userIdOf(request.params);
    if (!userId.ok) return sendError(reply, ErrorCode.NOT_FOUND, 'No such member.');
    const body = parsePacket(DenyMemberRequest, request.body ?? {});
    if (!body.ok) return sendError(reply, body.error.code, body.error.message);
    const denied = await store.denyMember({
      roomId: taught.room.id,
      userId: userId.value,
      by: taught.actor.userId,
      reason: body.value.reason || null,
    });
    switch (denied.decision) {
      case 'not_a_member':
        return sendError(reply, ErrorCode.NOT_FOUND, 'No such member.');
      case 'not_waiting':
        return { ok: true, decision: denied.decision };
      case 'denied':
        publisher.publish(denied.events);
        return { ok: true, decision: denied.decision };
    }
  });

  app.post('/api/rooms/:code/lobby/admit-all', async (request, reply) => {
    const taught = await taughtRoom(store, request, reply);
    if (!taught) return reply;
    const all = await store.admitAllPending({ roomId: taught.room.id, by: taught.actor.userId });
    publisher.publish(all.events);
    return { ok: true, admitted: all.admitted };
  });

  /** The waiting page's question, "am I in yet?": held open up to `waitMs` while the answer is still "waiting". */
  app.get('/api/session/admission', async (request, reply) => {
    const query = parsePacket(AdmissionQuery, request.query ?? {});
    if (!query.ok) return sendError(reply, query.error.code, query.error.message);
    reply.header('cache-control', 'no-store');
    const answer = (found: SessionResult) => {
      if (found.ok) return { admission: found.admission } satisfies AdmissionStatus;
      // A denial is the answer to the question, not a failure of the request.
      if (found.error.code === ErrorCode.ADMISSION_DENIED) return { admission: 'denied' } satisfies AdmissionStatus;
      return sendError(reply, found.error.code, found.error.message);
    };
    const first = await sessionFromBearer(store, request.headers.authorization);
    if (!first.ok || first.admission !== 'pending' || query.value.waitMs === 0) return answer(first);
    const parked = waiters.wait(first.actor.roomId, first.actor.userId, query.value.waitMs);
    if (parked) await parked;
    return answer(await sessionFromBearer(store, request.headers.authorization));
  });
}
