import { randomUUID } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import type { Store } from '@wb/db';
import {
  ClientEvent,
  CursorUpdate,
  ErrorCode,
  HandshakeAuth,
  LeaseRenewRequest,
  MAX_MESSAGE_BYTES,
  PROTOCOL_VERSION,
  ServerEvent,
  SyncRequest,
  parsePacket,
  readCursorUpdate,
  type Ack,
  type ErrorCode as ErrorCodeT,
  type LeaseRenewResult,
  type ProtocolError,
  type SyncMessage,
} from '@wb/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { Server } from 'socket.io';
import type { Config } from '../config.ts';
import type { Metrics } from '../metrics.ts';
import type { OriginPolicy } from '../http/origin.ts';
import type { TestHooks } from '../testHooks.ts';
import { hashSecret } from '../tokens.ts';
import { memberChannel, roomChannel, sessionChannel } from './channels.ts';
import { AdaptiveTick } from './adaptiveTick.ts';
import { CursorFanout } from './cursorFanout.ts';
import { cursorAwareParser, routeCursorPackets } from './cursorIngress.ts';
import { registerElementHandlers } from './elementHandlers.ts';
import { LockCache } from './lockCache.ts';
import { Refusal, acked as ackedWith, type AckContext } from './requests.ts';
import { RenewalBatcher } from './renewalBatcher.ts';
import { RoomPublisher } from './roomPublisher.ts';
import { TokenBucket } from './tokenBucket.ts';
import type { WbServer, WbSocket } from './types.ts';

/** Room events a reconnecting client may be replayed; past this it gets a snapshot. */
export const REPLAY_LIMIT = 500;
/** Refusal notices for unacknowledged packets are sent at most this often per socket. */
const NOTICE_INTERVAL_MS = 1_000;
/** Renewals queued on a node at most; past it the database is clearly not keeping up. */
const MAX_PENDING_RENEWALS = 20_000;
/** How often the event loop's utilization is sampled to set the cursor tick. */
const TICK_SAMPLE_MS = 250;

const refusedHandshake = (code: ErrorCodeT, message: string) => {
  const error = new Error(message) as Error & { data: ProtocolError };
  error.data = { code, message };
  return error;
};

const handshakeRefusals = {
  unknown: [ErrorCode.NOT_AUTHENTICATED, 'This session is not known. Join the lesson again.'],
  closed: [ErrorCode.SESSION_CLOSED, 'This session has ended. Join the lesson again.'],
  expired: [ErrorCode.TOKEN_EXPIRED, 'This session has expired. Join the lesson again.'],
  revoked: [ErrorCode.MEMBERSHIP_REVOKED, 'The teacher removed you from this lesson.'],
  denied: [ErrorCode.ADMISSION_DENIED, 'The teacher declined your request to join this lesson.'],
  archived: [ErrorCode.ROOM_ARCHIVED, 'This lesson has been archived.'],
  // Retryable, but by waiting on GET /api/session/admission: a waiting member gets no socket at all,
  // so it cannot renew, send cursors, edit, lock or read the board.
  pending: [ErrorCode.AWAITING_APPROVAL, 'Waiting for the teacher to let you in.'],
} as const;

export interface Realtime {
  io: WbServer;
  publisher: RoomPublisher;
  renewals: RenewalBatcher;
  stop(): Promise<void>;
}

/**
 * The Socket.IO side: handshake authentication, presence leases, cursors, sync and sign-out.
 * Handlers stay thin: validate, authorize, one store operation, publish its outcome.
 * Connection-state recovery is deliberately off: its default skips the auth middleware.
 */
