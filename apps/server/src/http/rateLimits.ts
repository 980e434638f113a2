/**
 * The HTTP rate limits (docs/operations.md, "Rate limits"), shaped for schools: a whole class
 * behind one school address joins at once, a staff room shares one address, and a guesser or a
 * script is stopped. Each request is counted against several keys (its address, its lesson, the
 * account it names) before any database work or password hashing, so a refusal costs nothing.
 *
 * Each limit is a token bucket. With REDIS_URL set every node keeps its buckets in Redis, so adding
 * nodes does not loosen a limit; while Redis cannot answer, each node counts on its own (I10:
 * bounded either way).
 * The address is the socket peer's, or the forwarded one only from TRUST_PROXY's proxies.
 */
import { ErrorCode } from '@wb/protocol';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { sendError } from './errors.ts';
import { LRUCache } from 'lru-cache';

export interface LimitRule {
  /** Names the counter (and the limit in docs/operations.md). */
  readonly name: string;
  readonly max: number;
  readonly windowMs: number;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** Every HTTP limit with its numbers. docs/operations.md lists the same table. */
export const HTTP_LIMITS = {
  /** A staff room signing in behind one address, with typos. */
  signInPerAddress: { name: 'sign-in per address', max: 20, windowMs: MINUTE_MS },
  /**
   * One account from anywhere: rotating addresses buys a guesser 10 tries per 5 minutes, hopeless
   * against a 10-character password; the teacher is locked out for at most 5 minutes meanwhile.
   */
  signInPerAccount: { name: 'sign-in per account', max: 10, windowMs: 5 * MINUTE_MS },
  /** A staff training session creating accounts behind one address. */
  signUpPerAddress: { name: 'sign-up per address', max: 30, windowMs: MINUTE_MS },
  /** Lessons started from one address (teachers of a school behind one address). */
  roomsPerAddress: { name: 'rooms per address', max: 20, windowMs: MINUTE_MS },
  /** Lessons started by one signed-in account: a school day's worth and then some. */
  roomsPerTeacher: { name: 'rooms per teacher', max: 30, windowMs: HOUR_MS },
  /** Joins from one address in a minute: several classes behind one school NAT at 9:00. */
  joinsPerAddressMinute: { name: 'joins per address per minute', max: 200, windowMs: MINUTE_MS },
  /** ...and in an hour: a whole school's morning, not a script's. */
  joinsPerAddressHour: { name: 'joins per address per hour', max: 1_000, windowMs: HOUR_MS },
  /** Joins into one lesson in a minute: a class of 40 (and its rejoins) at once. */
  joinsPerLessonMinute: { name: 'joins per lesson per minute', max: 60, windowMs: MINUTE_MS },
  /** ...and in an hour: a lecture hall, not 1,000 fake students. */
  joinsPerLessonHour: { name: 'joins per lesson per hour', max: 400, windowMs: HOUR_MS },
  /** Image uploads from one address: a class behind one school address pasting screenshots. */
  imageUploadsPerAddress: { name: 'image uploads per address', max: 120, windowMs: MINUTE_MS },
  /** Image uploads into one lesson: a 20-page worksheet at once, a few times a minute. */
  imageUploadsPerLesson: { name: 'image uploads per lesson', max: 100, windowMs: MINUTE_MS },
  /**
   * Image reads from one address: 40 pupils behind one address opening a board of 50 images at
   * once (browsers cache them after that: immutable).
   */
  imageReadsPerAddress: { name: 'image reads per address', max: 3_000, windowMs: MINUTE_MS },
  /**
   * Reads through share links from one address (the lesson, each board, replay pages, images):
   * a class of absent students behind one school address opening a 50-page lesson, not a guesser.
   */
  sharedReadsPerAddress: { name: 'shared reads per address', max: 600, windowMs: MINUTE_MS },
} as const satisfies Record<string, LimitRule>;

/** Password hashes (argon2id, ~19 MiB and tens of ms each) in flight per node at most; more wait their turn by retrying. */
export const MAX_CONCURRENT_PASSWORD_HASHES = 4;

/**
 * A token bucket per (rule, key): `max` tokens, refilled evenly over `windowMs`, one taken per
 * request. A burst of `max` passes at once (a class joining at 9:00), then the pace is `max` per
 * window; a refused request takes nothing, so an honest client recovers as soon as it slows down.
 */
export interface BucketStore {
  /** Takes a token; when there is none, how long until there is one (ms). */
  take(key: string, rule: LimitRule, now: number): Promise<{ ok: true } | { ok: false; retryAfterMs: number }>;
}

/** Buckets kept by keys this node saw at most (I10); the least recently used go first. */
export const MAX_LOCAL_BUCKETS = 50_000;

/** Buckets on this node: one process, or the fallback while Redis is away. */
export class LocalBuckets implements BucketStore {
  private readonly buckets = new LRUCache<string, { tokens: number; at: number }>({ max: MAX_LOCAL_BUCKETS });

