import type { Server as HttpServer } from 'node:http';
import type { Store } from '@wb/db';
import { BOARD_POINTER_MS, ErrorCode, MAX_MESSAGE_BYTES, ServerEvent } from '@wb/protocol';
import type { FastifyBaseLogger } from 'fastify';
import { Server } from 'socket.io';
import type { Config } from '../config.ts';
import type { OriginPolicy } from '../http/origin.ts';
import type { ProxyTrust } from '../http/proxyTrust.ts';
import type { Metrics } from '../metrics.ts';
import type { TestHooks } from '../testHooks.ts';
import { AdaptiveTick } from './adaptiveTick.ts';
import { followersChannel, memberChannel, roleChannel, roomChannel, sessionChannel } from './channels.ts';
import { listen, type ClientEventHandlers } from './clientEvents.ts';
import { EphemeralFanout } from './ephemeralFanout.ts';
import { cursorHandlers } from './cursorHandlers.ts';
import { cursorAwareParser } from './cursorIngress.ts';
import { attentionHandlers, presentingView, tellFollowerCount } from './attentionHandlers.ts';
import { authorityHandlers } from './authorityHandlers.ts';
import { BoardAccess } from './boardAccess.ts';
import { sendBoardBatches } from './boardBatches.ts';
import { ShownBoards } from './shownView.ts';
import { boundVolatile } from './boundedVolatile.ts';
import { coalesceWrites, flushWritesNow } from './coalescedWrites.ts';
import { boardHandlers } from './boardHandlers.ts';
import { pageHandlers } from './pageHandlers.ts';
import { DrawRights } from './drawRights.ts';
import { CreateBatcher } from './createBatcher.ts';
import { elementHandlers } from './elementHandlers.ts';
import { authenticateHandshake } from './handshake.ts';
import { handHandlers } from './handHandlers.ts';
import { checkHandlers } from './checkHandlers.ts';
import { inkHandlers } from './inkHandlers.ts';
import { LockCache } from './lockCache.ts';
import { lockHandlers } from './lockHandlers.ts';
import { PacketGate } from './packetGate.ts';
import { Presence } from './presenceHandlers.ts';
import { RenewalBatcher } from './renewalBatcher.ts';
import { RoomPublisher } from './roomPublisher.ts';
import { LocalSessions, SocketSession } from './socketSession.ts';
import { SyncService, syncHandlers } from './syncHandlers.ts';
import type { WbServer } from './types.ts';

/** Renewals queued on a node at most; past it the database is clearly not keeping up. */
export const MAX_PENDING_RENEWALS = 20_000;
/**
 * A room's creates written in one batch at most, and waiting at most (I10): a class of 31 drawing
 * has ~26 strokes a second in flight, so a full queue is the database minutes behind.
 */
export const CREATE_BATCH = { maxBatch: 64, maxPending: 1_000 } as const;
/**
 * Create writers on Postgres, side by side, each lesson always to the same one (createBatcher.ts);
 * the embedded database has one. A writer per lesson cost about twice the Postgres CPU per stroke
 * at 12 drawing rooms (BENCHMARKS.md, "Drawing class"), and could take every pool connection.
 */
export const CREATE_WRITERS_POSTGRES = 4;
/**
 * A request past its deadline is answered `busy` (retry, the server is behind) rather than
 * `unavailable` when the database answered other work within this long (ms).
 */
const DATABASE_ANSWERING_MS = 2_000;
/** How often the event loop's utilization is sampled to set the cursor tick. */
const TICK_SAMPLE_MS = 250;

export interface Realtime {
  io: WbServer;
  publisher: RoomPublisher;
  renewals: RenewalBatcher;
  /**
   * Shutdown, phase 2: new handshakes are refused as `server_restarting` (retryable: the client
   * backs off with jitter and the balancer sends it elsewhere), and every local socket is sent
   * `notice` `server_restarting` with `reconnectWithinMs`: the client reconnects on its own at a
   * random moment in that window, so a node's users do not all land on the others at once.
   * Returns how many sockets were told.
   */
  drain(reconnectWithinMs: number): number;
  stop(): Promise<void>;
}

/**
 * The Socket.IO side, wired: the handshake (handshake.ts), one `SocketSession` per connection
 * (socketSession.ts), and the table of client event handlers (clientEvents.ts), each handler in
 * its concept's file. Connection-state recovery is deliberately off: its default skips the
 * handshake middleware.
 */
