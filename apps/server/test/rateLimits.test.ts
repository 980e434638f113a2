import { describe, expect, test } from 'vitest';
import { HTTP_LIMITS, LocalBuckets, MAX_LOCAL_BUCKETS, RateLimiter } from '../src/http/rateLimits.ts';

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

  test('I10: past MAX_LOCAL_BUCKETS keys the least recently used bucket is forgotten, never one still in use', async () => {
    const once = { name: 'once a day', max: 1, windowMs: 86_400_000 };
    const buckets = new LocalBuckets();
    expect((await buckets.take('kept', once, 0)).ok).toBe(true);
    expect((await buckets.take('forgotten', once, 0)).ok).toBe(true);
    // 'kept' is asked again (refused: its token is spent): it is now the more recently used of the two.
    expect((await buckets.take('kept', once, 0)).ok).toBe(false);
    // One key too many: the bound holds by forgetting the least recently used, 'forgotten'.
    for (let i = 0; i < MAX_LOCAL_BUCKETS - 1; i++) await buckets.take(`other-${i}`, once, 0);
    expect((await buckets.take('kept', once, 0)).ok).toBe(false);
    expect((await buckets.take('forgotten', once, 0)).ok).toBe(true);
  });
});
