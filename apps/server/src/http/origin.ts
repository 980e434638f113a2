import { isLoopbackHost } from '../joinAddress.ts';

/**
 * The origin allowlist for HTTP and the socket handshake. Same-origin is always allowed (the app
 * is served from the API's own port); other browser origins only when listed in ALLOWED_ORIGINS.
 * Origins are compared whole, scheme, host and port: `https://host` is not the origin of a server
 * reached at `http://host`, nor `http://host:8080` of one at `http://host:3000`.
 * A request without an Origin header is not a browser's cross-site request (scripts, bench).
 */
export class OriginPolicy {
  private readonly allowed: ReadonlySet<string>;

  constructor(allowedOrigins: readonly string[]) {
    this.allowed = new Set(allowedOrigins.map((o) => new URL(o).origin));
  }

  /** `selfOrigin`: the server's own origin as the request addressed it (`ProxyTrust.selfOrigin`). */
  allows(origin: string | undefined, selfOrigin: string | null): boolean {
    if (origin === undefined) return true;
    let normalised: string;
    try {
      normalised = new URL(origin).origin;
    } catch {
      return false;
    }
    if (normalised === 'null') return false;
    if (this.allowed.has(normalised)) return true;
    return selfOrigin !== null && normalised === selfOrigin;
  }
}

/**
 * Whether a browser treats a page at `origin` as a secure context ("potentially trustworthy"):
 * https, or a loopback host over http. A student's tablet at `http://<laptop>:3000` is not.
 */
export function isTrustworthyOrigin(origin: string | null): boolean {
  if (origin === null) return false;
  const url = new URL(origin);
  return url.protocol === 'https:' || isLoopbackHost(url.hostname);
}