export function attachRealtime(
  httpServer: HttpServer,
  deps: {
    store: Store;
    config: Config;
    log: FastifyBaseLogger;
    metrics: Metrics;
    origins: OriginPolicy;
    hooks?: TestHooks | null;
  },
): Realtime {
  const { store, config, log, metrics, origins } = deps;
  const io: WbServer = new Server(httpServer, {
    path: '/socket.io',
    serveClient: false,
    maxHttpBufferSize: MAX_MESSAGE_BYTES,
    parser: cursorAwareParser,
    pingInterval: 10_000,
    pingTimeout: 8_000,
    cors: { origin: (origin, callback) => callback(null, origins.allows(origin, undefined)) },
  });

  const tick = new AdaptiveTick({ minMs: config.CURSOR_TICK_MIN_MS, maxMs: config.CURSOR_TICK_MS });
  let loopSample = performance.eventLoopUtilization();
  const tickSampler = setInterval(() => {
    const now = performance.eventLoopUtilization();
    tick.observe(performance.eventLoopUtilization(now, loopSample).utilization);
    loopSample = now;
    metrics.cursorTick.set(tick.ms);
  }, TICK_SAMPLE_MS);
  tickSampler.unref();
  const cursors = new CursorFanout(() => tick.ms, (roomId, batch) => {
    metrics.cursorBatchSize.observe(batch.cursors.length + (batch.drags?.length ?? 0));
    io.to(roomChannel(roomId)).volatile.emit(ServerEvent.CURSORS, batch);
  });
  const locks = new LockCache({ firstTermMs: config.LOCK_FIRST_TERM_MS, ttlMs: config.LOCK_TTL_MS });
  const hooks = deps.hooks ?? null;
  const publisher = new RoomPublisher(io, cursors, locks, metrics, hooks);
  const renewals = new RenewalBatcher(
    store,
    { tickMs: config.RENEW_BATCH_MS, ttlMs: config.LEASE_TTL_MS, maxPending: MAX_PENDING_RENEWALS },
    (outcomes) => {
      metrics.renewalStatements.inc();
      for (const outcome of outcomes) metrics.renewals.inc({ decision: outcome.decision });
    },
  );
  /** Sockets per session on this node: a reload's new socket may arrive before the old one closes. */
  const localSessions = new Map<string, number>();

  io.use(async (socket, next) => {
    const origin = socket.handshake.headers.origin;
    if (!origins.allows(origin, socket.handshake.headers.host)) {
      return next(refusedHandshake(ErrorCode.ORIGIN_NOT_ALLOWED, `Origin ${origin} is not allowed.`));
    }
    const auth = parsePacket(HandshakeAuth, socket.handshake.auth);
    if (!auth.ok) return next(refusedHandshake(ErrorCode.NOT_AUTHENTICATED, `Bad handshake: ${auth.error.message}`));
    if (auth.value.protocol !== PROTOCOL_VERSION) {
      return next(
        refusedHandshake(
          ErrorCode.PROTOCOL_MISMATCH,
          `This server speaks protocol ${PROTOCOL_VERSION}, the client ${auth.value.protocol}. Reload the page.`,
        ),
      );
    }
    try {
      const found = await store.authenticateSession(hashSecret(auth.value.token));
      if (found.decision !== 'ok') {
        const [code, message] = handshakeRefusals[found.decision];
        return next(refusedHandshake(code, message));
      }
      socket.data = {
        roomId: found.room.id,
        userId: found.member.userId,
        sessionId: found.session.id,
        role: found.member.role,
        displayName: found.member.displayName,
        lastRevision: auth.value.lastRevision,
        leaseRevision: 0,
        leaseLive: false,
      };
      next();
    } catch (error) {
      log.warn({ err: String(error) }, 'handshake could not reach the database');
      next(refusedHandshake(ErrorCode.UNAVAILABLE, 'The server cannot reach its database. Retrying.'));
    }
  });

  io.on('connection', (socket) => {
    const data = socket.data;
    metrics.connectedSockets.inc();
    localSessions.set(data.sessionId, (localSessions.get(data.sessionId) ?? 0) + 1);
    void socket.join([
      roomChannel(data.roomId),
      sessionChannel(data.sessionId),
      memberChannel(data.roomId, data.userId),
    ]);

    const bucket = new TokenBucket(config.SOCKET_EVENTS_PER_SEC, config.SOCKET_EVENT_BURST, Date.now());
    let lastNotice = 0;
    const notice = (error: ProtocolError, event?: string) => {
      metrics.refusedPackets.inc({ code: error.code });
      const now = Date.now();
      if (now - lastNotice < NOTICE_INTERVAL_MS) return;
      lastNotice = now;
      socket.emit(ServerEvent.NOTICE, { ...error, ...(event ? { event } : {}) });
    };
    // Rate limit every inbound event (I10). An acknowledged request is refused through its ack.
    const admit = (event: unknown, ack: unknown, next: () => void) => {
      if (hooks?.holdInbound(data.sessionId, next)) return;
      if (bucket.take(Date.now())) return next();
      const error = { code: ErrorCode.RATE_LIMITED, message: 'Too many messages; slow down.' } as const;
      if (typeof ack === 'function') {
        metrics.refusedPackets.inc({ code: error.code });
        (ack as (reply: Ack<never>) => void)({ ok: false, error });
      } else {
        notice(error, String(event));
      }
    };
    socket.use((packet, next) => admit(packet[0], packet[packet.length - 1], () => next()));

    const ackContext: AckContext = {
      refused: (code) => metrics.refusedPackets.inc({ code }),
      missingAck: (event) => notice({ code: ErrorCode.BAD_REQUEST, message: `${event} needs an acknowledgement` }, event),
      failed: (event, error) => log.warn({ err: String(error), event, session: data.sessionId }, 'request failed'),
    };
    const acked = <T>(event: string, handler: (packet: unknown) => Promise<T>) => ackedWith(ackContext, event, handler);

    registerElementHandlers(socket, {
      store,
      config,
      publisher,
      cursors,
      locks,
      context: ackContext,
      endSession: (s) => endSession(s, ErrorCode.MEMBERSHIP_REVOKED, 'You can no longer take part in this lesson.'),
    });

    const pushCursor = ({ x, y, t }: CursorUpdate) => {
      // Only a session with a live lease has a cursor (a revoked or expired one has none).
      if (!data.leaseLive) return;
      cursors.push(data.roomId, data.userId, t === undefined ? [data.sessionId, x, y] : [data.sessionId, x, y, t]);
    };
    const onCursor = (packet: unknown) => {
      const update = readCursorUpdate(packet);
      if (update) return pushCursor(update);
      // Not the plain well-formed case: the schema decides, and words the refusal.
      const parsed = parsePacket(CursorUpdate, packet);
      if (!parsed.ok) return notice(parsed.error, ClientEvent.CURSOR);
      pushCursor(parsed.value);
    };
    socket.on(ClientEvent.CURSOR, onCursor);
    // The short way in for the plain form of the packet, under the same admission (see cursorIngress.ts).
    routeCursorPackets(socket, (packet) => admit(ClientEvent.CURSOR, undefined, () => onCursor(packet)));

    socket.on(
      ClientEvent.LEASE_RENEW,
      acked<LeaseRenewResult>(ClientEvent.LEASE_RENEW, async (packet) => {
        const request = parsePacket(LeaseRenewRequest, packet);
        if (!request.ok) throw new Refusal(request.error);
        let outcome;
        try {
          outcome = await renewals.submit({ sessionId: data.sessionId, ...request.value });
        } catch (error) {
          log.warn({ err: String(error), session: data.sessionId }, 'renewal not written');
          throw new Refusal({ code: ErrorCode.UNAVAILABLE, message: 'Renewal not recorded; the next one will retry.' });
        }
        log.info(
          {
            room: data.roomId,
            session: data.sessionId,
            request_id: request.value.requestId,
            prior_revision: outcome.priorRevision,
            new_revision: outcome.revision,
            decision: outcome.decision,
          },
          'lease renewal decision',
        );
        const roomRevision = outcome.roomRevision === null ? {} : { roomRevision: outcome.roomRevision };
        switch (outcome.decision) {
          case 'accepted':
            data.leaseRevision = Math.max(data.leaseRevision, outcome.revision);
            data.leaseLive = true;
            return { decision: outcome.decision, revision: outcome.revision, ...roomRevision };
          case 'already_applied':
          case 'ignored_old_revision':
            return { decision: outcome.decision, revision: outcome.revision, ...roomRevision };
          case 'no_lease': {
            // The lease expired (or a database crash took the UNLOGGED table) while this client
            // was alive after all: open a fresh lease, recorded as a reconnect.
            const revision = await openLeaseFor(socket);
            if (revision === null) {
              throw new Refusal({ code: ErrorCode.MEMBERSHIP_REVOKED, message: 'Not an active member of this room.' });
            }
            return { decision: outcome.decision, revision };
          }
          case 'not_a_member':
            endSession(socket, ErrorCode.MEMBERSHIP_REVOKED, 'You can no longer take part in this lesson.');
            throw new Refusal({ code: ErrorCode.MEMBERSHIP_REVOKED, message: 'Not an active member of this room.' });
        }
      }),
    );

    socket.on(
      ClientEvent.SYNC_REQUEST,
      acked<{ sync: SyncMessage }>(ClientEvent.SYNC_REQUEST, async (packet) => {
        const request = parsePacket(SyncRequest, packet);
        if (!request.ok) throw new Refusal(request.error);
        return { sync: await buildSync(data.roomId, request.value.lastRevision) };
      }),
    );

    socket.on(
      ClientEvent.SIGN_OUT,
      acked<Record<string, never>>(ClientEvent.SIGN_OUT, async () => {
        const closed = await store.closeSession({
          sessionId: data.sessionId,
          reason: 'signed_out',
          requestId: `signout:${socket.id}`,
        });
        if (closed.decision === 'closed') publisher.publish(closed.events);
        return {};
      }),
    );

    let promptTimer: NodeJS.Timeout | null = null;
    const schedulePrompt = () => {
      // +-20% jitter so thirty laptops waking together do not renew in one spike.
      const delay = config.LEASE_RENEW_MS * (0.8 + Math.random() * 0.4);
      promptTimer = setTimeout(() => {
        const roomRevision = publisher.latestRevision(data.roomId);
        socket.emit(ServerEvent.LEASE_DUE, {
          revision: data.leaseRevision,
          ...(roomRevision === undefined ? {} : { roomRevision }),
        });
        schedulePrompt();
      }, delay);
    };

    socket.on('disconnect', (reason) => {
      metrics.connectedSockets.dec();
      if (promptTimer) clearTimeout(promptTimer);
      cursors.forget(data.roomId, [data.sessionId]);
      if (!io.sockets.adapter.rooms.get(roomChannel(data.roomId))?.size) {
        // The last local socket of the room left: forget its per-room state on this node (I10).
        publisher.forgetRoom(data.roomId);
        locks.forgetRoom(data.roomId);
      }
      const remaining = (localSessions.get(data.sessionId) ?? 1) - 1;
      if (remaining > 0) {
        localSessions.set(data.sessionId, remaining);
        return;
      }
      localSessions.delete(data.sessionId);
      if (!data.leaseLive) return;
      // A close is a signal, not a decision (I7): the cursor hides now, the roster waits for the lease.
      store.setLeaseConnected(data.sessionId, false).then(
        (presence) => {
          if (presence) io.to(roomChannel(data.roomId)).emit(ServerEvent.PRESENCE_SIGNAL, presence);
        },
        (error: unknown) => log.warn({ err: String(error), reason }, 'could not record a socket close'),
      );
    });

    void (async () => {
      try {
        const revision = await openLeaseFor(socket);
        if (revision === null || socket.disconnected) return;
        socket.emit(ServerEvent.WELCOME, {
          sessionId: data.sessionId,
          userId: data.userId,
          role: data.role,
          displayName: data.displayName,
          leaseRevision: revision,
          leaseTtlMs: config.LEASE_TTL_MS,
          renewIntervalMs: config.LEASE_RENEW_MS,
        });
        socket.emit(ServerEvent.SYNC, await buildSync(data.roomId, data.lastRevision));
        schedulePrompt();
      } catch (error) {
        log.warn({ err: String(error), session: data.sessionId }, 'could not start a session on connect');
        socket.emit(ServerEvent.NOTICE, { code: ErrorCode.UNAVAILABLE, message: 'The server cannot reach its database.' });
        socket.disconnect(true);
      }
    })();
  });

  /** Opens or resumes the socket's lease; returns its revision, or null when the session is over. */
  async function openLeaseFor(socket: WbSocket): Promise<number | null> {
    const data = socket.data;
    const opened = await store.openLease({
      sessionId: data.sessionId,
      ttlMs: config.LEASE_TTL_MS,
      requestId: `connect:${socket.id}:${randomUUID().slice(0, 8)}`,
    });
    if (opened.decision === 'not_a_member') {
      endSession(socket, ErrorCode.MEMBERSHIP_REVOKED, 'You can no longer take part in this lesson.');
      return null;
    }
    data.leaseRevision = Math.max(data.leaseRevision, opened.lease.revision);
    data.leaseLive = true;
    log.info(
      {
        room: data.roomId,
        session: data.sessionId,
        prior_revision: opened.decision === 'resumed' ? opened.priorRevision : null,
        new_revision: opened.lease.revision,
        decision: opened.decision,
      },
      'lease open decision',
    );
    if (opened.decision === 'opened') {
      publisher.publish(opened.events);
    } else {
      io.to(roomChannel(data.roomId)).emit(ServerEvent.PRESENCE_SIGNAL, {
        sessionId: data.sessionId,
        userId: data.userId,
        connected: true,
      });
    }
    return opened.lease.revision;
  }

  function endSession(socket: WbSocket, code: ErrorCodeT, message: string): void {
    socket.data.leaseLive = false;
    cursors.forget(socket.data.roomId, [socket.data.sessionId]);
    socket.emit(ServerEvent.SESSION_ENDED, { code, message });
    socket.disconnect(true);
  }

  async function buildSync(roomId: string, lastRevision: number | undefined): Promise<SyncMessage> {
    if (lastRevision !== undefined) {
      const replay = await store.eventsAfter(roomId, lastRevision, REPLAY_LIMIT);
      if (replay.kind === 'replay') return { kind: 'replay', fromRevision: lastRevision, events: replay.events };
    }
    const snapshot = await store.loadRoomSnapshot(roomId);
    if (!snapshot) throw new Refusal({ code: ErrorCode.ROOM_NOT_FOUND, message: 'This room no longer exists.' });
    return { kind: 'snapshot', snapshot };
  }

  return {
    io,
    publisher,
    renewals,
    async stop() {
      clearInterval(tickSampler);
      cursors.stop();
      await renewals.stop();
    },
  };
}
