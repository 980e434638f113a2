/**
 * A loopback TCP proxy (node:net) between a server process and Postgres, so a test can make the
 * database unreachable for that process alone without touching the machine's shared Postgres.
 * `cut()` resets every open connection and refuses new ones; `restore()` lets them through again.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export class TcpProxy {
  private server: Server | null = null;
  private readonly open = new Set<Socket>();
  private refusing = false;
  port = 0;
  /** Connections accepted and refused, for the report. */
  accepted = 0;
  refused = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<void> {
    this.server = createServer((inbound) => {
      if (this.refusing) {
        this.refused++;
        inbound.resetAndDestroy();
        return;
      }
      this.accepted++;
      const outbound = createConnection({ host: this.targetHost, port: this.targetPort });
      this.open.add(inbound);
      this.open.add(outbound);
      const close = () => {
        inbound.destroy();
        outbound.destroy();
        this.open.delete(inbound);
        this.open.delete(outbound);
      };
      inbound.on('error', close).on('close', close);
      outbound.on('error', close).on('close', close);
      inbound.pipe(outbound);
      outbound.pipe(inbound);
    });
    await new Promise<void>((done) => this.server!.listen(0, '127.0.0.1', done));
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
  }

  /** The database becomes unreachable: open connections are reset, new ones refused. */
  cut(): void {
    this.refusing = true;
    for (const socket of this.open) socket.resetAndDestroy();
    this.open.clear();
  }

  restore(): void {
    this.refusing = false;
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