export function attachRealtime(
  httpServer: HttpServer,
  deps: {
    store: Store;
    config: Config;
    log: FastifyBaseLogger;
    metrics: Metrics;
    origins: OriginPolicy;
    proxies: ProxyTrust;
    hooks?: TestHooks | null;
  },
): Realtime {
  const { store, config, log, metrics, origins, proxies } = deps;
  const hooks = deps.hooks ?? null;
  const io: WbServer = new Server(httpServer, {
    path: '/socket.io',
    serveClient: false,
    maxHttpBufferSize: MAX_MESSAGE_BYTES,
    parser: cursorAwareParser,
    pingInterval: 10_000,
    pingTimeout: 8_000,
    cors: { origin: (origin, callback) => callback(null, origins.allows(origin, null)) },
  });

  const tick = new AdaptiveTick({ minMs: config.CURSOR_TICK_MIN_MS, maxMs: config.CURSOR_TICK_MS, overloadMs: config.CURSOR_TICK_OVERLOAD_MS ?? 2 * config.CURSOR_TICK_MS });
  let loopSample = performance.eventLoopUtilization();
  const tickSampler = setInterval(() => {
    const now = performance.eventLoopUtilization();
    tick.observe(performance.eventLoopUtilization(now, loopSample).utilization);
    loopSample = now;
    metrics.cursorTick.set(tick.ms);
  }, TICK_SAMPLE_MS);
  tickSampler.unref();
  const rights = new DrawRights((roomId) => store.readDrawRights(roomId));
  // The boards shown to the class: who gets a board's anonymous view (shownView.ts).
  const shown = new ShownBoards();
  const boardAccess = new BoardAccess();
  const fanout = new EphemeralFanout(
    () => tick.ms,
    (roomId, batch, audience) => {
      metrics.cursorBatchSize.observe(batch.cursors.length + (batch.drags?.length ?? 0) + (batch.ink?.length ?? 0) + (batch.laser?.length ?? 0));
      const channel =
        audience === 'room' ? roomChannel(roomId) : audience === 'followers' ? followersChannel(roomId) : roleChannel(roomId, audience === 'teachers' ? 'teacher' : 'student');
      io.to(channel).volatile.emit(ServerEvent.CURSORS, batch);
    },
    undefined,
    (roomId) => rights.cursorVisibility(roomId),
    // Private boards' and pages' pointers, ink and drags: one batch a board (a page's per role,
    // by its lesson's cursor visibility), all of a tick at once.
    { tickMs: BOARD_POINTER_MS, pageLesson: (boardId) => boardAccess.lessonOfPage(boardId), send: (batches) => sendBoardBatches(io, batches, shown) },
  );
  const locks = new LockCache({ firstTermMs: config.LOCK_FIRST_TERM_MS, ttlMs: config.LOCK_TTL_MS });
  const sessions = new LocalSessions(io);
  const publisher = new RoomPublisher(io, fanout, locks, sessions, metrics, hooks, rights, shown);
  const renewals = new RenewalBatcher(
    store,
    { tickMs: config.RENEW_BATCH_MS, ttlMs: config.LEASE_TTL_MS, maxPending: MAX_PENDING_RENEWALS },
    (outcomes) => {
      metrics.renewalStatements.inc();
      for (const outcome of outcomes) metrics.renewals.inc({ decision: outcome.decision });
    },
  );
  const sync = new SyncService(store, publisher);
  const presence = new Presence({ io, store, config, log, publisher, renewals, fanout });
  const edits = { store, publisher, endRevoked: (session: SocketSession) => presence.endRevoked(session) };
  const writers = store.database.kind === 'pglite' ? 1 : CREATE_WRITERS_POSTGRES;
  const creates = new CreateBatcher(store, { ...CREATE_BATCH, writers }, (size) =>
    metrics.createBatchSize.observe(size),
  );
  /** The database answered within this long: a request missing its deadline is load, not an outage. */
  const databaseAnswering = () => store.database.lanes.answeredWithin(DATABASE_ANSWERING_MS);

  /** What the server does with each client event (a new event does not compile without its entry). */
  const handlers: ClientEventHandlers = {
    ...cursorHandlers(fanout),
    ...inkHandlers({ fanout, rights, metrics, access: boardAccess }),
    ...presence.handlers,
    ...syncHandlers(sync),
    ...elementHandlers({ ...edits, creates }),
    ...authorityHandlers(edits),
    ...handHandlers(edits),
    ...attentionHandlers({ io, fanout, rights, access: boardAccess }),
    ...lockHandlers({ ...edits, config, locks, fanout }),
    ...boardHandlers({ ...edits, io, fanout, access: boardAccess, shown }),
    ...checkHandlers({ ...edits, io }),
    ...pageHandlers({ ...edits, io, access: boardAccess }),
  };

  let refusing = false;
  io.use((_socket, next) => {
    if (!refusing) return next();
    next(Object.assign(new Error('The server is restarting.'), { data: { code: ErrorCode.SERVER_RESTARTING, message: 'The server is restarting; reconnecting elsewhere.' } }));
  });
  io.use(authenticateHandshake({ store, log, origins, proxies }));

  io.on('connection', (socket) => {
    // Volatile batches queue while its write buffer has room, and are shed past it (issue 22).
    boundVolatile(socket, () => metrics.shedVolatilePackets.inc());
    // Everything a turn sends to the connection leaves in one socket write (issue 42).
    coalesceWrites(socket);
    const session = new SocketSession(socket);
    sessions.add(session);
    metrics.connectedSockets.inc();
    void socket.join([
      roomChannel(session.roomId),
      sessionChannel(session.sessionId),
      memberChannel(session.roomId, session.userId),
      roleChannel(session.roomId, session.role),
    ]);
    listen(session, handlers, new PacketGate(socket, { config, metrics, log, hooks, databaseAnswering }));
    let stopPrompts = () => {};
    // A follower's socket closing changes the teacher's count (its channels are gone by 'disconnect').
    let wasFollowing = false;
    // The private boards this socket was subscribed to (boardHandlers.ts): forgotten with it (I10).
    let boardChannels: string[] = [];
    socket.on('disconnecting', () => {
      wasFollowing = socket.rooms.has(followersChannel(session.roomId));
      const own = new Set([roomChannel(session.roomId)]);
      boardChannels = [...socket.rooms].filter((c) => c.startsWith(roomChannel('')) && !own.has(c));
    });

    socket.on('disconnect', (reason) => {
      metrics.connectedSockets.dec();
      stopPrompts();
      const wasLive = session.disconnected();
      fanout.forgetSessions(session.roomId, [session.sessionId]);
      if (wasFollowing) void tellFollowerCount(io, session.roomId).catch(() => {});
      for (const channel of boardChannels) {
        if (sessions.roomHasSockets(channel)) continue;
        const boardId = channel.slice(roomChannel('').length);
        publisher.forgetRoom(boardId);
        locks.forgetRoom(boardId);
      }
      if (!sessions.roomHasSockets(roomChannel(session.roomId))) {
        // The last local socket of the room left: forget its per-room state on this node (I10).
        publisher.forgetRoom(session.roomId);
        locks.forgetRoom(session.roomId);
        rights.forgetRoom(session.roomId);
        sync.forgetRoom(session.roomId);
      }
      // Another socket of the session (a reload's) still holds its presence here.
      if (sessions.remove(session) > 0) return;
      if (wasLive) presence.signalClosed(session, reason);
    });

    void (async () => {
      try {
        const revision = await presence.openLease(session);
        if (revision === null || socket.disconnected) return;
        // The lesson's settings for the ephemeral path (who may draw, whose cursors students see),
        // known before the welcome so the first stroke's live ink and cursors are not dropped (one
        // read per room and node).
        await rights.ensure(session.roomId);
        if (socket.disconnected) return;
        socket.emit(ServerEvent.WELCOME, {
          sessionId: session.sessionId,
          userId: session.userId,
          role: session.role,
          displayName: session.displayName,
          leaseRevision: revision,
          leaseTtlMs: config.LEASE_TTL_MS,
          renewIntervalMs: config.LEASE_RENEW_MS,
        });
        // The member's party in the database's lanes, as for their sync requests (no deadline: a
        // connect's sync is waited for).
        socket.emit(ServerEvent.SYNC, await sync.build(session.roomId, socket.data.lastRevision, { party: `${session.roomId}/${session.userId}`, deadline: Infinity }));
        if (!socket.disconnected) stopPrompts = presence.promptRenewals(session);
        // A student arriving while the teacher presents follows at once, from the teacher's latest view.
        if (session.role === 'student') {
          // Not the database: a slow adapter only means no catch-up (the next presenting signal brings it).
          const presented = await presentingView(io, session.roomId).catch(() => null);
          if (presented && !socket.disconnected) socket.emit(ServerEvent.FOLLOW, { kind: 'presenting', presenting: true, ...presented });
        }
      } catch (error) {
        log.warn({ err: String(error), session: session.sessionId }, 'could not start a session on connect');
        socket.emit(ServerEvent.NOTICE, { code: ErrorCode.UNAVAILABLE, message: 'The server cannot reach its database.' });
        socket.disconnect(true);
      }
    })();
  });

  return {
    io,
    publisher,
    renewals,
    drain(reconnectWithinMs) {
      refusing = true;
      io.local.emit(ServerEvent.NOTICE, {
        code: ErrorCode.SERVER_RESTARTING,
        message: 'This server is going away; reconnecting to another one.',
        reconnectWithinMs,
      });
      return io.of('/').sockets.size;
    },
    async stop() {
      // Whatever the caller sent just before (the restart notice) leaves before the sockets close.
      flushWritesNow();
      clearInterval(tickSampler);
      fanout.stop();
      await renewals.stop();
    },
  };
}
