import type { Store } from '@wb/db';
import { ErrorCode, UserId, parsePacket } from '@wb/protocol';
import type { FastifyInstance } from 'fastify';
import type { RoomPublisher } from '../realtime/roomPublisher.ts';
import { sendError } from './errors.ts';
import { taughtRoom } from './teacherGuard.ts';

/** Teacher actions on memberships beyond revocation (which lives with the lesson routes). */
export function registerMemberRoutes(app: FastifyInstance, deps: { store: Store; publisher: RoomPublisher }): void {
  const { store, publisher } = deps;

  app.post('/api/rooms/:code/members/:userId/restore', async (request, reply) => {
    const taught = await taughtRoom(store, request, reply);
    if (!taught) return reply;
    const { room, actor } = taught;
    const userId = parsePacket(UserId, (request.params as { userId?: unknown }).userId);
    if (!userId.ok) return sendError(reply, ErrorCode.NOT_FOUND, 'No such member.');
    const restored = await store.restoreMember({ roomId: room.id, userId: userId.value, by: actor.userId });
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
