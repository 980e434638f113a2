import { createServer, get, type Server } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import { TcpBalancer } from '../bench/tcpBalancer.ts';

/** A backend that names itself on `/who` and answers `/readyz` with 200 while `ready`. */
async function backend(name: string): Promise<{ url: string; server: Server; setReady(ready: boolean): void }> {
  let ready = true;
  const server = createServer((req, res) => {
    if (req.url === '/readyz') res.writeHead(ready ? 200 : 503).end();
    else res.writeHead(200).end(name);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, server, setReady: (value) => (ready = value) };
}

/** One request on a fresh connection (the balancer routes connections, not requests). */
function who(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(`${url}/who`, { agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

const CHECK_MS = 250;

/** Polls `condition` every 20 ms; fails after 10 s. */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

// The district day's balancer (bench/tcpBalancer.ts) behaves like the committed HAProxy config.
describe('the bench balancer', () => {
  test('routes round-robin over ready backends, drops one failing /readyz twice, and redispatches a connect to a dead one', { timeout: 20_000 }, async () => {
    const a = await backend('a');
    const b = await backend('b');
    cleanup.push(async () => void b.server.close(), async () => void a.server.closeAllConnections());
    // Port 0 is not offered by the balancer's API on purpose (the bench gives it fixed ports): use one of this project's test range.
    // Checks every 250 ms instead of HAProxy's 2 s: the rules (out after two failed checks, back
    // after a good one) do not depend on the interval, and the test polls for their outcome.
    const balancer = await TcpBalancer.start([a.url, b.url], 3349, CHECK_MS);
    cleanup.push(() => balancer.stop());

    const first = await Promise.all([who(balancer.url), who(balancer.url), who(balancer.url), who(balancer.url)]);
    expect(new Set(first)).toEqual(new Set(['a', 'b']));

    a.setReady(false);
    await until(() => balancer.ready.length === 1);
    expect(balancer.ready).toEqual([b.url]);
    expect(await Promise.all([who(balancer.url), who(balancer.url), who(balancer.url)])).toEqual(['b', 'b', 'b']);

    // a comes back ready, then dies before any check notices: its connects fail over to b.
    a.setReady(true);
    await until(() => balancer.ready.length === 2);
    expect(balancer.ready).toEqual([a.url, b.url]);
    a.server.closeAllConnections();
    await new Promise<void>((resolve) => a.server.close(() => resolve()));
    expect(await Promise.all([who(balancer.url), who(balancer.url), who(balancer.url), who(balancer.url)])).toEqual(['b', 'b', 'b', 'b']);
    expect(balancer.refused).toBe(0);
  });
});
