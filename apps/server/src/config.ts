/**
 * Every environment variable the server reads, in one place, validated with defaults.
 * An invalid value stops the server with a message naming the variable (see docs/operations.md).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { parseTrustProxy } from './http/proxyTrust.ts';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

/**
 * One OpenID provider teachers may sign in with (docs/operations.md, "Teacher sign-in"). `id`
 * names it in the callback URL (`/api/teacher/oidc/<id>/callback`, to register at the provider);
 * `name` is the button's label. An `http:` issuer is accepted only on a loopback address (a
 * provider on the same machine); anything else must be https.
 */
const OidcProvider = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]{1,40}$/, 'lowercase letters, digits and - (at most 40)'),
  name: z.string().min(1).max(60),
  issuer: z.url({ protocol: /^https?$/ }).refine((issuer) => {
    const url = new URL(issuer);
    return url.protocol === 'https:' || ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  }, 'must be https (http only on a loopback address)'),
  clientId: z.string().min(1),
  clientSecret: z.string().min(1).optional(),
  /**
   * Default true: a sign-in needs `email_verified: true` from the provider. False only for a
   * provider that never sends the claim but whose addresses are all the district's own (a
   * single-tenant Microsoft Entra ID issuer).
   */
  requireVerifiedEmail: z.boolean().default(true),
});
export type OidcProviderConfig = z.infer<typeof OidcProvider>;

const commaList = z
  .string()
  .default('')
  .transform((v) => v.split(',').map((o) => o.trim().toLowerCase()).filter(Boolean));

const ms = (fallback: number, min: number) => z.coerce.number().int().min(min).max(3_600_000).default(fallback);

