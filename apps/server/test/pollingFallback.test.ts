/**
 * A school web filter that breaks WebSockets must not leave students without a lesson: the web
 * client's transport options (apps/web/src/connection/transports.ts) fall back to HTTP
 * long-polling. The filter here is a small Node HTTP proxy that forwards plain requests and
 * refuses every `Upgrade: websocket` with 403, as such filters do.
 */
import { randomUUID } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import { openTestDatabase, type TestDatabase } from '@wb/db/testing';
import { ClientEvent, PROTOCOL_VERSION, ServerEvent, type ClientToServerEvents, type ServerToClientEvents } from '@wb/protocol';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SOCKET_TRANSPORTS } from '../../web/src/connection/transports.ts';
import type { App } from '../src/app.ts';
import { createRoom, joinAs, startTestServer } from './support.ts';

/** Forwards HTTP to `target`; answers every WebSocket upgrade with 403 and counts it. */
class NoWebSocketFilter {
  refusedUpgrades = 0;
  forwarded = 0;
  private readonly server: Server;
  url = '';

  constructor(private readonly target: URL) {
    this.server = createServer((incoming, outgoing) => {
      this.forwarded++;
      const upstream = request(
        { host: this.target.hostname, port: this.target.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      upstream.on('error', () => outgoing.destroy());
      incoming.pipe(upstream);
    });
    this.server.on('upgrade', (_request, socket) => {
      this.refusedUpgrades++;
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    const address = this.server.address();
    this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((done) => this.server.close(() => done()));
  }
}

type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** Connects with exactly the web client's transport options; resolves once `sync` arrived. */
async function connectLikeTheWebClient(url: string, token: string): Promise<ClientSocket> {
  const socket: ClientSocket = io(url, {
    ...SOCKET_TRANSPORTS,
    transports: [...SOCKET_TRANSPORTS.transports],
    forceNew: true,
    reconnection: false,
    auth: { token, protocol: PROTOCOL_VERSION },
  });
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => fail(new Error('no sync within 10 s')), 10_000);
    socket.once(ServerEvent.SYNC, () => {
      clearTimeout(timer);
      done();
    });
  });
  return socket;
}

describe('polling fallback when websockets are refused', () => {
  let testDb: TestDatabase;
  let app: App;
  let filter: NoWebSocketFilter;

  beforeAll(async () => {
    testDb = await openTestDatabase('pglite');
    app = await startTestServer(testDb.database);
    filter = new NoWebSocketFilter(new URL(app.url));
    await filter.start();
  });
  afterAll(async () => {
    await filter?.close();
    await app?.close();
    await testDb?.drop();
  });

  test('behind a filter that refuses Upgrade: websocket, the client connects over long-polling and works', async () => {
    const teacher = await createRoom(app);
    const student = await joinAs(app, teacher.room.code, 'Ada');
    const socket = await connectLikeTheWebClient(filter.url, student.token);
    try {
      expect(filter.refusedUpgrades).toBeGreaterThan(0);
      expect(socket.io.engine.transport.name).toBe('polling');
      // Acknowledged requests travel over polling like over a websocket.
      const created = await socket.timeout(5_000).emitWithAck(ClientEvent.ELEMENT_CREATE, {
        requestId: `req-${randomUUID()}`,
        id: randomUUID(),
        shape: { kind: 'rect', x: 0, y: 0, w: 10, h: 10, stroke: '#1f2937', fill: 'transparent', strokeWidth: 2 },
      });
      expect(created).toMatchObject({ ok: true });
      // The upgrade keeps being refused; the session stays on polling and stays connected.
      await new Promise((done) => setTimeout(done, 500));
      expect(socket.connected).toBe(true);
      expect(filter.forwarded).toBeGreaterThan(2);
    } finally {
      socket.close();
    }
  });

  test('without the filter the same options connect straight over a websocket', async () => {
    const teacher = await createRoom(app);
    const socket = await connectLikeTheWebClient(app.url, teacher.token);
    try {
      expect(socket.io.engine.transport.name).toBe('websocket');
    } finally {
      socket.close();
    }
  });
});
