import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../apps/server/src/config.ts';

// There is no Docker engine on CI machines: the compose file, the balancer's configuration and the
// Dockerfile are checked by reading them. `pnpm smoke:dist` runs the image's command for real.
interface Service {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }> | string[];
  ports?: string[];
  expose?: string[];
  secrets?: string[];
  healthcheck?: { test: string[]; start_period?: string };
  volumes?: string[];
  stop_grace_period?: string;
  deploy?: { replicas?: number };
}

const compose = parse(readFileSync('docker-compose.yml', 'utf8')) as {
  services: Record<string, Service>;
  secrets: Record<string, { file: string }>;
};
const services = compose.services;
const app = services.app!;
const haproxy = readFileSync('deploy/haproxy/haproxy.cfg', 'utf8');
const dockerfile = readFileSync('Dockerfile', 'utf8');
const seconds = (d: string | undefined) => Number(/^(\d+)s$/.exec(d ?? '')?.[1] ?? Number.NaN);

describe('docker-compose.yml: a district deployment', () => {
  test('has postgres, redis, a one-shot migrate, the app and a balancer', () => {
    expect(Object.keys(services).sort()).toEqual(['app', 'balancer', 'migrate', 'postgres', 'redis']);
    expect(app.build).toBe('.');
    expect(services.migrate!.build).toBe('.');
    expect(services.postgres!.image).toMatch(/^postgres:/);
    expect(services.redis!.image).toMatch(/^redis:7/);
    expect(services.balancer!.image).toMatch(/^haproxy:/);
  });

  test('scales: no host port on the app (replicas cannot collide), only the balancer publishes one', () => {
    expect(app.ports).toBeUndefined();
    expect(app.deploy?.replicas).toBeGreaterThanOrEqual(2);
    expect(services.balancer!.ports).toEqual(['80:80', '443:443']);
    for (const name of ['postgres', 'redis', 'migrate']) expect(services[name]!.ports).toBeUndefined();
  });

  test('migrate runs once as the owner before any replica; the app runs as wb_app with migrations off', () => {
    const migrate = services.migrate!;
    expect(migrate.command).toEqual(['node', 'dist/server/migrate.mjs']);
    expect(migrate.environment).toMatchObject({ DATABASE_URL_FILE: '/run/secrets/owner_database_url', WB_APP_PASSWORD_FILE: '/run/secrets/wb_app_password' });
    expect(app.depends_on).toMatchObject({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
      migrate: { condition: 'service_completed_successfully' },
    });
    expect(app.environment).toMatchObject({ DATABASE_URL_FILE: '/run/secrets/app_database_url', DATABASE_MIGRATE: 'false' });
  });

  test('secrets come from files, each service gets only its own, no password in the file', () => {
    expect(Object.keys(compose.secrets).sort()).toEqual(['app_database_url', 'owner_database_url', 'postgres_password', 'wb_app_password']);
    for (const secret of Object.values(compose.secrets)) expect(secret.file).toMatch(/^\.\/deploy\/secrets\//);
    expect(app.secrets).toEqual(['app_database_url']);
    expect(services.migrate!.secrets!.sort()).toEqual(['owner_database_url', 'wb_app_password']);
    expect(services.postgres!.environment).toMatchObject({ POSTGRES_PASSWORD_FILE: '/run/secrets/postgres_password' });
    const text = readFileSync('docker-compose.yml', 'utf8');
    expect(text).not.toMatch(/PASSWORD:\s*\S/);
    expect(text).not.toMatch(/postgres:\/\/[^@\s]*:[^@\s]*@/);
  });

  test('the app environment passes the server config validation (secret files aside)', () => {
    const env = { ...app.environment };
    delete env.DATABASE_URL_FILE;
    const config = loadConfig(env);
    expect(config).toMatchObject({ HOST: '0.0.0.0', PORT: 3000, DATABASE_MIGRATE: false, REDIS_ADAPTER: 'sharded', METRICS_PORT: 9464 });
    expect(new URL(config.REDIS_URL!).hostname).toBe('redis');
    // The stop grace covers the drain and the reconnect window with room to close.
    expect(seconds(app.stop_grace_period) * 1000).toBeGreaterThan(config.SHUTDOWN_DRAIN_MS + config.SHUTDOWN_RECONNECT_SPREAD_MS + 10_000);
    expect(app.environment!.TRUST_PROXY).toBe('1');
  });

  test('healthchecks: databases, the balancer, and the app on liveness (/healthz) with a start period', () => {
    for (const name of ['postgres', 'redis', 'balancer']) expect(services[name]!.healthcheck).toBeDefined();
    expect(app.healthcheck!.test.join(' ')).toMatch(/\/healthz/);
    expect(seconds(app.healthcheck!.start_period)).toBeGreaterThanOrEqual(30);
  });

  test('the balancer routes on /readyz, finds every replica, keeps websockets, pins polling sessions', () => {
    expect(services.balancer!.volumes).toContain('./deploy/haproxy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro');
    expect(haproxy).toMatch(/option httpchk GET \/readyz/);
    expect(haproxy).toMatch(/server-template app \d+ app:3000/);
    expect(haproxy).toMatch(/resolvers docker/);
    expect(haproxy).toMatch(/timeout tunnel \d+h/);
    expect(haproxy).toMatch(/cookie WBNODE insert/);
    expect(haproxy).toMatch(/deny.*path_beg \/metrics/);
    // Readiness failures take a node out before the app's drain period ends.
    const inter = Number(/inter (\d+)s/.exec(haproxy)?.[1]);
    const fall = Number(/fall (\d+)/.exec(haproxy)?.[1]);
    expect(inter * fall * 1000).toBeLessThan(Number(app.environment!.SHUTDOWN_DRAIN_MS));
  });
});

describe('TLS at the balancer (deploy/haproxy/haproxy.cfg, deploy/tls/; run for real in test/tlsBalancer.test.ts)', () => {
  const balancer = services.balancer!;
  test('HTTPS on 443 with the operator\'s certificate, mounted read-only where the config reads it', () => {
    const crt = /^ {2}bind :443 ssl crt (\S+)/m.exec(haproxy)?.[1];
    expect(crt).toBe('/usr/local/etc/haproxy/site.pem');
    expect(balancer.volumes).toContain(`./deploy/tls/site.pem:${crt}:ro`);
    expect(haproxy).toMatch(/ssl-min-ver TLSv1\.2/);
    // Root only to read the key (the host file may be 0600), then HAProxy drops to its own user.
    expect((balancer as Service & { user?: string }).user).toBe('root');
    expect(haproxy).toMatch(/^ {2}user haproxy$/m);
  });

  test('plain HTTP on 80 only redirects (301) to HTTPS on the published HTTPS port', () => {
    expect(haproxy).toMatch(/^ {2}bind :80$/m);
    const redirect = /^ {2}http-request redirect code 301 location https:\/\/(\S+) unless \{ ssl_fc \}$/m.exec(haproxy);
    expect(redirect?.[1]).toContain('"${PUBLIC_HTTPS_PORT}"%[capture.req.uri]');
    const published = balancer.ports!.find((p) => p.endsWith(':443'))!.split(':')[0];
    expect(balancer.environment!.PUBLIC_HTTPS_PORT).toBe(published);
    // The redirect comes before any rule that could answer or forward a plain-HTTP request.
    const rules = haproxy.split('\n').filter((line) => /^ {2}(http-request|default_backend)/.test(line));
    expect(rules[0]).toMatch(/redirect code 301/);
  });

  test('HSTS on every HTTPS answer, for at least a year; the proxy alone says the request came over TLS', () => {
    const hsts = /^ {2}http-after-response set-header Strict-Transport-Security "max-age=(\d+)[^"]*" if \{ ssl_fc \}$/m.exec(haproxy);
    expect(Number(hsts?.[1])).toBeGreaterThanOrEqual(365 * 24 * 3600);
    expect(haproxy).toMatch(/^ {2}http-request set-header X-Forwarded-Proto https$/m);
    expect(haproxy).toMatch(/cookie WBNODE insert .*\bsecure\b/);
    // The app believes the one hop in front of it, so its cookies are Secure behind the proxy.
    expect(app.environment!.TRUST_PROXY).toBe('1');
  });

  test('the certificate and the local CA stay out of git and the image; the one-off command is there', () => {
    const gitignore = readFileSync('.gitignore', 'utf8').split('\n');
    expect(gitignore).toContain('deploy/tls/*');
    expect(gitignore).toContain('!deploy/tls/README.md');
    expect(readFileSync('.dockerignore', 'utf8').split('\n')).toContain('deploy/tls');
    expect(existsSync('deploy/tls/make-local-ca.sh')).toBe(true);
    expect(readFileSync('deploy/tls/README.md', 'utf8')).toMatch(/cat fullchain\.pem privkey\.pem > deploy\/tls\/site\.pem/);
  });
});

