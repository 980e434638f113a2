/**
 * The baseline: a bare Socket.IO relay. Each cursor packet is forwarded on its own with
 * `socket.to(room).volatile.emit` — no authentication, no leases, no validation, no batching.
 * The drawing class's traffic too (issue 42): each live-ink packet is forwarded the same way, as
 * `ink`, and each `element.create` is acknowledged at once and forwarded to the room as an
 * `element.created` room event carrying the request (nothing stored, checked or ordered).
 * It uses the very socket.io package and server options the product uses (resolved through
 * apps/server), so the difference between the two is the product's own work.
 *
 * Run: PORT=0 node --import tsx bench/bareRelay.ts   (prints the URL it listens on)
 * GET /lag answers the event-loop delay p99 since the previous call, like the product's
 * wb_nodejs_eventloop_lag_p99_seconds (a 10 ms resolution monitor, reset on each read).
 */
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { MAX_MESSAGE_BYTES } from '@wb/protocol';

const requireFromServer = createRequire(new URL('../apps/server/package.json', import.meta.url));
const { Server } = requireFromServer('socket.io') as typeof import('socket.io');

const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();

const http = createServer((req, res) => {
  if (req.url === '/lag') {
    const body = JSON.stringify({ p99Seconds: loopDelay.percentile(99) / 1e9 });
    loopDelay.reset();
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    return;
  }
  // Socket.IO answers its own path; anything else is not part of the relay.
  if (!req.url?.startsWith('/socket.io')) res.writeHead(404).end();
});

const io = new Server(http, {
  path: '/socket.io',
  serveClient: false,
  maxHttpBufferSize: MAX_MESSAGE_BYTES,
  pingInterval: 10_000,
  pingTimeout: 8_000,
});

io.on('connection', (socket) => {
  const room = String((socket.handshake.auth as { room?: unknown }).room ?? 'default');
  void socket.join(room);
  socket.on('cursor', (packet: unknown) => {
    socket.to(room).volatile.emit('cursor', packet);
  });
  socket.on('ink', (packet: unknown) => {
    socket.to(room).volatile.emit('ink', packet);
  });
  socket.on('element.create', (request: { id?: unknown; shape?: unknown }, ack?: unknown) => {
    if (typeof ack === 'function') (ack as (reply: unknown) => void)({ ok: true });
    socket.to(room).emit('room.event', { kind: 'element.created', roomId: room, payload: { element: { id: request?.id, shape: request?.shape } } });
  });
});

http.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  console.log(`bare relay is running: http://127.0.0.1:${port}`);
});

const stop = () => {
  void io.close();
  http.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2_000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
