import type { Store } from '@wb/db';
import { ErrorCode, HandshakeAuth, PROTOCOL_VERSION, parsePacket, type ProtocolError } from '@wb/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { sessionRefusal } from '../authz.ts';
import type { OriginPolicy } from '../http/origin.ts';
import type { ProxyTrust } from '../http/proxyTrust.ts';
import { hashSecret } from '../tokens.ts';
import type { WbSocket } from './types.ts';

/** A refused handshake: Socket.IO hands `data` to the client's `connect_error`. */
const refused = (error: ProtocolError) => Object.assign(new Error(error.message), { data: error });

/**
 * The handshake middleware: the origin, the protocol version and the session token are checked
 * before a socket exists. A refusal carries a typed code (fatal ones stop the client reconnecting);
 * a member still waiting in the lobby is refused with the retryable `awaiting_approval` and waits
 * on `GET /api/session/admission` instead, so it never renews, draws or reads the board.
 * On success `socket.data` holds what the token proved.
 */
export function authenticateHandshake(deps: { store: Store; log: FastifyBaseLogger; origins: OriginPolicy; proxies: ProxyTrust }) {
  const { store, log, origins, proxies } = deps;
  return async (socket: WbSocket, next: (error?: Error) => void): Promise<void> => {
    const origin = socket.handshake.headers.origin;
    if (!origins.allows(origin, proxies.selfOrigin(socket.request))) {
      return next(refused({ code: ErrorCode.ORIGIN_NOT_ALLOWED, message: `Origin ${origin} is not allowed.` }));
    }
    const auth = parsePacket(HandshakeAuth, socket.handshake.auth);
    if (!auth.ok) {
      return next(refused({ code: ErrorCode.NOT_AUTHENTICATED, message: `Bad handshake: ${auth.error.message}` }));
    }
    if (auth.value.protocol !== PROTOCOL_VERSION) {
      return next(
        refused({
          code: ErrorCode.PROTOCOL_MISMATCH,
          message: `This server speaks protocol ${PROTOCOL_VERSION}, the client ${auth.value.protocol}. Reload the page.`,
        }),
      );
    }
    try {
      const found = await store.authenticateSession(hashSecret(auth.value.token));
      if (found.decision !== 'ok') return next(refused(sessionRefusal(found)));
      socket.data = {
        roomId: found.room.id,
        userId: found.member.userId,
        sessionId: found.session.id,
        role: found.member.role,
        displayName: found.member.displayName,
        lastRevision: auth.value.lastRevision,
        groupsBoards: auth.value.features?.includes('boards.pointers') ?? false,
      };
      next();
    } catch (error) {
      log.warn({ err: String(error) }, 'handshake could not reach the database');
      next(refused({ code: ErrorCode.UNAVAILABLE, message: 'The server cannot reach its database. Retrying.' }));
    }
  };
}
