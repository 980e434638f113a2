import { ErrorCode, type Ack, type ProtocolError } from '@wb/protocol';

/** A request refused with a protocol error, answered through its acknowledgement. */
export class Refusal extends Error {
  constructor(readonly error: ProtocolError) {
    super(error.message);
  }
}

export interface AckContext {
  /** Counts a refusal (metrics). */
  refused(code: string): void;
  /** A packet that arrived without an acknowledgement callback. */
  missingAck(event: string): void;
  /** An unexpected failure (usually the database), logged with the event name. */
  failed(event: string, error: unknown): void;
}

/**
 * Wraps an acknowledged handler: the handler returns the reply's fields or throws a Refusal;
 * anything else becomes a retryable `unavailable`. The server never throws at the socket.
 */
export function acked<T>(
  context: AckContext,
  event: string,
  handler: (packet: unknown) => Promise<T>,
): (packet: unknown, ack: unknown) => void {
  return (packet, ack) => {
    if (typeof ack !== 'function') return context.missingAck(event);
    const reply = ack as (reply: Ack<T>) => void;
    handler(packet).then(
      (value) => reply({ ok: true, ...value }),
      (error: unknown) => {
        if (error instanceof Refusal) {
          context.refused(error.error.code);
          return reply({ ok: false, error: error.error });
        }
        context.failed(event, error);
        reply({ ok: false, error: { code: ErrorCode.UNAVAILABLE, message: 'The server could not complete this request. Retry.' } });
      },
    );
  };
}
