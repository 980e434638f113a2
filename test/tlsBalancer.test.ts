/**
 * The compose deployment's TLS (deploy/haproxy/haproxy.cfg, deploy/tls/make-local-ca.sh), run for
 * real without Docker: the committed HAProxy configuration, with only its Docker-specific lines
 * replaced (ports, the certificate's path, Docker's DNS and replica discovery, the connection limit, the
 * privilege drop),
 * in front of a real server, with a certificate made by the documented one-off command. Proves:
 * HTTP answers only with a redirect to HTTPS; HTTPS answers carry HSTS; behind the proxy the app
 * sees the browser's https origin and marks the teacher's cookie Secure; on a plain-HTTP LAN
 * without the proxy the same cookie works without Secure.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestDatabase, type TestDatabase } from '@wb/db/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startApp, type App } from '../apps/server/src/app.ts';
import { loadConfig } from '../apps/server/src/config.ts';

/** Why this file cannot run here, or null. Under CI a missing haproxy fails instead (.ci/run installs it). */
function unavailable(): string | null {
  try {
    execFileSync('haproxy', ['-v'], { stdio: 'ignore' });
  } catch {
    if (process.env.CI) throw new Error('haproxy is not installed: .ci/run installs it (apt-get install haproxy)');
    return 'haproxy is not installed (apt-get install haproxy)';
  }
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
  } catch {
    return 'openssl is not installed';
  }
  return null;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
}

/** The committed configuration with each Docker-specific line replaced; every replacement must match once. */
function localConfig(committed: string, ports: { http: number; https: number; app: number }, pem: string): string {
  const replacements: Array<[RegExp, string]> = [
    [/^ {2}bind :80$/m, `  bind 127.0.0.1:${ports.http}`],
    [/^ {2}bind :443 ssl crt \/usr\/local\/etc\/haproxy\/site\.pem /m, `  bind 127.0.0.1:${ports.https} ssl crt ${pem} `],
    // Docker's DNS and replica discovery: one local server instead.
    [/^resolvers docker\n(?: {2}.*\n)+/m, ''],
    [/ resolvers docker init-addr none$/m, ''],
    [/^ {2}server-template app \d+ app:3000$/m, `  server app1 127.0.0.1:${ports.app}`],
    // A container's file limit allows 50,000 connections; a test machine's may not.
    [/^ {2}maxconn 50000$/m, '  maxconn 1000'],
    // The privilege drop needs root and a haproxy account; it is not what this test is about.
    [/^ {2}user haproxy\n {2}group haproxy\n/m, ''],
  ];
  let config = committed;
  for (const [pattern, replacement] of replacements) {
    expect(config.match(new RegExp(pattern.source, `${pattern.flags}g`))?.length, `haproxy.cfg no longer has ${pattern}`).toBe(1);
    config = config.replace(pattern, replacement);
  }
  return config;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function send(url: string, options: { method?: string; headers?: Record<string, string>; body?: string; ca?: string } = {}): Promise<Answer> {
  const target = new URL(url);
  const make = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = make(
      target,
      { method: options.method ?? 'GET', headers: options.headers, ...(options.ca ? { ca: options.ca, servername: 'localhost' } : {}) },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.once('error', reject);
    req.end(options.body);
  });
}

/** The Set-Cookie line of one cookie (the balancer adds its own WBNODE beside the app's). */
function cookieNamed(answer: Answer, name: string): string {
  const lines = ([] as string[]).concat(answer.headers['set-cookie'] ?? []);
  const line = lines.find((l) => l.startsWith(`${name}=`));
  if (!line) throw new Error(`no ${name} cookie in ${JSON.stringify(lines)}`);
  return line;
}
const teacherCookie = (answer: Answer) => cookieNamed(answer, 'wb_teacher');

const skip = unavailable();