  async take(key: string, rule: LimitRule, now: number): Promise<{ ok: true } | { ok: false; retryAfterMs: number }> {
    const rate = rule.max / rule.windowMs;
    const found = this.buckets.get(key);
    const tokens = found ? Math.min(rule.max, found.tokens + Math.max(0, now - found.at) * rate) : rule.max;
    const ok = tokens >= 1;
    this.buckets.set(key, { tokens: ok ? tokens - 1 : tokens, at: now });
    return ok ? { ok: true } : { ok: false, retryAfterMs: Math.ceil((1 - tokens) / rate) };
  }
}

/** The part of a node-redis client the shared buckets use. */
export interface RedisBucketClient {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/**
 * The same bucket in Redis, atomic in one script; it expires once it would be full again anyway.
 * `now` comes from the calling node: nodes' clocks differ by milliseconds, and time never runs back
 * inside a bucket (max(0, ...)).
 */
const TAKE_SCRIPT = `
local max = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local b = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens = tonumber(b[1])
local at = tonumber(b[2])
if tokens == nil or at == nil then tokens = max at = now end
tokens = math.min(max, tokens + math.max(0, now - at) * rate)
local ok = 0
if tokens >= 1 then tokens = tokens - 1 ok = 1 end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'at', tostring(math.max(now, at)))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
if ok == 1 then return 0 end
return math.ceil((1 - tokens) / rate)`;

/** Buckets in Redis, shared by every node; this node's own while Redis fails. */
export class RedisBuckets implements BucketStore {
  private readonly local = new LocalBuckets();
  private lastWarning = 0;

  constructor(
    private readonly client: RedisBucketClient,
    private readonly log: FastifyBaseLogger,
    private readonly prefix = 'wb:limit:',
  ) {}

  async take(key: string, rule: LimitRule, now: number): Promise<{ ok: true } | { ok: false; retryAfterMs: number }> {
    try {
      const wait = Number(
        await this.client.eval(TAKE_SCRIPT, {
          keys: [`${this.prefix}${key}`],
          arguments: [String(rule.max), String(rule.max / rule.windowMs), String(now), String(rule.windowMs)],
        }),
      );
      return wait > 0 ? { ok: false, retryAfterMs: wait } : { ok: true };
    } catch (error) {
      if (now - this.lastWarning > 10_000) {
        this.lastWarning = now;
        this.log.warn({ err: String(error) }, 'rate limits: Redis failed; counting on this node meanwhile');
      }
      return this.local.take(key, rule, now);
    }
  }
}

export type LimitCheck = readonly [rule: LimitRule, key: string];

export type LimitDecision = { ok: true } | { ok: false; rule: LimitRule; retryAfterMs: number };

export class RateLimiter {
  private hashing = 0;

  constructor(
    private readonly buckets: BucketStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes a token from every check's bucket; refused when any is empty. */
  async admit(checks: readonly LimitCheck[]): Promise<LimitDecision> {
    const now = this.now();
    const taken = await Promise.all(checks.map(async ([rule, key]) => ({ rule, taken: await this.buckets.take(`${rule.name}|${key}`, rule, now) })));
    for (const { rule, taken: t } of taken) if (!t.ok) return { ok: false, rule, retryAfterMs: t.retryAfterMs };
    return { ok: true };
  }

  /** Takes the request's tokens; when one is missing, answers `429 rate_limited` with Retry-After and returns false. */
  async allow(reply: FastifyReply, checks: readonly LimitCheck[]): Promise<boolean> {
    const decision = await this.admit(checks);
    if (decision.ok) return true;
    reply.header('retry-after', String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))));
    sendError(reply, ErrorCode.RATE_LIMITED, `Too many requests (${decision.rule.name}: ${decision.rule.max} per ${decision.rule.windowMs / 1000} s); slow down.`);
    return false;
  }

  /**
   * Runs a password hash if fewer than MAX_CONCURRENT_PASSWORD_HASHES are in flight on this node,
   * else answers `429 rate_limited` (retry in a second) and returns null: a flood of sign-ins from
   * many addresses cannot queue up hashing work.
   */
  async withPasswordHash<T>(reply: FastifyReply, work: () => Promise<T>): Promise<T | null> {
    if (this.hashing >= MAX_CONCURRENT_PASSWORD_HASHES) {
      reply.header('retry-after', '1');
      sendError(reply, ErrorCode.RATE_LIMITED, 'The server is checking many passwords right now; retry in a second.');
      return null;
    }
    this.hashing++;
    try {
      return await work();
    } finally {
      this.hashing--;
    }
  }
}

/** The account key of a sign-in: the email as the store matches it. */
export const accountKey = (email: unknown): string => (typeof email === 'string' ? email.trim().toLowerCase().slice(0, 254) : '');
