import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../apps/server/src/config.ts';

// There is no Docker engine on CI machines: the compose file is checked by parsing it.
interface Service {
  image?: string;
  build?: string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
  healthcheck?: unknown;
}

const compose = parse(readFileSync('docker-compose.yml', 'utf8')) as { services: Record<string, Service> };

describe('docker-compose.yml', () => {
  test('has postgres, redis and the app built from the Dockerfile', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['app', 'postgres', 'redis']);
    expect(compose.services.app?.build).toBe('.');
    expect(existsSync('Dockerfile')).toBe(true);
    expect(compose.services.postgres?.image).toMatch(/^postgres:/);
    expect(compose.services.redis?.image).toMatch(/^redis:/);
  });

  test('wires the app to both services by DATABASE_URL and REDIS_URL, and waits for them to be healthy', () => {
    const app = compose.services.app!;
    const env = app.environment!;
    const pg = compose.services.postgres!.environment!;
    expect(new URL(env.DATABASE_URL!).hostname).toBe('postgres');
    expect(new URL(env.DATABASE_URL!).username).toBe(pg.POSTGRES_USER);
    expect(new URL(env.DATABASE_URL!).password).toBe(pg.POSTGRES_PASSWORD);
    expect(new URL(env.DATABASE_URL!).pathname).toBe(`/${pg.POSTGRES_DB}`);
    expect(new URL(env.REDIS_URL!).hostname).toBe('redis');
    expect(app.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
    });
    expect(compose.services.postgres!.healthcheck).toBeDefined();
    expect(compose.services.redis!.healthcheck).toBeDefined();
  });

  test('the app environment passes the server config validation and listens on the published port', () => {
    const env = compose.services.app!.environment!;
    const config = loadConfig(env);
    expect(config.DATABASE_URL).toBe(env.DATABASE_URL);
    expect(config.REDIS_URL).toBe(env.REDIS_URL);
    expect(config.HOST).toBe('0.0.0.0');
    expect(compose.services.app!.ports).toContain(`${config.PORT}:${config.PORT}`);
  });

  test('the Dockerfile installs from the lockfile, builds the web app and starts the server', () => {
    const dockerfile = readFileSync('Dockerfile', 'utf8');
    expect(dockerfile).toMatch(/pnpm install --frozen-lockfile/);
    expect(dockerfile).toMatch(/pnpm build/);
    expect(dockerfile).toMatch(/apps\/server\/src\/main\.ts/);
    expect(dockerfile).toMatch(/HOST=0\.0\.0\.0/);
  });
});
