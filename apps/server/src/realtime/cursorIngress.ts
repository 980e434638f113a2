import { ClientEvent, ServerEvent } from '@wb/protocol';
import { Decoder, Encoder, PacketType, protocol, type Packet } from 'socket.io-parser';
import type { WbSocket } from './types.ts';

/**
 * The exact text of a cursor packet on the default namespace without an acknowledgement, as
 * Socket.IO's decoder receives it (the Engine.IO message type already taken off): event packet
 * type `2`, then the JSON array `["cursor", payload]`.
 */
const CURSOR_PACKET_PREFIX = `2[${JSON.stringify(ClientEvent.CURSOR)},`;

/**
 * The cursor packet's short way in. Cursor packets are nearly all of a busy node's inbound traffic
 * (30 a second per user) and volatile, and Socket.IO's general path for them (decode, two deferred
 * dispatches, the middleware chain, an event emitter) cost about as much server time as all the
 * rest of an update. This decoder recognises the one form a cursor packet takes on the wire and
 * gives its payload straight to the connection's handler; every other packet, and a cursor packet
 * in any other form (with an ack, extra arguments, malformed JSON), takes Socket.IO's own path,
 * unchanged. The wire protocol is the same either way (see docs/protocol.md).
 *
 * The one documented parser hook: it relies on Socket.IO internals that are not public API, each
 * pinned against the installed versions by test/socketIoParserContract.test.ts (P1-P4):
 * `Decoder#add` receives every message and `destroy` ends it (P1); the private
 * `Decoder#reconstructor` is non-null while a binary packet's attachments are awaited (P2); the
 * encoder's text form of a plain event (P3); and socket.io keeps each connection's decoder, built
 * from the `parser` option, as the private `Client#decoder` (P4). These are the only casts
 * (`as unknown as`) allowed in apps/server/src (eslint.config.js).
 */
export class CursorDecoder extends Decoder {
  /** Set once the connection is accepted, cleared when it closes; null means Socket.IO's path. */
  onCursor: ((payload: unknown) => void) | null = null;

  override add(chunk: unknown): void {
    if (this.onCursor && typeof chunk === 'string' && chunk.startsWith(CURSOR_PACKET_PREFIX) && !this.reconstructing()) {
      const payload = cursorPayload(chunk);
      if (payload !== NOT_A_CURSOR_PACKET) {
        this.onCursor(payload);
        return;
      }
    }
    super.add(chunk);
  }

  override destroy(): void {
    this.onCursor = null;
    super.destroy();
  }

  /** A binary packet is being put together: the next chunks are its attachments, not packets (P2). */
  private reconstructing(): boolean {
    return (this as unknown as { reconstructor?: unknown }).reconstructor != null;
  }
}

const NOT_A_CURSOR_PACKET = Symbol('not a cursor packet');

function cursorPayload(chunk: string): unknown {
  let packet: unknown;
  try {
    packet = JSON.parse(chunk.slice(1));
  } catch {
    return NOT_A_CURSOR_PACKET;
  }
  return Array.isArray(packet) && packet.length === 2 ? (packet[1] as unknown) : NOT_A_CURSOR_PACKET;
}

/**
 * The server's batches: plain JSON by their protocol schemas, never binary. Socket.IO's encoder
 * walks every packet's whole payload looking for binary before it writes the text (`hasBinary`:
 * ~2.4 % of a drawing class's server time, every cursor batch's every entry, issue 42).
 */
const JSON_ONLY_EVENTS: ReadonlySet<unknown> = new Set([ServerEvent.CURSORS, ServerEvent.ROOM_EVENT, ServerEvent.BOARD_POINTERS, ServerEvent.BOARDS_POINTERS]);

/**
 * Socket.IO's encoder, but for the batches above, written as text at once (P5: the private
 * `Encoder#encodeAsString` is what `encode` returns for a packet without binary).
 */
export class JsonBatchEncoder extends Encoder {
  override encode(packet: Packet): ReturnType<Encoder['encode']> {
    if (packet.type === PacketType.EVENT && Array.isArray(packet.data) && JSON_ONLY_EVENTS.has(packet.data[0])) {
      return [(this as unknown as { encodeAsString(packet: Packet): string }).encodeAsString(packet)];
    }
    return super.encode(packet);
  }
}

/** Socket.IO's default parser with the cursor-aware decoder and the batch encoder: pass as the server's `parser`. */
export const cursorAwareParser = { protocol, Encoder: JsonBatchEncoder, Decoder: CursorDecoder };

/**
 * Routes the socket's plain cursor packets to `handler` until the socket disconnects (the short
 * way exists only when the server runs with `cursorAwareParser`; keep the `cursor` event listener
 * for every other form). Returns whether the short way is in use.
 */
export function routeCursorPackets(socket: WbSocket, handler: (payload: unknown) => void): boolean {
  // P4: the connection's decoder, private to socket.io's Client.
  const decoder = (socket.client as unknown as { decoder?: unknown }).decoder;
  if (!(decoder instanceof CursorDecoder) || socket.disconnected) return false;
  decoder.onCursor = handler;
  // A namespace-level disconnect can leave the connection (and its decoder) open.
  socket.once('disconnect', () => {
    if (decoder.onCursor === handler) decoder.onCursor = null;
  });
  return true;
}