describe.skipIf(skip !== null)(`TLS at the balancer: HAProxy with the committed config${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const work = mkdtempSync(join(tmpdir(), 'wb-tls-'));
  let testDb: TestDatabase;
  let app: App;
  let haproxy: ChildProcess;
  let haproxyOutput = '';
  let ca: string;
  let ports: { http: number; https: number; app: number };
  const publicHttps = 8443;

  beforeAll(async () => {
    // The documented one-off command, as an operator runs it.
    execFileSync('sh', ['deploy/tls/make-local-ca.sh', 'localhost', '127.0.0.1'], { env: { ...process.env, TLS_DIR: work }, stdio: 'ignore' });
    ca = readFileSync(join(work, 'local-ca/ca.crt'), 'utf8');
    testDb = await openTestDatabase('pglite');
    // As in docker-compose.yml: one trusted proxy hop.
    app = await startApp(
      loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', WEB_DIST: '/nonexistent', TRUST_PROXY: '1' }),
      { database: testDb.database, startSweeper: false },
    );
    ports = { http: await freePort(), https: await freePort(), app: Number(new URL(app.url).port) };
    const config = join(work, 'haproxy.cfg');
    writeFileSync(config, localConfig(readFileSync('deploy/haproxy/haproxy.cfg', 'utf8'), ports, join(work, 'site.pem')));
    haproxy = spawn('haproxy', ['-db', '-f', config], {
      env: { ...process.env, HAPROXY_COOKIE_KEY: 'test-sticky', PUBLIC_HTTPS_PORT: String(publicHttps) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    haproxy.stdout!.on('data', (chunk) => (haproxyOutput += chunk));
    haproxy.stderr!.on('data', (chunk) => (haproxyOutput += chunk));
    // Up once it answers its own liveness URI over TLS and sees the app ready (/readyz checks).
    const deadline = Date.now() + 30_000;
    for (;;) {
      const answer = await send(`https://127.0.0.1:${ports.https}/readyz`, { ca }).catch(() => null);
      if (answer?.status === 200) break;
      if (haproxy.exitCode !== null || Date.now() > deadline) throw new Error(`haproxy did not come up:\n${haproxyOutput}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 120_000);

  afterAll(async () => {
    if (haproxy && haproxy.exitCode === null) {
      const exited = new Promise((resolve) => haproxy.once('exit', resolve));
      haproxy.kill('SIGTERM');
      await exited;
    }
    await app?.close();
    await testDb?.drop();
    rmSync(work, { recursive: true, force: true });
  });

  test('plain HTTP is answered only with a permanent redirect to the same host and path over HTTPS, on the public HTTPS port', async () => {
    const answer = await send(`http://127.0.0.1:${ports.http}/r/ABC234?from=qr`, { headers: { host: `whiteboard.school.lan:${ports.http}` } });
    expect(answer.status).toBe(301);
    expect(answer.headers.location).toBe(`https://whiteboard.school.lan:${publicHttps}/r/ABC234?from=qr`);
    // HSTS means nothing over plain HTTP (browsers ignore it there); it is sent over HTTPS.
    expect(answer.headers['strict-transport-security']).toBeUndefined();
    // A POST too: nothing reaches the app over plain HTTP.
    const post = await send(`http://127.0.0.1:${ports.http}/api/rooms`, { method: 'POST', headers: { host: 'whiteboard.school.lan', 'content-type': 'application/json' }, body: '{}' });
    expect(post.status).toBe(301);
    expect(post.headers.location).toBe(`https://whiteboard.school.lan:${publicHttps}/api/rooms`);
  });

  test('every HTTPS answer carries HSTS, the app\'s and the balancer\'s own', async () => {
    const probe = await send(`https://127.0.0.1:${ports.https}/readyz`, { ca });
    expect(probe.status).toBe(200);
    expect(probe.headers['strict-transport-security']).toBe('max-age=31536000');
    const denied = await send(`https://127.0.0.1:${ports.https}/metrics`, { ca });
    expect(denied.status).toBe(404);
    expect(denied.headers['strict-transport-security']).toBe('max-age=31536000');
  });

  test('behind the balancer the browser\'s https origin is accepted and the teacher cookie is Secure, whatever X-Forwarded-Proto the client sent', async () => {
    const origin = `https://localhost:${ports.https}`;
    const answer = await send(`${origin}/api/teacher/sign-up`, {
      method: 'POST',
      ca,
      headers: { 'content-type': 'application/json', origin, 'x-forwarded-proto': 'http' },
      body: JSON.stringify({ email: `tls-${randomBytes(4).toString('hex')}@school.example`, password: 'correct horse battery', displayName: 'Ms TLS' }),
    });
    expect(answer.status, answer.body).toBe(201);
    const cookie = teacherCookie(answer);
    expect(cookie.split('; ')).toContain('Secure');
    // The balancer's own sticky cookie is Secure too.
    expect(cookieNamed(answer, 'WBNODE').split('; ').map((a) => a.toLowerCase())).toContain('secure');
    expect(answer.headers['strict-transport-security']).toBe('max-age=31536000');
  });

  test('on a plain-HTTP LAN without the proxy the same sign-up works and its cookie is not Secure (it would never be sent back)', async () => {
    const answer = await send(`${app.url}/api/teacher/sign-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: app.url },
      body: JSON.stringify({ email: `lan-${randomBytes(4).toString('hex')}@school.example`, password: 'correct horse battery', displayName: 'Mr LAN' }),
    });
    expect(answer.status, answer.body).toBe(201);
    expect(teacherCookie(answer).split('; ')).not.toContain('Secure');
  });
});
