import { describe, expect, test } from 'vitest';
import { HTTP_LIMITS, LocalBuckets, RateLimiter } from '../src/http/rateLimits.ts';

describe('HTTP rate limits (token buckets, time decided by the test)', () => {
  test('a class of 40 joins one lesson at once; the 61st join in that minute waits about a second', async () => {
    let now = 1_000_000;
    const limiter = new RateLimiter(new LocalBuckets(), () => now);
    const join = () => limiter.admit([[HTTP_LIMITS.joinsPerAddressMinute, '10.0.0.1'], [HTTP_LIMITS.joinsPerLessonMinute, 'ABC234']]);
    const decisions = [];
    for (let i = 0; i < 61; i++) decisions.push(await join());
    expect(decisions.slice(0, 60).every((d) => d.ok)).toBe(true);
    expect(decisions[60]).toMatchObject({ ok: false, rule: HTTP_LIMITS.joinsPerLessonMinute, retryAfterMs: 1_000 });
    now += 1_000;
    expect((await join()).ok).toBe(true);
    expect((await join()).ok).toBe(false);
  });

  test('a refused request takes no token, and each key has its own bucket', async () => {
    let now = 0;
    const limiter = new RateLimiter(new LocalBuckets(), () => now);
    const rule = HTTP_LIMITS.signInPerAccount;
    for (let i = 0; i < rule.max; i++) expect((await limiter.admit([[rule, 'a@school.example']])).ok).toBe(true);
    for (let i = 0; i < 50; i++) expect((await limiter.admit([[rule, 'a@school.example']])).ok).toBe(false);
    expect((await limiter.admit([[rule, 'b@school.example']])).ok).toBe(true);
    now += rule.windowMs / rule.max;
    expect((await limiter.admit([[rule, 'a@school.example']])).ok).toBe(true);
  });
});
