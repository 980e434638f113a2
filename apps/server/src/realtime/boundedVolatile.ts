/**
 * Bounded volatile delivery (I10, I13; issue 22). Socket.IO discards a volatile packet whenever
 * the receiver's transport is in the middle of a write. A socket that follows several channels
 * gets several batches back to back in one tick (a teacher's grid: one `board.pointers` batch per
 * private board every 50 ms), and under that rule it kept only the first of them: the transport
 * is busy with it when the second comes. Here a volatile packet to a connection is queued like any
 * other while the connection's Engine.IO write buffer holds fewer than MAX_QUEUED_PACKETS packets
 * and MAX_QUEUED_CHARS characters, and dropped past that. A slow socket still sheds ephemera (the
 * next batch supersedes what it lost) instead of buffering them without bound; a healthy one gets
 * every batch of the tick, in one transport write.
 *
 * It is applied per connection at the one point every packet to a socket passes, so it holds for
 * a room broadcast from this node, for one relayed from another node by the Redis adapter
 * (classic or sharded: each node delivers to its own sockets the same way), and for a socket's
 * own volatile emit; the wire format is unchanged. The Socket.IO internals it relies on are
 * pinned by test/boundedVolatile.test.ts against the installed versions:
 *
 *   V1 every packet to a socket, broadcast or not, reaches its connection through the private
 *      `Client#writeToEngine(encodedPackets, opts)` (`socket.client`), `opts.volatile` set for a
 *      volatile one; with `volatile` unset it hands them to Engine.IO whatever the transport's state.
 *   V2 Engine.IO's private `Socket#writeBuffer` (`socket.conn`) holds the packets waiting for the
 *      transport, each with its `data` (a string, or binary), and is emptied when they are handed
 *      to the transport.
 */
import type { WbSocket } from './types.ts';

/**
 * Packets waiting in one connection's write buffer past which its volatile packets are dropped:
 * about four ticks of a teacher's grid of 30 boards plus the lesson's cursor batches.
 */
export const MAX_QUEUED_PACKETS = 128;
/**
 * Characters (JSON, so about bytes) waiting in one connection's write buffer past which its
 * volatile packets are dropped: a grid of 30 boards all inking sends ~15 KB a tick, so this is
 * about eight ticks (400 ms) a socket could not take.
 */
export const MAX_QUEUED_CHARS = 128 * 1024;

interface QueuedPacket {
  data?: unknown;
}
interface WriteOptions {
  volatile?: boolean;
}
/** The two internals (V1, V2) as this module sees them. */
interface EngineClient {
  writeToEngine(encodedPackets: unknown[], opts: WriteOptions): void;
  conn: { writeBuffer?: QueuedPacket[] };
}

const bounded = new WeakSet<object>();

const sizeOf = (data: unknown): number =>
  typeof data === 'string' ? data.length : ArrayBuffer.isView(data) || data instanceof ArrayBuffer ? data.byteLength : 0;

/** Whether one more volatile packet may join this write buffer (V2). */
export function volatileFits(queue: readonly QueuedPacket[] | undefined): boolean {
  if (!queue) return true;
  if (queue.length >= MAX_QUEUED_PACKETS) return false;
  let chars = 0;
  for (const packet of queue) {
    chars += sizeOf(packet.data);
    if (chars >= MAX_QUEUED_CHARS) return false;
  }
  return true;
}

/**
 * Makes the socket's connection take volatile packets while its write buffer has room (V1) and
 * drop them past that, calling `shed` for each dropped one. Once per connection. Returns false,
 * leaving Socket.IO's own rule in place, if the internals are not there (an upgrade the contract
 * test would have caught): the socket still works, as before issue 22's fix.
 */
export function boundVolatile(socket: WbSocket, shed: () => void): boolean {
  const client = socket.client as unknown as Partial<EngineClient>;
  if (typeof client.writeToEngine !== 'function' || !client.conn) return false;
  if (bounded.has(client)) return true;
  bounded.add(client);
  const write = client.writeToEngine.bind(client);
  const conn = client.conn;
  client.writeToEngine = (encodedPackets, opts) => {
    if (!opts.volatile) return write(encodedPackets, opts);
    if (!volatileFits(conn.writeBuffer)) return shed();
    // A copy: a broadcast shares one options object among all its receivers.
    write(encodedPackets, { ...opts, volatile: false });
  };
  return true;
}
