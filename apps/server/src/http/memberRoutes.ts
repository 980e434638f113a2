import type { Store } from '@wb/db';
import { ErrorCode, RoomCode, UserId, parsePacket } from '@wb/protocol';
import type { FastifyInstance } from 'fastify';
import { actorFromBearer, mayTeach } from '../authz.ts';
import type { RoomPublisher } from '../realtime/roomPublisher.ts';
import { sendError } from './errors.ts';

/** Teacher actions on memberships beyond revocation (which lives with the lesson routes). */
export function registerMemberRoutes(app: FastifyInstance, deps: { store: Store; publisher: RoomPublisher }): void {
  const { store, publisher } = deps;

  app.post('/api/rooms/:code/members/:userId/restore', async (request, reply) => {
    const found = await actorFromBearer(store, request.headers.authorization);
    if (!found.ok) return sendError(reply, found.error.code, found.error.message);
    const params = request.params as { code?: unknown; userId?: unknown };
    const code = parsePacket(RoomCode, params.code);
    const room = code.ok ? await store.findRoomByCode(code.value) : null;
    if (!room) return sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'No lesson has this code.');
    const refused = mayTeach(found.actor, room.id);
    if (refused) return sendError(reply, refused.code, refused.message);
    const userId = parsePacket(UserId, params.userId);
    if (!userId.ok) return sendError(reply, ErrorCode.NOT_FOUND, 'No such member.');
    const restored = await store.restoreMember({ roomId: room.id, userId: userId.value, by: found.actor.userId });
    switch (restored.decision) {
      case 'not_a_member':
        return sendError(reply, ErrorCode.NOT_FOUND, 'No such member.');
      case 'not_revoked':
        return { ok: true, decision: restored.decision };
      case 'restored':
        publisher.publish(restored.events);
        return { ok: true, decision: restored.decision };
    }
  });
}
