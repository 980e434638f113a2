/**
 * The generator's socket, in two interchangeable implementations:
 *
 * - `wire`: speaks the Socket.IO v5 / engine.io v4 wire protocol directly over the `ws` package
 *   (the one socket.io-client itself uses). At the bare relay's message rates (~900 messages per
 *   client per second) socket.io-client's per-packet machinery made the generator the bottleneck
 *   at 2 rooms; this client does one JSON.parse per frame and nothing else.
 * - `socket.io`: socket.io-client, the library the web app uses (for cross-checking the wire
 *   client: both must give the same figures where neither is saturated).
 *
 * Only what the benchmark needs: text frames, the default namespace, events, acks, ping/pong.
 */
import { createRequire } from 'node:module';
import { io } from 'socket.io-client';

export type ClientKind = 'wire' | 'socket.io';

export interface BenchSocket {
  /** Server events, plus 'connect', 'connect_error' ({ message, data? }) and 'disconnect'. */
  on(event: string, handler: (payload: unknown) => void): void;
  emit(event: string, payload: unknown, ack?: (reply: unknown) => void): void;
  /** Sends unless the transport is busy (Socket.IO's volatile semantics); false when dropped. */
  emitVolatile(event: string, payload: unknown): boolean;
  close(): void;
}

export interface ConnectOptions {
  url: string;
  auth: Record<string, unknown>;
  timeoutMs: number;
}

export function openSocket(kind: ClientKind, options: ConnectOptions): BenchSocket {
  return kind === 'wire' ? new WireSocket(options) : new SocketIoClientSocket(options);
}

// -----------------------------------------------------------------------------------------------

/** The subset of `ws`'s WebSocket used here (its types are not a dependency of bench). */
interface WsSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  on(event: 'open', listener: () => void): void;
  on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): void;
  on(event: 'close', listener: () => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
  send(data: string): void;
  close(): void;
  terminate(): void;
}
type WsConstructor = new (url: string, options: { perMessageDeflate: boolean }) => WsSocket;

// The same `ws` that socket.io-client would load: bench/ -> socket.io-client -> engine.io-client -> ws.
const fromBench = createRequire(import.meta.url);
const fromSocketIoClient = createRequire(fromBench.resolve('socket.io-client'));
const fromEngineIoClient = createRequire(fromSocketIoClient.resolve('engine.io-client'));
const WebSocket = fromEngineIoClient('ws') as WsConstructor;
const OPEN = 1;
/** Past this much unsent data a volatile packet is dropped, as a busy Socket.IO transport would. */
const VOLATILE_BUFFER_LIMIT = 64 * 1024;

class WireSocket implements BenchSocket {
  private readonly ws: WsSocket;
  private readonly handlers = new Map<string, (payload: unknown) => void>();
  private readonly acks = new Map<number, (reply: unknown) => void>();
  private nextAck = 0;
  private connected = false;
  private closed = false;

  constructor(options: ConnectOptions) {
    const url = new URL('/socket.io/', options.url);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('EIO', '4');
    url.searchParams.set('transport', 'websocket');
    this.ws = new WebSocket(url.toString(), { perMessageDeflate: false });
    const timer = setTimeout(() => {
      if (!this.connected) this.fail('timeout');
    }, options.timeoutMs);
    this.ws.on('message', (data) => this.onFrame(data.toString('utf8'), options.auth));
    this.ws.on('error', (error) => {
      clearTimeout(timer);
      if (!this.connected) this.fail(error.message);
    });
    this.ws.on('close', () => {
      clearTimeout(timer);
      const wasConnected = this.connected;
      this.connected = false;
      if (this.closed) return;
      this.closed = true;
      if (wasConnected) this.handlers.get('disconnect')?.('transport close');
      else this.fail('closed before connect');
    });
  }

  on(event: string, handler: (payload: unknown) => void): void {
    this.handlers.set(event, handler);
  }

  emit(event: string, payload: unknown, ack?: (reply: unknown) => void): void {
    if (!this.connected || this.ws.readyState !== OPEN) return;
    if (ack) {
      const id = this.nextAck++;
      this.acks.set(id, ack);
      this.ws.send(`42${id}${JSON.stringify([event, payload])}`);
    } else {
      this.ws.send(`42${JSON.stringify([event, payload])}`);
    }
  }

  emitVolatile(event: string, payload: unknown): boolean {
    if (!this.connected || this.ws.readyState !== OPEN || this.ws.bufferedAmount > VOLATILE_BUFFER_LIMIT) return false;
    this.ws.send(`42${JSON.stringify([event, payload])}`);
    return true;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.connected = false;
    this.handlers.clear();
    this.acks.clear();
    if (this.ws.readyState === OPEN) {
      // Namespace disconnect, then the transport: what socket.disconnect() sends.
      this.ws.send('41');
      this.ws.close();
    } else {
      this.ws.terminate();
    }
  }

  private fail(message: string): void {
    this.handlers.get('connect_error')?.({ message });
    this.close();
  }

  private onFrame(frame: string, auth: Record<string, unknown>): void {
    const type = frame.charCodeAt(0);
    if (type === 0x32 /* '2' ping */) {
      this.ws.send('3');
      return;
    }
    if (type === 0x30 /* '0' engine open */) {
      this.ws.send(`40${JSON.stringify(auth)}`);
      return;
    }
    if (type === 0x31 /* '1' engine close */) {
      this.ws.close();
      return;
    }
    if (type !== 0x34 /* '4' message: a socket.io packet follows */) return;
    const packetType = frame.charCodeAt(1);
    if (packetType === 0x32 /* EVENT */) {
      const parsed = JSON.parse(frame.slice(2)) as [string, unknown];
      this.handlers.get(parsed[0])?.(parsed[1]);
    } else if (packetType === 0x33 /* ACK */) {
      const bracket = frame.indexOf('[');
      const id = Number(frame.slice(2, bracket));
      const ack = this.acks.get(id);
      this.acks.delete(id);
      ack?.((JSON.parse(frame.slice(bracket)) as unknown[])[0]);
    } else if (packetType === 0x30 /* CONNECT */) {
      this.connected = true;
      this.handlers.get('connect')?.(undefined);
    } else if (packetType === 0x34 /* CONNECT_ERROR */) {
      const error = JSON.parse(frame.slice(2)) as { message?: string; data?: unknown };
      this.handlers.get('connect_error')?.(error);
      this.close();
    } else if (packetType === 0x31 /* DISCONNECT by the server */) {
      this.ws.close();
    }
  }
}

// -----------------------------------------------------------------------------------------------

class SocketIoClientSocket implements BenchSocket {
  private readonly socket;

  constructor(options: ConnectOptions) {
    this.socket = io(options.url, {
      path: '/socket.io',
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      timeout: options.timeoutMs,
      auth: options.auth,
    });
  }

  on(event: string, handler: (payload: unknown) => void): void {
    if (event === 'connect_error') {
      this.socket.on('connect_error', (error) => handler({ message: error.message, data: (error as Error & { data?: unknown }).data }));
    } else {
      this.socket.on(event, handler);
    }
  }

  emit(event: string, payload: unknown, ack?: (reply: unknown) => void): void {
    if (ack) this.socket.emit(event, payload, ack);
    else this.socket.emit(event, payload);
  }

  emitVolatile(event: string, payload: unknown): boolean {
    // socket.io-client silently discards a volatile packet while the transport is writing.
    if (!(this.socket.io.engine?.transport?.writable ?? false)) return false;
    this.socket.volatile.emit(event, payload);
    return true;
  }

  close(): void {
    this.socket.removeAllListeners();
    this.socket.disconnect();
  }
}