describe('Dockerfile: a lean, non-root image', () => {
  test('multi-stage on a slim Node LTS; compiled server; production dependencies only', () => {
    expect(dockerfile.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    const lts = /ARG NODE_VERSION=(\d+)/.exec(dockerfile)?.[1];
    expect(Number(lts) % 2).toBe(0);
    expect(Number(lts)).toBeGreaterThanOrEqual(22);
    expect(dockerfile).toMatch(/FROM node:\$\{NODE_VERSION\}-bookworm-slim\n/);
    expect(dockerfile).toMatch(/pnpm install --frozen-lockfile/);
    expect(dockerfile).toMatch(/scripts\/build-server\.mjs/);
    expect(dockerfile).toMatch(/deploy --prod/);
    expect(dockerfile).toMatch(/CMD \["node", "dist\/server\/main\.mjs"\]/);
    expect(dockerfile).not.toMatch(/tsx/);
    expect(existsSync('scripts/build-server.mjs')).toBe(true);
  });

  test('non-root, a volume for the embedded data, a healthcheck with a start period', () => {
    const final = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(final).toMatch(/^USER node$/m);
    expect(final).toMatch(/VOLUME \["\/data"\]/);
    expect(final).toMatch(/PGLITE_DIR=\/data\/pglite/);
    expect(final).toMatch(/HEALTHCHECK .*--start-period=\d+s/);
    expect(final).toMatch(/\/healthz/);
  });

  test('one Node LTS everywhere: .nvmrc, engines, the image, the pinned runtime, and the one running this test', () => {
    const nvmrc = readFileSync('.nvmrc', 'utf8').trim();
    // An LTS line: even, and 24 or later (20 reached its end of life in April 2026).
    expect(nvmrc).toMatch(/^\d+$/);
    expect(Number(nvmrc) % 2).toBe(0);
    expect(Number(nvmrc)).toBeGreaterThanOrEqual(24);
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string }; devDependencies: Record<string, string> };
    expect(pkg.engines.node).toBe(`>=${nvmrc}`);
    expect(/ARG NODE_VERSION=(\d+)/.exec(dockerfile)?.[1]).toBe(nvmrc);
    // pnpm's scripts run on this one (node_modules/.bin/node), whatever Node started pnpm.
    expect(pkg.devDependencies['node-runtime']).toMatch(new RegExp(`^npm:node@\\^${nvmrc}\\.`));
    expect(process.versions.node.split('.')[0]).toBe(nvmrc);
  });
});

describe('.dockerignore: the build context carries no secrets and no local data', () => {
  const ignored = readFileSync('.dockerignore', 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  test.each([
    ['deploy secrets', 'deploy/secrets'],
    ['secret files anywhere', '**/*secret*'],
    ['environment files', '**/.env*'],
    ['TLS certificates and keys', 'deploy/tls'],
    ['private keys anywhere', '**/*.key'],
    ['PEM files anywhere', '**/*.pem'],
    ['the embedded database', '.data'],
    ['CI logs', 'ci-logs'],
    ['test results', 'test-results'],
    ['dependencies', '**/node_modules'],
  ])('%s (%s)', (_what, pattern) => {
    expect(ignored).toContain(pattern);
  });
});
