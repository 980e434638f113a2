import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { HTTP_LIMITS, RateLimiter, RedisBuckets } from '../src/http/rateLimits.ts';
import { redisNames } from '../src/redisNames.ts';

function redisUnavailableReason(): string | null {
  if (process.env.TEST_REDIS_URL) return null;
  if (process.env.CI) throw new Error('CI is set but TEST_REDIS_URL is not: the Redis suites must run on CI.');
  return 'TEST_REDIS_URL is not set';
}

describe('REDIS_PREFIX: the names a deployment uses in a shared Redis', () => {
  test('unset, the names of earlier releases (a rolling upgrade keeps every node hearing the others); set, its own', () => {
    expect(redisNames(undefined)).toEqual({ limitKeys: 'wb:limit:', adapterChannels: undefined });
    expect(redisNames('district-a')).toEqual({ limitKeys: 'district-a:limit:', adapterChannels: 'district-a:socket.io' });
  });

  const skip = redisUnavailableReason();
  describe.skipIf(skip !== null)(`on a real Redis${skip ? ` (skipped: ${skip})` : ''}`, () => {
    const client = createClient({ url: process.env.TEST_REDIS_URL });
    const run = `wbtest-${randomBytes(4).toString('hex')}`;
    beforeAll(async () => {
      await client.connect();
    });
    afterAll(async () => {
      const keys = await client.keys(`${run}-*`);
      if (keys.length) await client.del(keys);
      await client.quit();
    });

    test('two deployments with different prefixes on one Redis do not share a rate-limit bucket', async () => {
      const now = 1_000_000;
      const bucketsOf = (prefix: string) => new RateLimiter(new RedisBuckets(client, Fastify().log, redisNames(prefix).limitKeys), () => now);
      const a = bucketsOf(`${run}-a`);
      const b = bucketsOf(`${run}-b`);
      const rule = HTTP_LIMITS.signInPerAccount;
      for (let i = 0; i < rule.max; i++) expect((await a.admit([[rule, 'teacher@school.example']])).ok).toBe(true);
      expect((await a.admit([[rule, 'teacher@school.example']])).ok).toBe(false);
      expect((await b.admit([[rule, 'teacher@school.example']])).ok).toBe(true);
      expect(await client.exists(`${run}-a:limit:${rule.name}|teacher@school.example`)).toBe(1);
    });
  });
});
