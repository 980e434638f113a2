/**
 * The district day's load balancer: a TCP proxy in the bench's own process, doing what the
 * committed HAProxy config does for WebSockets (deploy/haproxy/haproxy.cfg): route new
 * connections round-robin to backends whose `/readyz` answered 200 at the last check (every
 * CHECK_INTERVAL_MS, out after CHECK_FALLS failures), try the next backend when a connect fails,
 * and leave established connections alone (they end when their backend dies; the client moves).
 *
 * Installed nowhere and configured by nothing, so the bench runs on any machine with Node. One
 * difference from HAProxy on purpose: the connection to the backend is made from the client's own
 * loopback address (127.x.y.z), so the servers' per-address join limits see each simulated school
 * as HAProxy's `X-Forwarded-For` with TRUST_PROXY would show it, without parsing HTTP here.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** HAProxy's settings in deploy/haproxy/haproxy.cfg: `inter 2s fall 2`. */
const CHECK_INTERVAL_MS = 2_000;
const CHECK_FALLS = 2;
const CHECK_TIMEOUT_MS = 1_500;

interface Backend {
  url: URL;
  up: boolean;
  failures: number;
  connections: number;
}

export class TcpBalancer {
  private readonly backends: Backend[];
  private next = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly sockets = new Set<Socket>();
  /** Connections refused because no backend was ready or every connect failed. */
  refused = 0;

  private constructor(
    private readonly server: Server,
    urls: readonly string[],
    readonly url: string,
  ) {
    this.backends = urls.map((u) => ({ url: new URL(u), up: true, failures: 0, connections: 0 }));
  }

  /** `checkIntervalMs`: HAProxy's `inter` by default; its test checks faster, as nothing else depends on it. */
  static async start(backendUrls: readonly string[], port: number, checkIntervalMs = CHECK_INTERVAL_MS): Promise<TcpBalancer> {
    const server = createServer();
    const balancer = new TcpBalancer(server, backendUrls, `http://127.0.0.1:${port}`);
    server.on('connection', (client) => balancer.route(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    await balancer.check();
    balancer.timer = setInterval(() => void balancer.check(), checkIntervalMs);
    return balancer;
  }

  /** Backends in rotation now, by URL. */
  get ready(): string[] {
    return this.backends.filter((b) => b.up).map((b) => b.url.origin);
  }

  private async check(): Promise<void> {
    await Promise.all(
      this.backends.map(async (backend) => {
        const ok = await fetch(new URL('/readyz', backend.url), { signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) }).then(
          async (response) => {
            await response.body?.cancel();
            return response.status === 200;
          },
          () => false,
        );
        backend.failures = ok ? 0 : backend.failures + 1;
        if (ok) backend.up = true;
        else if (backend.failures >= CHECK_FALLS) backend.up = false;
      }),
    );
  }

  private route(client: Socket): void {
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    client.on('error', () => client.destroy());
    client.pause();
    const candidates = this.backends.filter((b) => b.up);
    const start = this.next++;
    const attempt = (tried: number): void => {
      const backend = candidates[(start + tried) % Math.max(1, candidates.length)];
      if (!backend || tried >= candidates.length) {
        this.refused += 1;
        client.destroy();
        return;
      }
      const localAddress = client.remoteAddress?.replace(/^::ffff:/, '');
      const upstream = connect({
        host: backend.url.hostname,
        port: Number(backend.url.port),
        ...(localAddress?.startsWith('127.') ? { localAddress } : {}),
      });
      let connected = false;
      upstream.once('connect', () => {
        connected = true;
        backend.connections += 1;
        this.sockets.add(upstream);
        upstream.on('close', () => {
          this.sockets.delete(upstream);
          client.destroy();
        });
        upstream.on('error', () => upstream.destroy());
        client.on('close', () => upstream.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
      // A dead backend the checks have not caught yet: the next one, as HAProxy's `redispatch`.
      upstream.once('error', () => {
        if (!connected) attempt(tried + 1);
      });
    };
    attempt(0);
  }

  /** Connections made to each backend so far, by URL. */
  connectionsByBackend(): Record<string, number> {
    return Object.fromEntries(this.backends.map((b) => [b.url.origin, b.connections]));
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
