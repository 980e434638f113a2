import { timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import { createAdapter, createShardedAdapter } from '@socket.io/redis-adapter';
import {
  SWEEPER_LOCK_ID,
  Sweeper,
  createStore,
  databaseClock,
  openDatabase,
  type Clock,
  type Database,
  type Store,
} from '@wb/db';
import { ErrorCode, MAX_MESSAGE_BYTES, ServerEvent } from '@wb/protocol';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { createClient } from 'redis';
import { serveOnlineBackups } from './backupSocket.ts';
import type { Config } from './config.ts';
import { sendError } from './http/errors.ts';
import { OriginPolicy, isTrustworthyOrigin } from './http/origin.ts';
import { ProxyTrust } from './http/proxyTrust.ts';
import { LocalBuckets, RateLimiter, RedisBuckets } from './http/rateLimits.ts';
import { redisNames } from './redisNames.ts';
import { registerAttendanceRoutes } from './http/attendanceRoutes.ts';
import { registerPdfRoutes } from './http/pdfRoutes.ts';
import { registerJoinRoutes } from './http/joinRoutes.ts';
import { registerShareRoutes } from './http/shareRoutes.ts';
import { registerLobbyRoutes } from './http/lobbyRoutes.ts';
import { registerImageRoutes } from './http/imageRoutes.ts';
import { registerMemberRoutes } from './http/memberRoutes.ts';
import { LobbyWaiters } from './realtime/lobbyWaiters.ts';
import { registerTeacherRoutes } from './http/teacherRoutes.ts';
import { registerAdminRoutes } from './http/adminRoutes.ts';
import { registerOidcRoutes } from './http/oidcRoutes.ts';
import { OidcProviders } from './oidc.ts';
import { RetentionSchedule } from './retentionSchedule.ts';
import { registerRoutes } from './http/routes.ts';
import { ProcessHealth, readiness } from './health.ts';
import { localUrl } from './joinAddress.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { attachRealtime, type Realtime } from './realtime/socketServer.ts';
import { TestHooks, registerTestRoutes } from './testHooks.ts';

export interface App {
  http: FastifyInstance;
  realtime: Realtime;
  store: Store;
  database: Database;
  sweeper: Sweeper;
  /** Deletes lessons past RETENTION_DAYS (runs with the sweeper). */
  retention: RetentionSchedule;
  metrics: Metrics;
  /** Waiting pages parked on this node (bounded, I10). */
  lobbyWaiters: LobbyWaiters;
  /** The address to open on this computer, once listening. */
  url: string;
  /** The port it listens on (PORT=0 picks one). */
  port: number;
  /** Graceful shutdown: clients are told the server is restarting and keep their sessions. */
  close(): Promise<void>;
  /**
   * The SIGTERM path: readiness fails at once, the balancer gets SHUTDOWN_DRAIN_MS to stop sending
   * users here, then clients are told to reconnect elsewhere at a random moment within
   * SHUTDOWN_RECONNECT_SPREAD_MS, then `close()`. Each phase is logged at info.
   */
  shutdown(): Promise<void>;
  /** True from the first moment of `shutdown()`: /readyz answers 503. */
  readonly draining: boolean;
  /** The /metrics listener's address when METRICS_PORT is set. */
  metricsUrl: string | null;
}

export interface AppOptions {
  /** Tests freeze time; production uses the database's clock (I2). */
  clock?: Clock;
  /** Reuse an open database (tests); otherwise one is opened from the config. */
  database?: Database;
  /** Tests drive sweeps themselves. */
  startSweeper?: boolean;
}

/** The composition root: HTTP routes, Socket.IO, the sweeper, metrics and health on one port. */
export async function startApp(config: Config, options: AppOptions = {}): Promise<App> {
  const proxies = new ProxyTrust(config.TRUST_PROXY);
  const http = Fastify({
    logger: { level: config.LOG_LEVEL, redact: ['req.headers.authorization', 'req.headers.cookie'] },
    bodyLimit: MAX_MESSAGE_BYTES,
    // Forwarded headers only from the proxies TRUST_PROXY names (none by default).
    trustProxy: proxies.fastifyOption,
  });

  const database =
    options.database ??
    (await openDatabase(
      config.DATABASE_URL
        ? { kind: 'postgres', url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE, migrate: config.DATABASE_MIGRATE }
        : { kind: 'pglite', dataDir: config.PGLITE_DIR },
    ));
  const store = createStore(database, options.clock ?? databaseClock, { maxPerBoard: config.BOARD_ELEMENTS_MAX });
  const metrics = createMetrics();
  const origins = new OriginPolicy(config.ALLOWED_ORIGINS);

  await http.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        connectSrc: ["'self'", 'ws:', 'wss:'],
        objectSrc: ["'none'"],
        frameAncestors: ["'none'"],
        // Never sent (helmet's default would): on plain HTTP (a teacher's laptop on the school
        // network) it makes the browser ask for every script and style over https, which nothing
        // answers, and students get a blank page (issue 35). Over TLS it would add nothing: every
        // source is the page's own origin. Like HSTS, it belongs to the TLS proxy, if anywhere.
        upgradeInsecureRequests: null,
      },
    },
    // The site is plain HTTP on a laptop by default; HSTS belongs to the TLS proxy in front.
    hsts: false,
    // Sent below, only where browsers apply it.
    crossOriginOpenerPolicy: false,
  });

  http.addHook('onRequest', async (request, reply) => {
    const self = proxies.selfOrigin(request.raw);
    if (!origins.allows(request.headers.origin, self)) {
      return sendError(reply, ErrorCode.ORIGIN_NOT_ALLOWED, `Origin ${request.headers.origin} is not allowed.`);
    }
    // A browser applies COOP only to a secure context; on plain HTTP at a LAN address it ignores
    // it with an error in every student's console (issue 35). So: only where it takes effect.
    if (isTrustworthyOrigin(self)) reply.header('cross-origin-opener-policy', 'same-origin');
  });
  http.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      // Image uploads have their own limit (10 MB); every other body is at most a socket message.
      return sendError(reply, ErrorCode.PAYLOAD_TOO_LARGE, `A request body here is at most ${request.routeOptions.bodyLimit ?? MAX_MESSAGE_BYTES} bytes.`);
    }
    if (error.statusCode === 429) return sendError(reply, ErrorCode.RATE_LIMITED, 'Too many requests; slow down.');
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return sendError(reply, ErrorCode.BAD_REQUEST, error.message);
    }
    request.log.error({ err: error }, 'request failed');
    return sendError(reply, ErrorCode.UNAVAILABLE, 'The server could not complete this request. Retry.');
  });

  // Socket.IO attaches to Fastify's own http.Server: one port for the app, the API and sockets.
  const hooks = config.WB_TEST_HOOKS ? new TestHooks() : null;
  const realtime = attachRealtime(http.server, { store, config, log: http.log, metrics, origins, proxies, hooks });
  if (hooks) {
    http.log.warn('fault-injection routes under /__test are enabled (WB_TEST_HOOKS=1): never in production');
    registerTestRoutes(http, hooks, () => realtime.io, store);
  }
  // HTTP limits count in Redis when there is one, so every node shares them.
  const limitsClient = config.REDIS_URL ? createClient({ url: config.REDIS_URL, disableOfflineQueue: true }) : null;
  if (limitsClient) {
    limitsClient.on('error', (error: unknown) => http.log.warn({ err: String(error) }, 'redis rate-limit connection problem'));
    await limitsClient.connect();
  }
  const limits = new RateLimiter(limitsClient ? new RedisBuckets(limitsClient, http.log, redisNames(config.REDIS_PREFIX).limitKeys) : new LocalBuckets());
  registerRoutes(http, { store, config, publisher: realtime.publisher, limits });
  registerAttendanceRoutes(http, { store });
  registerPdfRoutes(http, { store });
  registerMemberRoutes(http, { store, publisher: realtime.publisher });
  const lobbyWaiters = new LobbyWaiters();
  realtime.publisher.onEvent((event) => lobbyWaiters.onEvent(event));
  registerLobbyRoutes(http, { store, publisher: realtime.publisher, waiters: lobbyWaiters });
  registerTeacherRoutes(http, { store, config, publisher: realtime.publisher, limits });
  registerOidcRoutes(http, { store, config, providers: new OidcProviders(config.OIDC_PROVIDERS), proxies, limits });
  registerAdminRoutes(http, { store, config, proxies, publisher: realtime.publisher });
  registerImageRoutes(http, { store, images: store, limits, caps: { maxImages: config.LESSON_IMAGES_MAX, maxBytes: config.LESSON_IMAGE_BYTES_MAX } });
  registerShareRoutes(http, { store, limits });
  registerJoinRoutes(http, { config, proxies, port: () => listeningPort(http, config.PORT) });

  const sweeper = new Sweeper(
    store,
    database.leaderLock(SWEEPER_LOCK_ID),
    (events) => realtime.publisher.publish(events),
    http.log,
    {
      intervalMs: config.SWEEP_INTERVAL_MS,
      leaseTtlMs: config.LEASE_TTL_MS,
      lockTtlMs: config.LOCK_TTL_MS,
      batch: 500,
      eventLogKeep: config.EVENT_LOG_KEEP,
      pruneEvery: 60,
    },
    (result) => metrics.expiries.inc(result.expired),
  );

  const retention = new RetentionSchedule(store, http.log, { days: config.RETENTION_DAYS, intervalMs: config.RETENTION_SWEEP_INTERVAL_MS });

  const health = new ProcessHealth(sweeper, {
    sweepIntervalMs: config.SWEEP_INTERVAL_MS,
    maxEventLoopLagMs: config.LIVENESS_MAX_LAG_MS,
    maxPassInFlightMs: PASS_IN_FLIGHT_MAX_MS,
  });
  let draining = false;
  let adapterReady: (() => boolean) | null = null;
  // Liveness: the process itself (event loop, sweeper loop), never the database (docs/operations.md).
  http.get('/healthz', async (_request, reply) => {
    const report = health.liveness();
    return reply.code(report.ok ? 200 : 503).send(report);
  });
  // Readiness: the database, the Redis adapter, and not draining: where the balancer sends users.
  http.get('/readyz', async (_request, reply) => {
    const report = await readiness({ database, adapterReady, draining });
    return reply.code(report.ok ? 200 : 503).send(report);
  });
  const sendMetrics = async (reply: FastifyReply) => {
    if (sweeper.lastPassAt !== null) metrics.sweeperLastPassAge.set((Date.now() - sweeper.lastPassAt) / 1000);
    metrics.recordStatements(database.statements.snapshot());
    metrics.recordLanes(database.lanes.queued(), database.lanes.stats);
    const embedded = await database.embeddedMemory();
    if (embedded) {
      metrics.embeddedDbMemory.set({ kind: 'wasm' }, embedded.wasmBytes);
      metrics.embeddedDbMemory.set({ kind: 'heap_used' }, embedded.heapUsedBytes);
      metrics.embeddedDbMemory.set({ kind: 'external' }, embedded.externalBytes);
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  };
  const metricsHttp = config.METRICS_PORT === undefined ? null : Fastify({ logger: false });
  if (metricsHttp) {
    metricsHttp.get('/metrics', async (_request, reply) => sendMetrics(reply));
  } else if (config.METRICS_TOKEN !== undefined || config.NODE_ENV !== 'production') {
    // On the app's port: behind a bearer token when one is set, open on a laptop or in tests.
    const expected = config.METRICS_TOKEN === undefined ? null : Buffer.from(`Bearer ${config.METRICS_TOKEN}`);
    http.get('/metrics', async (request, reply) => {
      if (expected && !sameSecret(request.headers.authorization, expected)) {
        return sendError(reply, ErrorCode.NOT_AUTHENTICATED, 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.');
      }
      return sendMetrics(reply);
    });
  } else {
    http.log.warn('NODE_ENV=production without METRICS_PORT or METRICS_TOKEN: /metrics is not served');
  }

  await registerWebApp(http, config.WEB_DIST);

  await http.ready();

  const redisClients = config.REDIS_URL ? await attachRedis(realtime, config.REDIS_URL, config.REDIS_ADAPTER, config.REDIS_PREFIX, http) : [];
  if (redisClients.length > 0) adapterReady = () => redisClients.every((client) => client.isReady);

  await http.listen({ port: config.PORT, host: config.HOST });
  let metricsUrl: string | null = null;
  if (metricsHttp) {
    await metricsHttp.listen({ port: config.METRICS_PORT, host: config.HOST });
    const metricsAddress = metricsHttp.server.address();
    metricsUrl = `http://${config.HOST}:${typeof metricsAddress === 'object' && metricsAddress ? metricsAddress.port : config.METRICS_PORT}`;
  }
  const port = listeningPort(http, config.PORT);
  const url = localUrl(config.HOST, port);

  if (options.startSweeper !== false) {
    sweeper.start();
    retention.start();
  }

  // `pnpm db:backup` while this server runs: the embedded database's own directory, copied by this
  // process (backupSocket.ts), never opened by a second one.
  const backups =
    !options.database && !config.DATABASE_URL && database.embeddedBackup
      ? await serveOnlineBackups(config.PGLITE_DIR, database.embeddedBackup, http.log)
      : null;

  let closing: Promise<void> | undefined;
  let shuttingDown: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      health.stop();
      await sweeper.stop();
      await retention.stop();
      // Waiting pages get their answer now and ask again (here after a restart, or another node).
      lobbyWaiters.wakeAll();
      // Clients reconnect (here after a restart, or to another node) and keep their sessions;
      // their leases get the restart grace (I8) from whichever node sweeps next.
      realtime.io.local.emit(ServerEvent.NOTICE, {
        code: ErrorCode.SERVER_RESTARTING,
        message: 'The server is restarting; reconnecting.',
      });
      await realtime.stop();
      await new Promise<void>((resolve) => realtime.io.close(() => resolve()));
      await http.close();
      await metricsHttp?.close();
      for (const client of [...redisClients, ...(limitsClient ? [limitsClient] : [])]) await client.quit().catch(() => {});
      await backups?.close();
      if (!options.database) await database.close();
    })());
  const shutdown = () =>
    (shuttingDown ??= (async () => {
      draining = true;
      http.log.info({ drain_ms: config.SHUTDOWN_DRAIN_MS }, 'shutdown 1/3: readiness fails; waiting for the balancer to drain this node');
      await sleep(config.SHUTDOWN_DRAIN_MS);
      const spread = config.SHUTDOWN_RECONNECT_SPREAD_MS;
      const sockets = realtime.drain(spread);
      http.log.info({ sockets, spread_ms: spread }, 'shutdown 2/3: clients told to reconnect elsewhere, each at a random moment in the window');
      // Clients leave on their own within the window; the margin covers their last round trip.
      const deadline = Date.now() + spread + DRAIN_MARGIN_MS;
      while (Date.now() < deadline && realtime.io.of('/').sockets.size > 0) await sleep(100);
      http.log.info({ remaining: realtime.io.of('/').sockets.size }, 'shutdown 3/3: closing the remaining sockets and the database');
      await close();
    })());
  return {
    http,
    realtime,
    store,
    database,
    sweeper,
    retention,
    metrics,
    lobbyWaiters,
    url,
    port,
    metricsUrl,
    close,
    shutdown,
    get draining() {
      return draining;
    },
  };
}

