/**
 * One socket write per connection per turn (issue 42). A drawing class's server spent about a
 * third of its main thread in `writev`: every packet to a connection was its own system call
 * (Engine.IO flushes its write buffer on each packet, and `ws` writes each frame on its own), so a
 * create batch's `element.created` events, the room's cursor batch and a sender's acknowledgement,
 * all leaving in the same turn, cost a call each per receiver. Here a connection's flush waits
 * for the end of the current turn (`process.nextTick`: after the running callback and its
 * microtasks), and then hands everything the turn queued to the transport with the TCP socket
 * corked, so the kernel gets it in one `writev`. Nothing is dropped or reordered: the packets
 * stay in Engine.IO's own write buffer, in order, and leave no later than the end of the turn.
 *
 * It relies on Engine.IO internals that are not public API, pinned against the installed versions
 * by test/coalescedWrites.test.ts:
 *
 *   W1 every packet to a connection is pushed to the private `Socket#writeBuffer` and then sent by
 *      `Socket#flush()` (`socket.client.conn`), which hands the whole buffer to the transport;
 *      every other flush (the transport ready again, an upgrade) also calls `flush()` on the socket.
 *   W2 the WebSocket transport's `socket` is the `ws` WebSocket, whose private `_socket` is the
 *      `net.Socket` its frames are written to.
 */
import type { WbSocket } from './types.ts';

interface EngineConnection {
  flush(): void;
  writeBuffer?: unknown[];
  readyState?: string;
  transport?: { socket?: { _socket?: { cork?: () => void; uncork?: () => void } } };
}

/** Connections whose flush waits for the end of this turn, with the flush to run then. */
const due = new Map<EngineConnection, () => void>();
let scheduled = false;

function flushDue(): void {
  scheduled = false;
  for (const [conn, flush] of due) {
    due.delete(conn);
    // W2: the TCP socket under a WebSocket transport (polling has none: its flush is one response anyway).
    const tcp = conn.transport?.socket?._socket;
    const corked = typeof tcp?.cork === 'function' && typeof tcp.uncork === 'function';
    if (corked) tcp.cork!();
    try {
      flush();
    } finally {
      if (corked) tcp.uncork!();
    }
  }
}

/**
 * Sends now what this turn has queued, on every connection. For a caller that closes connections
 * in the same turn: `io.close()` closes each Engine.IO socket with discard, which drops its
 * write buffer, so a last packet (the shutdown's `server_restarting` notice) would never leave.
 */
export function flushWritesNow(): void {
  if (due.size > 0) flushDue();
}

const coalesced = new WeakSet<object>();

/**
 * Makes the socket's connection flush once per turn (W1). Once per connection. Returns false,
 * leaving Engine.IO's flush per packet in place, if the internals are not there.
 */
export function coalesceWrites(socket: WbSocket): boolean {
  const conn = (socket.client as unknown as { conn?: Partial<EngineConnection> }).conn;
  if (!conn || typeof conn.flush !== 'function' || !Array.isArray(conn.writeBuffer)) return false;
  if (coalesced.has(conn)) return true;
  coalesced.add(conn);
  const connection = conn as EngineConnection;
  const flushNow = connection.flush.bind(connection);
  connection.flush = () => {
    if (due.has(connection)) return;
    due.set(connection, flushNow);
    if (!scheduled) {
      scheduled = true;
      process.nextTick(flushDue);
    }
  };
  return true;
}
