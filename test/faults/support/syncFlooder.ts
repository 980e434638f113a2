/**
 * One student's tabs flooding `sync.request` from a process of its own (so its sending does not
 * slow the test process that measures everyone else):
 * `node --import tsx syncFlooder.ts <url> <token> <tabs> <perSecondPerTab> <ms>`.
 * Every tab is a socket of the same session asking for the whole log (`lastRevision: 0`). Prints
 * one JSON line with how the requests were answered (and the CPU this process used), then exits.
 */
import { ClientEvent, PROTOCOL_VERSION, type ClientToServerEvents, type ServerToClientEvents } from '@wb/protocol';
import { io, type Socket } from 'socket.io-client';

const [url, token, tabsArg, perSecondArg, msArg] = process.argv.slice(2);
const tabs = Number(tabsArg);
const perSecond = Number(perSecondArg);
const ms = Number(msArg);

const sockets: Socket<ServerToClientEvents, ClientToServerEvents>[] = Array.from({ length: tabs }, () =>
  io(url!, { transports: ['websocket'], reconnection: false, forceNew: true, auth: { token: token!, protocol: PROTOCOL_VERSION } }),
);
await Promise.all(
  sockets.map(
    (socket) =>
      new Promise<void>((ready, fail) => {
        socket.once('connect', () => ready());
        socket.once('connect_error', (error) => fail(error));
      }),
  ),
);

const tally = { sent: 0, ok: 0, rateLimited: 0, other: 0, unanswered: 0, disconnected: 0 };
for (const socket of sockets) socket.on('disconnect', () => tally.disconnected++);
const pending: Promise<void>[] = [];
const startedAt = Date.now();
while (Date.now() - startedAt < ms) {
  const due = Math.floor((perSecond * tabs * (Date.now() - startedAt)) / 1000);
  while (tally.sent < due) {
    const socket = sockets[tally.sent % tabs]!;
    tally.sent++;
    pending.push(
      socket
        .timeout(10_000)
        .emitWithAck(ClientEvent.SYNC_REQUEST, { lastRevision: 0 })
        .then(
          (reply) => {
            if (reply.ok) tally.ok++;
            else if (reply.error.code === 'rate_limited') tally.rateLimited++;
            else tally.other++;
          },
          () => {
            tally.unanswered++;
          },
        ),
    );
  }
  await new Promise((done) => setTimeout(done, 10));
}
const sendingMs = Date.now() - startedAt;
await Promise.all(pending);
for (const socket of sockets) socket.disconnect();
const { user, system } = process.cpuUsage();
console.log(JSON.stringify({ ...tally, sendingMs, cpuMs: Math.round((user + system) / 1_000) }));
process.exit(0);
