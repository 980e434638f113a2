import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

describe('config', () => {
  test('defaults: port 3000, embedded database, 9 s lease renewed every ~3 s, swept every second', () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(3000);
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.PGLITE_DIR).toMatch(/\.data\/pglite$/);
    expect(config.LEASE_TTL_MS).toBe(9_000);
    expect(config.LEASE_RENEW_MS).toBe(3_000);
    expect(config.SWEEP_INTERVAL_MS).toBe(1_000);
    expect([config.CURSOR_TICK_MIN_MS, config.CURSOR_TICK_MS]).toEqual([12, 33]);
    expect(config.ALLOWED_ORIGINS).toEqual([]);
    expect(config.WB_TEST_HOOKS).toBe(false);
  });

  test('an invalid value stops start-up with a message naming the variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL: must be a postgres:\/\/ URL/);
    expect(() => loadConfig({ ALLOWED_ORIGINS: 'not a url' })).toThrow(/ALLOWED_ORIGINS/);
    expect(() => loadConfig({ LEASE_TTL_MS: '4000', LEASE_RENEW_MS: '3000' })).toThrow(/LEASE_RENEW_MS/);
    expect(() => loadConfig({ CURSOR_TICK_MS: '20', CURSOR_TICK_MIN_MS: '30' })).toThrow(/CURSOR_TICK_MIN_MS/);
  });

  test('a rejected URL is shown without its password', () => {
    try {
      loadConfig({ REDIS_URL: 'http://user:secret@host' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect(String(error)).toMatch(/REDIS_URL/);
      expect(String(error)).not.toMatch(/secret/);
    }
  });

  test('an empty variable counts as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', PORT: '' }).PORT).toBe(3000);
  });

  test('lists parse: ALLOWED_ORIGINS is comma-separated', () => {
    expect(loadConfig({ ALLOWED_ORIGINS: 'https://a.school, http://localhost:5173' }).ALLOWED_ORIGINS).toEqual([
      'https://a.school',
      'http://localhost:5173',
    ]);
  });

  test('PUBLIC_URL: an http(s) origin, kept as its origin; a path, a query or another scheme is refused', () => {
    expect(loadConfig({}).PUBLIC_URL).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: 'https://Board.School.org/' }).PUBLIC_URL).toBe('https://board.school.org');
    expect(loadConfig({ PUBLIC_URL: 'http://192.168.1.20:3000' }).PUBLIC_URL).toBe('http://192.168.1.20:3000');
    for (const bad of ['board.school.org', 'ftp://board.school.org', 'https://school.org/whiteboard', 'https://board.school.org/?x=1', 'https://user:pw@board.school.org']) {
      expect(() => loadConfig({ PUBLIC_URL: bad }), bad).toThrow(/PUBLIC_URL/);
    }
  });

  test('TRUST_PROXY: off by default, a hop count, or a list of proxy addresses and CIDRs', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).TRUST_PROXY).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.5, 192.168.0.0/16' }).TRUST_PROXY).toEqual(['10.0.0.5', '192.168.0.0/16']);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/99' })).toThrow(/TRUST_PROXY/);
  });

  test('secrets from files: NAME_FILE wins over NAME, an unreadable file names the variable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wb-secrets-'));
    try {
      writeFileSync(join(dir, 'url'), 'postgres://wb_app:from-file@db:5432/whiteboard\n');
      const config = loadConfig({ DATABASE_URL_FILE: join(dir, 'url'), DATABASE_URL: 'postgres://other@x/y' });
      expect(config.DATABASE_URL).toBe('postgres://wb_app:from-file@db:5432/whiteboard');
      expect(() => loadConfig({ METRICS_TOKEN_FILE: join(dir, 'missing') })).toThrow(/METRICS_TOKEN_FILE: cannot read .*ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('shutdown drain defaults: 5 s each in production, none elsewhere; a short METRICS_TOKEN is refused unseen', () => {
    expect(loadConfig({ NODE_ENV: 'production' })).toMatchObject({ SHUTDOWN_DRAIN_MS: 5_000, SHUTDOWN_RECONNECT_SPREAD_MS: 5_000, DATABASE_MIGRATE: true });
    expect(loadConfig({})).toMatchObject({ SHUTDOWN_DRAIN_MS: 0, SHUTDOWN_RECONNECT_SPREAD_MS: 0 });
    expect(loadConfig({ DATABASE_MIGRATE: 'false' }).DATABASE_MIGRATE).toBe(false);
    expect(() => loadConfig({ METRICS_TOKEN: 'short-secret' })).toThrow(/METRICS_TOKEN/);
    expect(() => loadConfig({ METRICS_TOKEN: 'short-secret' })).not.toThrow(/short-secret/);
  });

  test('sign-in and retention: providers as JSON (https, or http on loopback only; own ids), sign-up, admins, a year of retention by default', () => {
    const defaults = loadConfig({});
    expect([defaults.OIDC_PROVIDERS, defaults.SIGN_UP, defaults.SIGN_UP_EMAIL_DOMAINS, defaults.ADMIN_EMAILS, defaults.RETENTION_DAYS]).toEqual([[], 'open', [], [], 365]);
    const provider = { id: 'google', name: 'Google', issuer: 'https://accounts.google.com', clientId: 'c', clientSecret: 'the-client-secret' };
    const config = loadConfig({
      OIDC_PROVIDERS: JSON.stringify([provider, { ...provider, id: 'local', issuer: 'http://127.0.0.1:9000' }]),
      SIGN_UP_EMAIL_DOMAINS: 'School.org, district.org',
      ADMIN_EMAILS: 'Admin@School.org',
      RETENTION_DAYS: '0',
    });
    expect(config.OIDC_PROVIDERS.map((p) => [p.id, p.requireVerifiedEmail])).toEqual([['google', true], ['local', true]]);
    expect([config.SIGN_UP_EMAIL_DOMAINS, config.ADMIN_EMAILS, config.RETENTION_DAYS]).toEqual([['school.org', 'district.org'], ['admin@school.org'], 0]);
    expect(() => loadConfig({ OIDC_PROVIDERS: JSON.stringify([{ ...provider, issuer: 'http://idp.school.org' }]) })).toThrow(/OIDC_PROVIDERS.*https/);
    expect(() => loadConfig({ OIDC_PROVIDERS: JSON.stringify([provider, provider]) })).toThrow(/own id/);
    expect(() => loadConfig({ OIDC_PROVIDERS: '{not json' })).toThrow(/JSON array/);
    // The client secret never appears in a configuration error.
    const refusal = (() => {
      try {
        loadConfig({ OIDC_PROVIDERS: JSON.stringify([{ ...provider, id: 'Bad Id' }]) });
        return 'accepted';
      } catch (error) {
        return String(error);
      }
    })();
    expect(refusal).toMatch(/OIDC_PROVIDERS\.0\.id/);
    expect(refusal).not.toMatch(/the-client-secret/);
    expect(() => loadConfig({ SIGN_UP: 'maybe' })).toThrow(/SIGN_UP/);
  });
});