const schema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
    /**
     * 127.0.0.1 keeps a laptop's lesson private; 0.0.0.0 (or `::`, IPv6 too) lets students on the
     * LAN join (`pnpm start:class`), and the start message then lists the addresses they can open.
     */
    HOST: z.string().min(1).default('127.0.0.1'),
    /**
     * The address students open (`https://board.school.org`), shown in the teacher's invitation
     * and QR code instead of one the server works out (docs/operations.md, "The join address"):
     * a deployment behind a proxy or in a container knows its public name, the server does not.
     * An origin only: the app is served at the root of it.
     */
    PUBLIC_URL: z
      .string()
      .transform((value, context) => {
        const url = URL.canParse(value) ? new URL(value) : null;
        const origin = url && /^https?:$/.test(url.protocol) && url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
        if (origin) return url.origin;
        context.addIssue({ code: 'custom', message: 'must be an http(s) origin (`https://board.school.org`): the app is served at its root' });
        return z.NEVER;
      })
      .optional(),
    /** Unset: embedded PGlite in PGLITE_DIR. Set: real Postgres (node-postgres). */
    DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
    PGLITE_DIR: z.string().min(1).default(resolve(repoRoot, '.data/pglite')),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(2).max(100).default(10),
    /**
     * false: the server does not apply migrations at start (`pnpm db:migrate` or the compose
     * `migrate` service did, as the owner), so it can connect as the least-privilege `wb_app` role.
     */
    DATABASE_MIGRATE: z
      .enum(['0', '1', 'true', 'false'])
      .default('true')
      .transform((v) => v === '1' || v === 'true'),
    /** Set to join several server processes through the Socket.IO Redis adapter. */
    REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// URL').optional(),
    /**
     * `sharded`: the Socket.IO sharded Redis adapter (Redis 7+, SPUBLISH per room), so a node gets
     * only its rooms' broadcasts. `classic`: one channel every node reads (Redis < 7).
     */
    REDIS_ADAPTER: z.enum(['classic', 'sharded']).default('classic'),
    /**
     * Unset: rate-limit keys `wb:limit:*` and the adapter's channels `socket.io*`. Set (`district-a`):
     * `district-a:limit:*` and `district-a:socket.io*`, so two deployments (or a bench) can share
     * one Redis without sharing limits or broadcasts. Every node of one deployment needs the same.
     */
    REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_.-]{1,40}$/, 'letters, digits, _ . - (at most 40)').optional(),
    /** Comma-separated origins allowed for HTTP and the socket handshake, besides same-origin. */
    ALLOWED_ORIGINS: z
      .string()
      .default('')
      .transform((v) => v.split(',').map((o) => o.trim()).filter(Boolean))
      .pipe(z.array(z.url({ protocol: /^https?$/ }))),
    /**
     * Proxies whose forwarded headers are believed (docs/operations.md): off by default, so a
     * made-up X-Forwarded-For cannot choose the address rate limits count against. A hop count
     * (`1` behind one proxy) or a comma-separated list of proxy addresses and CIDRs.
     */
    TRUST_PROXY: z
      .string()
      .default('')
      .transform((value, context) => {
        try {
          return parseTrustProxy(value);
        } catch (error) {
          context.addIssue({ code: 'custom', message: `must be off, a hop count or a list of addresses/CIDRs (${String(error)})` });
          return z.NEVER;
        }
      }),
    /** A presence lease lives this long without a renewal (3 renewals at the default interval). */
    LEASE_TTL_MS: ms(9_000, 500),
    /** The server prompts each client to renew about this often, with +-20% jitter. */
    LEASE_RENEW_MS: ms(3_000, 100),
    SWEEP_INTERVAL_MS: ms(1_000, 50),
    /** Renewals that arrive within one tick are written in one statement. */
    RENEW_BATCH_MS: ms(50, 1),
    /** A fresh drag lock's first term: short until the holder's first move confirms the grant. */
    LOCK_FIRST_TERM_MS: ms(2_000, 100),
    /** A confirmed drag lock lives this long without a move (holder alive but silent). */
    LOCK_TTL_MS: ms(5_000, 200),
    /** Cursor batches per room go out at least this often, even on a busy node (~30 Hz). */
    CURSOR_TICK_MS: ms(33, 5),
    /** ...and this often on a calm node (~80 Hz); the tick moves between the two with the event loop's load. */
    CURSOR_TICK_MIN_MS: ms(12, 5),
    /**
     * On an overloaded node (event loop over 90 % busy) the tick stretches past CURSOR_TICK_MS up to
     * this (default twice CURSOR_TICK_MS: ~15 Hz): cursors, ink and drags shed rate first, merged
     * into fewer batches (issue 42). Equal to CURSOR_TICK_MS: no shedding.
     */
    CURSOR_TICK_OVERLOAD_MS: z.coerce.number().int().min(5).max(60_000).optional(),
    /** A session token is valid this long after it was issued (one school day by default). */
    SESSION_TTL_MS: z.coerce.number().int().min(60_000).max(30 * 24 * 3_600_000).default(12 * 3_600_000),
    /** Room events kept per room for reconnect replay; older reconnects get a snapshot. */
    EVENT_LOG_KEEP: z.coerce.number().int().min(10).max(1_000_000).default(1_000),
    /** Socket events per second per socket (token bucket refill) and the burst allowed. */
    SOCKET_EVENTS_PER_SEC: z.coerce.number().int().min(1).max(10_000).default(90),
    SOCKET_EVENT_BURST: z.coerce.number().int().min(1).max(100_000).default(180),
    /**
     * On SIGTERM, readiness fails this long before anyone is told to leave (the balancer drains).
     * Default 5 s with NODE_ENV=production (the image), else 0 (a laptop or a test has no balancer).
     */
    SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(600_000).optional(),
    /** Then clients are told to reconnect elsewhere, each at a random moment within this window (same defaults). */
    SHUTDOWN_RECONNECT_SPREAD_MS: z.coerce.number().int().min(0).max(600_000).optional(),
    /** Liveness fails when the event loop was this late (ms) within its window. */
    LIVENESS_MAX_LAG_MS: ms(10_000, 100),
    /** Serve /metrics on this port (its own listener, on HOST) instead of the app's port. */
    METRICS_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
    /** Or serve /metrics on the app's port only with `Authorization: Bearer <token>`. */
    METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Enables the fault-injection routes under /__test (the release drill). Never in production. */
    WB_TEST_HOOKS: z
      .enum(['0', '1', 'true', 'false'])
      .default('0')
      .transform((v) => v === '1' || v === 'true'),
    NODE_ENV: z.string().default('development'),
    /** Distinct images one lesson may hold (docs/protocol.md, "Images"); an upload past it is refused `quota_exceeded`. */
    LESSON_IMAGES_MAX: z.coerce.number().int().min(1).max(100_000).default(500),
    /** Their total stored bytes per lesson (default 200 MB); an upload past it is refused `quota_exceeded`. */
    LESSON_IMAGE_BYTES_MAX: z.coerce.number().int().min(1).max(100 * 1024 ** 3).default(200 * 1024 * 1024),
    /**
     * Live (not deleted) elements one board may hold: the class board and each private board alike
     * (docs/store.md, "The element cap"); a create past it is refused `board_full`.
     */
    BOARD_ELEMENTS_MAX: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
    /**
     * The OpenID providers teachers may sign in with: a JSON array of `{ id, name, issuer,
     * clientId, clientSecret?, requireVerifiedEmail? }` (or OIDC_PROVIDERS_FILE, a secret). Unset:
     * email and password only.
     */
    OIDC_PROVIDERS: z
      .string()
      .default('[]')
      .transform((value, context) => {
        try {
          const parsed: unknown = JSON.parse(value);
          return parsed;
        } catch {
          context.addIssue({ code: 'custom', message: 'must be a JSON array of providers' });
          return z.NEVER;
        }
      })
      .pipe(z.array(OidcProvider).max(20))
      .refine((list) => new Set(list.map((p) => p.id)).size === list.length, 'each provider needs its own id'),
    /**
     * `open` (the default, a laptop's): anyone may make an account. `closed`: no new accounts,
     * neither with a password nor through a provider. SIGN_UP_EMAIL_DOMAINS limits an open sign-up
     * to addresses at those domains.
     */
    SIGN_UP: z.enum(['open', 'closed']).default('open'),
    /** Comma-separated domains (`school.org,district.org`): only their addresses may make an account. */
    SIGN_UP_EMAIL_DOMAINS: commaList.pipe(z.array(z.string().regex(/^[a-z0-9.-]+\.[a-z]{2,}$/, 'a domain such as school.org'))),
    /** Comma-separated emails of the admin accounts: they list teachers, disable one, issue reset links. */
    ADMIN_EMAILS: commaList,
    /**
     * Lessons nobody used for this many days (no join, no departure, no end of lesson) are deleted
     * with everything in them by the server itself (docs/privacy.md). 0 keeps them for good.
     */
    RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(365),
    /** How often each node looks for lessons past their term (an hour by default). */
    RETENTION_SWEEP_INTERVAL_MS: z.coerce.number().int().min(1_000).max(24 * 3_600_000).default(3_600_000),
    /** Where the built web app is; the server serves it on the same port as the API. */
    WEB_DIST: z.string().default(resolve(repoRoot, 'apps/web/dist')),
  })
  .refine((c) => !(c.WB_TEST_HOOKS && c.NODE_ENV === 'production'), {
    message: 'the fault-injection hooks cannot be enabled in production',
    path: ['WB_TEST_HOOKS'],
  })
  .refine((c) => c.CURSOR_TICK_OVERLOAD_MS === undefined || c.CURSOR_TICK_MS <= c.CURSOR_TICK_OVERLOAD_MS, {
    message: 'CURSOR_TICK_OVERLOAD_MS must not be below CURSOR_TICK_MS (set them equal for no shedding)',
    path: ['CURSOR_TICK_OVERLOAD_MS'],
  })
  .refine((c) => c.CURSOR_TICK_MIN_MS <= c.CURSOR_TICK_MS, {
    message: 'CURSOR_TICK_MIN_MS must not exceed CURSOR_TICK_MS (set them equal for a fixed tick)',
    path: ['CURSOR_TICK_MIN_MS'],
  })
  .refine((c) => c.LEASE_RENEW_MS * 2 <= c.LEASE_TTL_MS, {
    message: 'LEASE_RENEW_MS must be at most half of LEASE_TTL_MS, so one lost renewal does not evict anyone',
    path: ['LEASE_RENEW_MS'],
  })
  .transform((c) => ({
    ...c,
    SHUTDOWN_DRAIN_MS: c.SHUTDOWN_DRAIN_MS ?? (c.NODE_ENV === 'production' ? PRODUCTION_DRAIN_MS : 0),
    SHUTDOWN_RECONNECT_SPREAD_MS: c.SHUTDOWN_RECONNECT_SPREAD_MS ?? (c.NODE_ENV === 'production' ? PRODUCTION_DRAIN_MS : 0),
  }));

