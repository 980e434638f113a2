import { networkInterfaces } from 'node:os';
import type { JoinAddress } from '@wb/protocol';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { joinAddress } from '../joinAddress.ts';
import type { ProxyTrust } from './proxyTrust.ts';

export interface JoinRouteDeps {
  config: Pick<Config, 'PUBLIC_URL' | 'HOST'>;
  proxies: ProxyTrust;
  /** The port the server listens on (known once it listens; PORT=0 picks one). */
  port: () => number;
}

/** `GET /api/join-address`: the base of the join link the invitation shows (docs/protocol.md). */
export function registerJoinRoutes(app: FastifyInstance, deps: JoinRouteDeps): void {
  app.get('/api/join-address', async (request, reply) => {
    const address: JoinAddress = joinAddress({
      publicUrl: deps.config.PUBLIC_URL,
      listenHost: deps.config.HOST,
      port: deps.port(),
      // Read on every request: a laptop changes networks during a day.
      interfaces: networkInterfaces(),
      pageOrigin: deps.proxies.selfOrigin(request.raw),
      viaTrustedProxy: deps.proxies.fromTrustedProxy(request.raw),
    });
    return reply.header('cache-control', 'no-store').send(address);
  });
}
