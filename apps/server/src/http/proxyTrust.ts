/**
 * Which proxies in front of the server are believed (TRUST_PROXY, docs/operations.md). A forwarded
 * header (`X-Forwarded-For`, `-Proto`, `-Host`) is anyone's to write: it is read only when the hop
 * that delivered it is trusted, so a client talking to the server directly cannot pick the address
 * its rate limits are counted against. Off by default: the socket's peer is the client.
 *
 * One trust function serves Fastify (`request.ip`, `request.protocol`, `request.host`) and the
 * Socket.IO handshake (its raw request), so HTTP and sockets agree on who and where a client is.
 */
import type { IncomingMessage } from 'node:http';
import proxyaddr from '@fastify/proxy-addr';

/** Off, the number of proxy hops in front of the server, or the proxies' addresses and CIDRs. */
export type TrustProxySetting = false | number | readonly string[];

/** Parses TRUST_PROXY: empty/`false`/`0` off, a count of hops, or a comma-separated address list. */
export function parseTrustProxy(value: string): TrustProxySetting {
  const trimmed = value.trim();
  if (trimmed === '' || trimmed === 'false' || trimmed === '0') return false;
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const list = trimmed.split(',').map((s) => s.trim()).filter(Boolean);
  // proxy-addr throws on an address or CIDR it cannot read: the config reports it.
  proxyaddr.compile(list);
  return list;
}

export type TrustFn = (address: string, hop: number) => boolean;

export class ProxyTrust {
  /** Whether the hop-th address from the server's side (0: the socket's peer) is a trusted proxy. */
  readonly trusts: TrustFn;

  constructor(readonly setting: TrustProxySetting) {
    if (setting === false) this.trusts = () => false;
    else if (typeof setting === 'number') this.trusts = (_address, hop) => hop < setting;
    else this.trusts = proxyaddr.compile([...setting]);
  }

  /** What Fastify's `trustProxy` option takes. */
  get fastifyOption(): false | TrustFn {
    return this.setting === false ? false : this.trusts;
  }

  /** The client's address: the socket's peer, or the address the trusted hops forwarded. */
  clientAddress(request: IncomingMessage): string {
    return proxyaddr(request, this.trusts);
  }

  /** Whether the socket's peer is a trusted proxy: its forwarded headers are believed. */
  fromTrustedProxy(request: IncomingMessage): boolean {
    return request.socket?.remoteAddress !== undefined && this.trusts(request.socket.remoteAddress, 0);
  }

  /**
   * The origin the browser addressed (`scheme://host[:port]`), as Fastify reads it: the forwarded
   * proto and host only from a trusted peer. Null without a Host header.
   */
  selfOrigin(request: IncomingMessage): string | null {
    const peerTrusted = this.fromTrustedProxy(request);
    const forwarded = (name: string) => {
      const raw = request.headers[name];
      const value = Array.isArray(raw) ? raw.join(',') : raw;
      return peerTrusted && value ? value.slice(value.lastIndexOf(',') + 1).trim() : undefined;
    };
    const encrypted = (request.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
    return originOf(forwarded('x-forwarded-proto') ?? (encrypted ? 'https' : 'http'), forwarded('x-forwarded-host') ?? request.headers.host);
  }
}

/** `scheme://host[:port]` normalised as browsers send Origin (default ports dropped), or null. */
export function originOf(protocol: string | undefined, host: string | undefined): string | null {
  if (!protocol || !host) return null;
  try {
    return new URL(`${protocol}://${host}`).origin;
  } catch {
    return null;
  }
}