/** The production default of both shutdown phases (ms): a balancer probing every 2 s sees two failures. */
const PRODUCTION_DRAIN_MS = 5_000;

export type Config = z.infer<typeof schema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Secrets may come from files (Docker/Kubernetes secrets): `<NAME>_FILE=/run/secrets/x` sets NAME
 * to the file's content, trimmed. It wins over NAME itself, so an image default cannot shadow it.
 */
export const FILE_VARIABLES = ['DATABASE_URL', 'REDIS_URL', 'METRICS_TOKEN', 'OIDC_PROVIDERS'] as const;

/** Reads the configuration from an environment (process.env by default). */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // An empty variable means "not set", as in most shells' `VAR= cmd`.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const unreadable: string[] = [];
  for (const name of FILE_VARIABLES) {
    const file = present[`${name}_FILE`];
    if (file === undefined) continue;
    try {
      present[name] = readFileSync(file, 'utf8').trim();
    } catch (error) {
      unreadable.push(`${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
  }
  if (unreadable.length > 0) throw new ConfigError(unreadable);
  const parsed = schema.safeParse(present);
  if (parsed.success) return parsed.data;
  throw new ConfigError(
    parsed.error.issues.map((issue) => {
      const name = issue.path.join('.') || 'configuration';
      const value = typeof issue.path[0] === 'string' ? present[issue.path[0]] : undefined;
      const shown = value === undefined ? '' : ` (got ${JSON.stringify(redact(issue.path[0] as string, value))})`;
      return `${name}: ${issue.message}${shown}`;
    }),
  );
}

function redact(name: string, value: string): string {
  if (/TOKEN$/.test(name) || name === 'OIDC_PROVIDERS') return '***';
  return /URL$/.test(name) ? value.replace(/\/\/[^@/]*@/, '//***@') : value;
}
