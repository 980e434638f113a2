import type { Store } from '@wb/db';
import { ErrorCode, RoomCode, parsePacket, type RoomInfo } from '@wb/protocol';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { actorFromBearer, mayTeach, type Actor } from '../authz.ts';
import { sendError } from './errors.ts';

/**
 * The room named by `:code` and the acting session, if that session teaches the room (bearer
 * token). Otherwise the refusal has been sent and the answer is null: the route just returns.
 */
export async function taughtRoom(
  store: Store,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<{ room: RoomInfo; actor: Actor } | null> {
  const found = await actorFromBearer(store, request.headers.authorization);
  if (!found.ok) {
    sendError(reply, found.error.code, found.error.message);
    return null;
  }
  const code = parsePacket(RoomCode, (request.params as { code?: unknown }).code);
  const room = code.ok ? await store.findRoomByCode(code.value) : null;
  if (!room) {
    sendError(reply, ErrorCode.ROOM_NOT_FOUND, 'No lesson has this code.');
    return null;
  }
  const refused = mayTeach(found.actor, room.id);
  if (refused) {
    sendError(reply, refused.code, refused.message);
    return null;
  }
  return { room, actor: found.actor };
}
