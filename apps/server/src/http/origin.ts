/**
 * The origin allowlist for HTTP and the socket handshake. Same-origin is always allowed (the app
 * is served from the API's own port); other browser origins only when listed in ALLOWED_ORIGINS.
 * A request without an Origin header is not a browser's cross-site request (scripts, bench).
 */
export class OriginPolicy {
  private readonly allowed: ReadonlySet<string>;

  constructor(allowedOrigins: readonly string[]) {
    this.allowed = new Set(allowedOrigins.map((o) => new URL(o).origin));
  }

  allows(origin: string | undefined, host: string | undefined): boolean {
    if (origin === undefined) return true;
    if (this.allowed.has(origin)) return true;
    if (!host) return false;
    try {
      return new URL(origin).host === host;
    } catch {
      return false;
    }
  }
}
