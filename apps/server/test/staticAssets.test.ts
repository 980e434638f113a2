import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gzipSync } from 'node:zlib';
import { openTestDatabase, type TestDatabase } from '@wb/db/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { startTestServer } from './support.ts';

/** A raw GET (fetch would decompress and hide what the server sent). */
function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((done, fail) => {
    request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('end', () => done({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', fail)
      .end();
  });
}

describe('the built web app is served lean and private', () => {
  const script = `console.log(${JSON.stringify('x'.repeat(4_000))});`;
  let dist: string;
  let testDb: TestDatabase;
  let app: App;

  beforeAll(async () => {
    // A build as Vite and the precompress plugin leave it (apps/web/vite.config.ts).
    dist = mkdtempSync(join(tmpdir(), 'wb-dist-'));
    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'index.html'), '<!doctype html><script src="/assets/index-Cr95_R1-.js"></script>');
    writeFileSync(join(dist, 'assets/index-Cr95_R1-.js'), script);
    writeFileSync(join(dist, 'assets/index-Cr95_R1-.js.br'), brotliCompressSync(script));
    writeFileSync(join(dist, 'assets/index-Cr95_R1-.js.gz'), gzipSync(script));
    writeFileSync(join(dist, 'assets/index-Cr95_R1-.js.map'), '{"version":3,"sources":["secret.ts"]}');
    testDb = await openTestDatabase('pglite');
    app = await startTestServer(testDb.database, { env: { WEB_DIST: dist } });
  });
  afterAll(async () => {
    await app?.close();
    await testDb?.drop();
    rmSync(dist, { recursive: true, force: true });
  });

  test('hashed assets are cached immutably and sent pre-compressed as the browser accepts', async () => {
    const br = await get(`${app.url}/assets/index-Cr95_R1-.js`, { 'accept-encoding': 'gzip, br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(String(br.headers.vary)).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(br.body).toString()).toBe(script);
    // A tenth: the script is 4,000 repeated characters, which brotli stores in a few dozen bytes;
    // an uncompressed or gzip-less body is the script's full length.
    expect(br.body.length).toBeLessThan(script.length / 10);

    const gz = await get(`${app.url}/assets/index-Cr95_R1-.js`, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    const plain = await get(`${app.url}/assets/index-Cr95_R1-.js`);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(script);
  });

  test('the app shell is revalidated on every load (a new build is picked up at once)', async () => {
    for (const path of ['/', '/r/ABC234']) {
      const shell = await get(`${app.url}${path}`);
      expect(shell.status).toBe(200);
      expect(shell.headers['cache-control']).toBe('no-cache');
      expect(shell.body.toString()).toContain('/assets/index-Cr95_R1-.js');
    }
  });

  test('source maps are not served publicly', async () => {
    const map = await get(`${app.url}/assets/index-Cr95_R1-.js.map`);
    expect(map.status).toBe(404);
    expect(map.body.toString()).not.toContain('secret.ts');
  });
});

describe('/metrics is on its own port or behind a token', () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await openTestDatabase('pglite');
  });
  afterAll(async () => {
    await testDb?.drop();
  });

  test('METRICS_PORT: served on its own listener, not on the app port', async () => {
    const app = await startTestServer(testDb.database, { env: { METRICS_PORT: '0', NODE_ENV: 'production' } });
    try {
      expect(app.metricsUrl).not.toBeNull();
      expect((await fetch(`${app.url}/metrics`)).status).toBe(404);
      const scraped = await fetch(`${app.metricsUrl}/metrics`);
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toMatch(/^wb_connected_sockets /m);
    } finally {
      await app.close();
    }
  });

  test('METRICS_TOKEN: the app port answers only with the bearer token', async () => {
    const token = 'a-long-enough-metrics-token';
    const app = await startTestServer(testDb.database, { env: { METRICS_TOKEN: token, NODE_ENV: 'production' } });
    try {
      const anonymous = await fetch(`${app.url}/metrics`);
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toMatchObject({ error: { code: 'not_authenticated' } });
      expect((await fetch(`${app.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-of-some-size' } })).status).toBe(401);
      const scraped = await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(scraped.status).toBe(200);
    } finally {
      await app.close();
    }
  });

  test('production with neither: /metrics is not served at all', async () => {
    const app = await startTestServer(testDb.database, { env: { NODE_ENV: 'production' } });
    try {
      expect((await fetch(`${app.url}/metrics`)).status).toBe(404);
    } finally {
      await app.close();
    }
  });
});
