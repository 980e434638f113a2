import { ErrorCode, refusalText, type Ack, type ProtocolError } from '@wb/protocol';

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
  /**
   * Whether the database is answering other work (it answered within the last few seconds): a
   * request past its deadline is then answered `busy` (back-pressure), not `unavailable`.
   */
  databaseAnswering(): boolean;
}

/**
 * Every acknowledged request is answered within this long, even when the database never replies
 * (packets dropped: the query neither fails nor returns). Past it the client is told `unavailable`
 * and may retry with the same requestId (requests are idempotent); if the write lands later after
 * all, its room event reaches every client as usual. Below the web client's own 5 s reply timeout,
 * so it hears a retryable refusal rather than silence.
 */
export const REQUEST_DEADLINE_MS = 4_000;

/**
 * Wraps an acknowledged handler: the handler returns the reply's fields or throws a Refusal;
 * anything else becomes a retryable `unavailable`. No outcome within REQUEST_DEADLINE_MS is
 * `busy` while the database is answering other work (the server is past capacity: the client
 * keeps the edit and sends it again, showing it as syncing), else `unavailable` (the database is
 * away). The server never throws at the socket, and answers each request exactly once.
 */
export function acked<T>(
  context: AckContext,
  event: string,
  handler: (packet: unknown) => Promise<T>,
): (packet: unknown, ack: unknown) => void {
  return (packet, ack) => {
    if (typeof ack !== 'function') return context.missingAck(event);
    let answered = false;
    const reply = (value: Ack<T>) => {
      if (answered) return;
      answered = true;
      clearTimeout(deadline);
      (ack as (reply: Ack<T>) => void)(value);
    };
    const unavailable = { code: ErrorCode.UNAVAILABLE, message: 'The server could not complete this request. Retry.' } as const;
    const deadline = setTimeout(() => {
      if (context.databaseAnswering()) {
        context.refused(ErrorCode.BUSY);
        reply({ ok: false, error: { code: ErrorCode.BUSY, message: refusalText.busy } });
        return;
      }
      context.failed(event, new Error(`no outcome within ${REQUEST_DEADLINE_MS} ms (database not answering)`));
      reply({ ok: false, error: unavailable });
    }, REQUEST_DEADLINE_MS);
    deadline.unref();
    handler(packet).then(
      (value) => reply({ ok: true, ...value }),
      (error: unknown) => {
        if (answered) return;
        if (error instanceof Refusal) {
          context.refused(error.error.code);
          return reply({ ok: false, error: error.error });
        }
        context.failed(event, error);
        reply({ ok: false, error: unavailable });
      },
    );
  };
}