/** Vite's hashed output: `assets/<name>-<hash>.<ext>`. */
const IMMUTABLE_ASSET = /[\\/]assets[\\/][^\\/]+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+(\.br|\.gz)?$/;

/** A pass waiting on the database longer than this means the sweeper loop itself is stuck. */
const PASS_IN_FLIGHT_MAX_MS = 120_000;
/** After the reconnect window, how long the last clients get to leave before being closed. */
const DRAIN_MARGIN_MS = 1_000;

function listeningPort(http: FastifyInstance, configured: number): number {
  const address = http.server.address();
  return typeof address === 'object' && address ? address.port : configured;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function sameSecret(given: string | undefined, expected: Buffer): boolean {
  const actual = Buffer.from(given ?? '');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

async function registerWebApp(http: FastifyInstance, webDist: string): Promise<void> {
  const index = join(webDist, 'index.html');
  if (!existsSync(index)) {
    http.log.warn({ webDist }, 'the web app is not built; run `pnpm build` to serve it');
    http.get('/', async (_request, reply) =>
      reply.type('text/plain').send('The web app is not built. Run `pnpm build`, then restart the server.'),
    );
    return;
  }
  await http.register(fastifyStatic, {
    root: webDist,
    wildcard: false,
    index: ['index.html'],
    // The build writes .br and .gz beside each text file (apps/web/vite.config.ts): sent as the
    // browser accepts them, nothing compressed per request.
    preCompressed: true,
    // Source maps stay on disk for whoever debugs a build; they are not public.
    allowedPath: (path) => !path.endsWith('.map'),
    cacheControl: false,
    setHeaders: (reply, path) => {
      // Vite names everything under assets/ by its content hash: a new build is a new name, so
      // browsers and proxies may keep these forever. The shell (index.html) is revalidated.
      reply.header('cache-control', IMMUTABLE_ASSET.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  // Client-side routes (/r/ABC234) get the app shell; unknown API paths stay JSON 404s.
  http.setNotFoundHandler((request, reply) => {
    // A path with a file extension (/assets/x.js) is a missing file, not a client route: a 404
    // makes a stale page after a rebuild obvious instead of serving it HTML.
    const path = request.url.split('?')[0] ?? '';
    const isClientRoute = !path.startsWith('/api/') && !path.startsWith('/socket.io') && !/\.[a-z0-9]+$/i.test(path);
    if (request.method === 'GET' && isClientRoute) {
      return reply.sendFile('index.html');
    }
    return sendError(reply, ErrorCode.NOT_FOUND, `No route ${request.method} ${request.url.split('?')[0]}.`);
  });
}

async function attachRedis(realtime: Realtime, url: string, mode: Config['REDIS_ADAPTER'], prefix: string | undefined, http: FastifyInstance) {
  // No offline queue: while Redis is down, cross-node broadcasts are dropped rather than piled up
  // in memory (I10); clients on other nodes catch up through revision replay.
  const pub = createClient({ url, disableOfflineQueue: true });
  const sub = pub.duplicate();
  for (const client of [pub, sub]) {
    client.on('error', (error: unknown) => http.log.warn({ err: String(error) }, 'redis adapter connection problem'));
  }
  await Promise.all([pub.connect(), sub.connect()]);
  // While Redis is down the adapter's publishes reject; each node keeps serving its own clients
  // and a publish failure must not become an unhandled rejection that ends the process.
  // (The client's command methods are typed read-only; the adapter calls them on the instance,
  // so an own property shadows the prototype's for it.)
  const guarded = pub as { -readonly [K in 'publish' | 'sPublish']: (typeof pub)[K] };
  const publish = pub.publish.bind(pub);
  guarded.publish = ((...args: Parameters<typeof publish>) =>
    publish(...args).catch((error: unknown) => {
      http.log.warn({ err: String(error) }, 'redis publish failed; other nodes catch up by revision');
      return 0;
    })) as typeof pub.publish;
  const sPublish = pub.sPublish.bind(pub);
  guarded.sPublish = ((...args: Parameters<typeof sPublish>) =>
    sPublish(...args).catch((error: unknown) => {
      http.log.warn({ err: String(error) }, 'redis publish failed; other nodes catch up by revision');
      return 0;
    })) as typeof pub.sPublish;
  // Sharded (Redis 7 SPUBLISH, one channel per room): a node receives only the broadcasts of rooms
  // it has sockets in, instead of every room's on the classic adapter's one channel.
  const channels = redisNames(prefix).adapterChannels;
  realtime.io.adapter(
    mode === 'sharded'
      ? createShardedAdapter(pub, sub, { subscriptionMode: 'dynamic', ...(channels ? { channelPrefix: channels } : {}) })
      : createAdapter(pub, sub, channels ? { key: channels } : {}),
  );
  realtime.publisher.clustered = true;
  return [pub, sub];
}
