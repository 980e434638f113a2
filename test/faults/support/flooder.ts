/**
 * A misbehaving client in a process of its own (so its sending does not slow the test process that
 * measures everyone else's latency): `node --import tsx flooder.ts <url> <token> <perSecond> <ms>`.
 * Sends `perSecond` packets a second for `ms`: nine cursor packets in ten, and every tenth an
 * acknowledged element.create. Prints one JSON line with what came back, then exits.
 */
import { randomUUID } from 'node:crypto';
import { ClientEvent, PROTOCOL_VERSION, ServerEvent, type ClientToServerEvents, type ServerToClientEvents } from '@wb/protocol';
import { io, type Socket } from 'socket.io-client';

const [url, token, perSecondArg, msArg] = process.argv.slice(2);
const perSecond = Number(perSecondArg);
const ms = Number(msArg);
const TICK_MS = 10;

const socket: Socket<ServerToClientEvents, ClientToServerEvents> = io(url!, {
  transports: ['websocket'],
  reconnection: false,
  forceNew: true,
  auth: { token: token!, protocol: PROTOCOL_VERSION },
});

const tally = { sent: 0, cursorPackets: 0, requests: 0, accepted: 0, rateLimited: 0, otherRefusals: 0, unanswered: 0, noticesRateLimited: 0, disconnected: '' };
socket.on(ServerEvent.NOTICE, (notice) => {
  if (notice.code === 'rate_limited') tally.noticesRateLimited++;
});
socket.on('disconnect', (reason) => (tally.disconnected = reason));

await new Promise<void>((ready, fail) => {
  socket.once('connect', () => ready());
  socket.once('connect_error', (error) => fail(error));
});

const pending: Promise<void>[] = [];
const startedAt = Date.now();
while (Date.now() - startedAt < ms) {
  // Catch up with the clock, so a late timer does not lower the rate.
  const due = Math.floor((perSecond * (Date.now() - startedAt)) / 1000);
  while (tally.sent < due) {
    tally.sent++;
    if (tally.sent % 10 === 0) {
      tally.requests++;
      pending.push(
        socket
          .timeout(10_000)
          .emitWithAck(ClientEvent.ELEMENT_CREATE, {
            requestId: `req-${randomUUID()}`,
            id: randomUUID(),
            shape: { kind: 'rect', x: tally.sent % 500, y: 5, w: 4, h: 4, stroke: '#000000', fill: 'transparent', strokeWidth: 1 },
          })
          .then(
            (reply) => {
              if (reply.ok) tally.accepted++;
              else if (reply.error.code === 'rate_limited') tally.rateLimited++;
              else tally.otherRefusals++;
            },
            () => {
              tally.unanswered++;
            },
          ),
      );
    } else {
      tally.cursorPackets++;
      socket.emit(ClientEvent.CURSOR, { x: tally.sent % 1000, y: 7 });
    }
  }
  await new Promise((done) => setTimeout(done, TICK_MS));
}
const sendingMs = Date.now() - startedAt;
await Promise.all(pending);
socket.disconnect();
console.log(JSON.stringify({ ...tally, sendingMs }));
process.exit(0);
