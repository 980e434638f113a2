/**
 * A loopback TCP proxy (node:net) between a server process and Postgres (or Redis), so a test can
 * make the backend unreachable for that process alone without touching the machine's shared one.
 * Two kinds of outage:
 * - `cut()`: every open connection is reset and new ones are refused (a stopped database, a
 *   firewall that rejects): the client learns at once.
 * - `blackhole()`: packets go nowhere (a firewall that drops, a dead switch, a VM paused): open
 *   connections stay open but nothing crosses them, new connections are accepted and then hang.
 *   The client learns only from its own timeouts.
 * `restore()` ends either. After a black hole the stalled connections carry on where they stopped
 * (as TCP does when its retransmissions finally get through), and the connections accepted
 * meanwhile are joined to the target, unless their client gave up on them first.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

interface Pair {
  inbound: Socket;
  outbound: Socket | null;
  /** Bytes read during a black hole, delivered on restore (nothing crosses before). */
  heldUp: Buffer[];
  heldDown: Buffer[];
}

export class TcpProxy {
  private server: Server | null = null;
  private readonly pairs = new Set<Pair>();
  private mode: 'open' | 'refuse' | 'blackhole' = 'open';
  port = 0;
  /** Connections accepted, refused, and accepted into a black hole, for the report. */
  accepted = 0;
  refused = 0;
  swallowed = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<void> {
    this.server = createServer((inbound) => {
      if (this.mode === 'refuse') {
        this.refused++;
        inbound.resetAndDestroy();
        return;
      }
      const pair: Pair = { inbound, outbound: null, heldUp: [], heldDown: [] };
      this.pairs.add(pair);
      inbound.on('error', () => this.drop(pair)).on('close', () => this.drop(pair));
      inbound.on('data', (chunk) => {
        if (this.mode === 'blackhole' || !pair.outbound) pair.heldUp.push(chunk);
        else pair.outbound.write(chunk);
      });
      if (this.mode === 'blackhole') {
        this.swallowed++;
        return;
      }
      this.accepted++;
      this.connect(pair);
    });
    await new Promise<void>((done) => this.server!.listen(0, '127.0.0.1', done));
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
  }

  private connect(pair: Pair): void {
    const outbound = createConnection({ host: this.targetHost, port: this.targetPort });
    pair.outbound = outbound;
    outbound.on('error', () => this.drop(pair)).on('close', () => this.drop(pair));
    outbound.on('data', (chunk) => {
      if (this.mode === 'blackhole') pair.heldDown.push(chunk);
      else pair.inbound.write(chunk);
    });
    this.flush(pair);
  }

  private flush(pair: Pair): void {
    if (!pair.outbound) return;
    for (const chunk of pair.heldUp.splice(0)) pair.outbound.write(chunk);
    for (const chunk of pair.heldDown.splice(0)) pair.inbound.write(chunk);
  }

  private drop(pair: Pair): void {
    pair.inbound.destroy();
    pair.outbound?.destroy();
    this.pairs.delete(pair);
  }

  /** The backend becomes unreachable and says so: open connections are reset, new ones refused. */
  cut(): void {
    this.mode = 'refuse';
    for (const pair of [...this.pairs]) {
      pair.inbound.resetAndDestroy();
      pair.outbound?.resetAndDestroy();
      this.pairs.delete(pair);
    }
  }

  /** The backend becomes unreachable silently: nothing crosses, nothing is refused, nothing closes. */
  blackhole(): void {
    this.mode = 'blackhole';
  }

  restore(): void {
    const was = this.mode;
    this.mode = 'open';
    if (was !== 'blackhole') return;
    for (const pair of this.pairs) {
      if (pair.outbound) this.flush(pair);
      else if (!pair.inbound.destroyed) {
        this.accepted++;
        this.connect(pair);
      }
    }
  }

  /** Connections open through the proxy right now (including those hanging in a black hole). */
  get openConnections(): number {
    return this.pairs.size;
  }

  /** `url` with its host and port replaced by this proxy's. */
  via(url: string): string {
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(this.port);
    return proxied.toString();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((done) => (this.server ? this.server.close(() => done()) : done()));
    this.server = null;
  }
}
