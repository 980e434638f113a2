/**
 * Where students open the lesson (issue 35): the address the teacher's invitation, projector view
 * and QR code show (`GET /api/join-address`, docs/protocol.md), and the addresses the start message
 * prints. Pure: the network interfaces, the listening address and the page's origin are passed in.
 *
 * The join address, by the first rule that applies:
 *   JA1  PUBLIC_URL is set: that, always (`public`). A deployment knows its public name; a server
 *        in a container or behind a proxy cannot work it out.
 *   JA2  The teacher's page was opened at a name or address that is not loopback (a LAN address,
 *        a host name, a trusted proxy's forwarded host) and that name reaches the server from
 *        elsewhere: that origin (`network`). It just reached the server; the students' devices on
 *        the same network reach it the same way.
 *   JA3  The server listens on loopback only: nobody else can reach it, whatever name the page
 *        used (`this_computer`); the page's own origin is shown.
 *   JA4  The server listens on every interface: the first LAN address (IPv4 before IPv6, real
 *        adapters before virtual ones), the rest as `others` (`network`); none: `no_network`.
 *   JA5  The server listens on one address: that address (`network`).
 * Never a loopback name where students are meant to go (JA2, JA4, JA5).
 */
import type { NetworkInterfaceInfo } from 'node:os';
import { JoinReach, type JoinAddress } from '@wb/protocol';

/** What `os.networkInterfaces()` returns. */
export type NetworkInterfaces = NodeJS.Dict<NetworkInterfaceInfo[]>;

export interface JoinAddressInput {
  /** PUBLIC_URL (an origin), when set. */
  readonly publicUrl: string | undefined;
  /** HOST, as the server listens on it. */
  readonly listenHost: string;
  /** The port it listens on. */
  readonly port: number;
  readonly interfaces: NetworkInterfaces;
  /** The origin the teacher's page addressed (`scheme://host[:port]`), null when unknown. */
  readonly pageOrigin: string | null;
  /** The request came through a proxy TRUST_PROXY trusts (its forwarded host reaches the server). */
  readonly viaTrustedProxy: boolean;
}

/** One address students can open: its base URL and the adapter it is on. */
export interface LanAddress {
  readonly base: string;
  readonly adapter: string;
}

/** The join address by rules JA1–JA5. */
export function joinAddress(input: JoinAddressInput): JoinAddress {
  if (input.publicUrl) return { base: input.publicUrl, reach: JoinReach.PUBLIC, others: [] };
  const page = input.pageOrigin === null ? null : hostOf(input.pageOrigin);
  const pageIsLoopback = page === null || isLoopbackHost(page);
  const listensOnLoopback = isLoopbackHost(input.listenHost);
  if (input.pageOrigin !== null && !pageIsLoopback && (!listensOnLoopback || input.viaTrustedProxy)) {
    return { base: input.pageOrigin, reach: JoinReach.NETWORK, others: [] };
  }
  const here = input.pageOrigin ?? `http://localhost:${input.port}`;
  if (listensOnLoopback) return { base: here, reach: JoinReach.THIS_COMPUTER, others: [] };
  if (isWildcardHost(input.listenHost)) {
    const [first, ...rest] = lanAddresses(input.interfaces, input.listenHost, input.port);
    if (!first) return { base: here, reach: JoinReach.NO_NETWORK, others: [] };
    return { base: first.base, reach: JoinReach.NETWORK, others: rest.map((a) => a.base) };
  }
  return { base: baseUrl(input.listenHost, input.port), reach: JoinReach.NETWORK, others: [] };
}

/**
 * The addresses of this computer that students can open when the server listens on `listenHost`
 * (every interface), best first: IPv4 before IPv6 (only when listening on `::`, which takes both),
 * real adapters before virtual ones (Docker, VPNs, VM bridges), link-local IPv4 last. Loopback
 * and IPv6 link-local addresses (unusable in a typed URL) are left out.
 */
export function lanAddresses(interfaces: NetworkInterfaces, listenHost: string, port: number): LanAddress[] {
  const withIpv6 = listenHost.replace(/^\[|\]$/g, '').startsWith(':') || listenHost === '0:0:0:0:0:0:0:0';
  const found: { address: LanAddress; rank: number; order: number }[] = [];
  for (const [adapter, infos] of Object.entries(interfaces)) {
    for (const info of infos ?? []) {
      if (info.internal) continue;
      const ipv4 = info.family === 'IPv4';
      if (!ipv4 && (!withIpv6 || info.family !== 'IPv6' || /^fe[89ab]/i.test(info.address))) continue;
      const virtual = VIRTUAL_ADAPTER.test(adapter) || (ipv4 && info.address.startsWith('169.254.'));
      found.push({ address: { base: baseUrl(info.address, port), adapter }, rank: (ipv4 ? 0 : 2) + (virtual ? 1 : 0), order: found.length });
    }
  }
  return found.sort((a, b) => a.rank - b.rank || a.order - b.order).map((f) => f.address);
}

/**
 * Adapters that are not the computer's own network: Docker and container bridges, VM host-only
 * networks (VirtualBox, VMware, Hyper-V/WSL), VPN tunnels, macOS's peer-to-peer links.
 */
const VIRTUAL_ADAPTER = /^(docker|br-|veth|virbr|vmnet|vboxnet|vethernet|utun|tun|tap|wg|zt|tailscale|lxc|lxd|cni|flannel|podman|awdl|llw|anpi|bridge)/i;

/** The lines the server prints once it listens: where to open it here, and where students go. */
export function startMessage(input: Omit<JoinAddressInput, 'pageOrigin' | 'viaTrustedProxy'>): string[] {
  const lines = [`Classroom whiteboard is running: ${localUrl(input.listenHost, input.port)}`];
  if (input.publicUrl) return [...lines, `Students open: ${input.publicUrl}`];
  if (isLoopbackHost(input.listenHost)) {
    return [...lines, 'Only this computer can join. To open the lesson to the class, stop this and run: pnpm start:class'];
  }
  if (!isWildcardHost(input.listenHost)) return [...lines, `Students open: ${baseUrl(input.listenHost, input.port)}`];
  const lan = lanAddresses(input.interfaces, input.listenHost, input.port);
  if (lan.length === 0) return [...lines, 'This computer is on no network students can reach: join the school network, then restart.'];
  const width = Math.max(...lan.map((a) => a.base.length));
  return [...lines, 'Students open (on the same network as this computer):', ...lan.map((a) => `  ${a.base.padEnd(width)}  (${a.adapter})`)];
}

/** Where to open the server on its own computer (`localhost` when it listens on every interface). */
export function localUrl(listenHost: string, port: number): string {
  return baseUrl(isWildcardHost(listenHost) ? 'localhost' : listenHost, port);
}

/** `localhost`, `*.localhost`, 127.0.0.0/8, `::1` (bracketed or not, IPv4-mapped too). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(h) || h === '::1' || h === '0:0:0:0:0:0:0:1';
}

function isWildcardHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === '0.0.0.0' || h === '::' || h === '0:0:0:0:0:0:0:0';
}

function urlHost(address: string): string {
  const bare = address.replace(/^\[|\]$/g, '');
  return bare.includes(':') ? `[${bare}]` : bare;
}

function baseUrl(address: string, port: number): string {
  return `http://${urlHost(address)}:${port}`;
}

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).hostname;
  } catch {
    return null;
  }
}
