/**
 * Issue 35, the server's half of "a class joins from its own devices": the page works over plain
 * HTTP (no CSP directive that sends the browser to https), and the join address the teacher's
 * invitation shows is one students can open (`GET /api/join-address`, rules JA1–JA5 in
 * src/joinAddress.ts, through the real server and this machine's real interfaces).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestDatabase, type TestDatabase } from '@wb/db/testing';
import { JoinAddress } from '@wb/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { isLoopbackHost } from '../src/joinAddress.ts';
import { startTestServer } from './support.ts';

let testDb: TestDatabase;
let dist: string;
beforeAll(async () => {
  testDb = await openTestDatabase('pglite');
  dist = mkdtempSync(join(tmpdir(), 'wb-dist-'));
  mkdirSync(join(dist, 'assets'));
  writeFileSync(join(dist, 'index.html'), '<!doctype html><script type="module" src="/assets/index-Cr95_R1-.js"></script>');
  writeFileSync(join(dist, 'assets/index-Cr95_R1-.js'), 'document.body.textContent = "ok";');
});
afterAll(async () => {
  await testDb?.drop();
  rmSync(dist, { recursive: true, force: true });
});

/** A server for one test, closed after it. */
async function withServer(env: Record<string, string>, run: (base: string, port: number) => Promise<void>) {
  const app = await startTestServer(testDb.database, { env: { WEB_DIST: dist, ...env } });
  try {
    await run(`http://127.0.0.1:${app.port}`, app.port);
  } finally {
    await app.close();
  }
}

/** A GET through node:http: fetch will not send a Host header of the test's choosing. */
function get(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((done, fail) => {
    request(url, { headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => done({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
    })
      .on('error', fail)
      .end();
  });
}

async function joinAddressOf(url: string, headers: Record<string, string> = {}) {
  const response = await get(`${url}/api/join-address`, headers);
  expect(response.status).toBe(200);
  expect(response.headers['cache-control']).toBe('no-store');
  return JoinAddress.parse(JSON.parse(response.body));
}

describe('I15 a plain-HTTP page is not sent to https', () => {
  test('the CSP of the app shell, its scripts and the API over plain HTTP has no upgrade-insecure-requests', async () => {
    await withServer({}, async (base) => {
      for (const path of ['/', '/r/K7QM2X', '/assets/index-Cr95_R1-.js', '/api/join-address']) {
        const csp = (await fetch(`${base}${path}`)).headers.get('content-security-policy');
        expect(csp, path).toMatch(/script-src 'self'/);
        expect(csp, path).not.toMatch(/upgrade-insecure-requests/);
      }
    });
  });

  test('not over TLS either: a request a trusted proxy marks https gets the same policy (the proxy adds it if it wants)', async () => {
    await withServer({ TRUST_PROXY: '127.0.0.1' }, async (base) => {
      const csp = (await fetch(`${base}/`, { headers: { 'x-forwarded-proto': 'https' } })).headers.get('content-security-policy');
      expect(csp).toMatch(/default-src 'self'/);
      expect(csp).not.toMatch(/upgrade-insecure-requests/);
    });
  });
});

describe('I15 no header a plain-HTTP page would only complain about', () => {
  test('Cross-Origin-Opener-Policy only where the browser applies it: https (through a trusted proxy) or this computer, not a LAN address', async () => {
    await withServer({ HOST: '0.0.0.0', TRUST_PROXY: '127.0.0.1' }, async (base, port) => {
      const coop = async (headers: Record<string, string>) => (await get(`${base}/`, headers)).headers['cross-origin-opener-policy'];
      expect(await coop({ host: `192.168.1.20:${port}` })).toBeUndefined();
      expect(await coop({ host: `classroom.test:${port}` })).toBeUndefined();
      expect(await coop({ host: `127.0.0.1:${port}` })).toBe('same-origin');
      expect(await coop({ host: `localhost:${port}` })).toBe('same-origin');
      expect(await coop({ host: `192.168.1.20:${port}`, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'board.school.org' })).toBe('same-origin');
    });
  });
});

describe('GET /api/join-address: an address students can open (JA1–JA5)', () => {
  test('JA3: listening on loopback only, the teacher is told only this computer can join', async () => {
    await withServer({ HOST: '127.0.0.1' }, async (base) => {
      expect(await joinAddressOf(base)).toEqual({ base, reach: 'this_computer', others: [] });
    });
  });

  test('JA4: listening on every interface, a teacher on localhost gets one of this machine\'s LAN addresses, never a loopback name', async () => {
    const lan = Object.values(networkInterfaces()).flatMap((infos) => (infos ?? []).filter((i) => !i.internal && i.family === 'IPv4').map((i) => i.address));
    await withServer({ HOST: '0.0.0.0' }, async (base, port) => {
      const address = await joinAddressOf(base, { host: `localhost:${port}` });
      if (lan.length === 0) {
        expect(address.reach).toBe('no_network');
        return;
      }
      expect(address.reach).toBe('network');
      const url = new URL(address.base);
      expect(isLoopbackHost(url.hostname)).toBe(false);
      expect(lan).toContain(url.hostname);
      expect(url.port).toBe(String(port));
      expect(address.others.map((o) => new URL(o).hostname).sort()).toEqual(lan.filter((a) => a !== url.hostname).sort());
    });
  });

  test('JA2: a page opened at a LAN address gets that address back; through a trusted proxy, the forwarded host', async () => {
    await withServer({ HOST: '0.0.0.0' }, async (base, port) => {
      expect(await joinAddressOf(base, { host: `192.168.1.20:${port}` })).toEqual({ base: `http://192.168.1.20:${port}`, reach: 'network', others: [] });
    });
    await withServer({ HOST: '127.0.0.1', TRUST_PROXY: '127.0.0.1' }, async (base) => {
      const address = await joinAddressOf(base, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'board.school.org' });
      expect(address).toEqual({ base: 'https://board.school.org', reach: 'network', others: [] });
    });
  });

  test('JA1: a configured PUBLIC_URL is the address, whoever asks and however the server listens', async () => {
    await withServer({ HOST: '127.0.0.1', PUBLIC_URL: 'https://board.school.org/' }, async (base) => {
      expect(await joinAddressOf(base)).toEqual({ base: 'https://board.school.org', reach: 'public', others: [] });
    });
  });
});
