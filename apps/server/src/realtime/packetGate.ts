import { ErrorCode, ServerEvent, refusalText, type Ack, type ProtocolError } from '@wb/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Metrics } from '../metrics.ts';
import type { TestHooks } from '../testHooks.ts';
import type { AckContext } from './requests.ts';
import { TokenBucket } from './tokenBucket.ts';
import type { WbSocket } from './types.ts';

/** Refusal notices for unacknowledged packets are sent at most this often per socket. */
const NOTICE_INTERVAL_MS = 1_000;

export interface PacketGateDeps {
  config: Config;
  metrics: Metrics;
  log: FastifyBaseLogger;
  hooks: TestHooks | null;
  /** Whether the database answered recently (requests.ts: `busy` rather than `unavailable`). */
  databaseAnswering: () => boolean;
}

/**
 * Every inbound packet of one socket passes here before its handler: the test hooks may hold it
 * (test mode only), then the socket's token bucket admits it or refuses it `rate_limited` (I10),
 * through its acknowledgement when it has one, else by a `notice`. Notices are throttled to one a
 * second per socket; every refusal is counted either way.
 */
export class PacketGate implements AckContext {
  private readonly bucket: TokenBucket;
  private lastNotice = 0;

  constructor(
    private readonly socket: WbSocket,
    private readonly deps: PacketGateDeps,
  ) {
    this.bucket = new TokenBucket(deps.config.SOCKET_EVENTS_PER_SEC, deps.config.SOCKET_EVENT_BURST, Date.now());
  }

  /** Lets the packet through (`next`), or refuses it. */
  admit(event: unknown, ack: unknown, next: () => void): void {
    if (this.deps.hooks?.holdInbound(this.socket.data.sessionId, next)) return;
    if (this.bucket.take(Date.now())) return next();
    const error = { code: ErrorCode.RATE_LIMITED, message: refusalText.rate_limited } as const;
    if (typeof ack === 'function') {
      this.refused(error.code);
      (ack as (reply: Ack<never>) => void)({ ok: false, error });
    } else {
      this.notice(error, String(event));
    }
  }

  /** Refuses a packet that has no acknowledgement to carry the refusal. */
  notice(error: ProtocolError, event?: string): void {
    this.refused(error.code);
    const now = Date.now();
    if (now - this.lastNotice < NOTICE_INTERVAL_MS) return;
    this.lastNotice = now;
    this.socket.emit(ServerEvent.NOTICE, { ...error, ...(event ? { event } : {}) });
  }

  refused(code: string): void {
    this.deps.metrics.refusedPackets.inc({ code });
  }

  /** A packet naming no client event: `bad_request`, answered through its acknowledgement if it has one. */
  unknownEvent(event: unknown, ack: unknown): void {
    const name = typeof event === 'string' ? event.slice(0, 64) : typeof event;
    const error = { code: ErrorCode.BAD_REQUEST, message: `Unknown event ${JSON.stringify(name)}.` } as const;
    if (typeof ack === 'function') {
      this.refused(error.code);
      (ack as (reply: Ack<never>) => void)({ ok: false, error });
    } else {
      this.notice(error, name);
    }
  }

  missingAck(event: string): void {
    this.notice({ code: ErrorCode.BAD_REQUEST, message: `${event} needs an acknowledgement` }, event);
  }

  databaseAnswering(): boolean {
    return this.deps.databaseAnswering();
  }

  failed(event: string, error: unknown): void {
    this.deps.log.warn({ err: String(error), event, session: this.socket.data.sessionId }, 'request failed');
  }
}
