/**
 * The server's edge for client events: the handler table's type, and `listen`, which puts every
 * client event of one socket through the packet gate, its protocol schema and its handler.
 *
 * To add a client event: name it in `ClientEvent` and give its payload and reply types in
 * `ClientToServerEvents` (packages/protocol/src/events.ts); the protocol then does not compile
 * until the event has its schema in `clientEventSchemas` and its acknowledged flag, and the server
 * does not compile until the table in socketServer.ts has its handler (with the map's request and
 * reply types). Handlers live in the concept's file (presence, sync, cursor, lock, element).
 */
import {
  ClientEvent,
  clientEventNames,
  clientEventSchemas,
  isAckedClientEvent,
  parsePacket,
  readCursorUpdate,
  readInkUpdate,
  type AckedClientEvent,
  type ClientReply,
  type ProtocolError,
  type ClientRequest,
  type VolatileClientEvent,
} from '@wb/protocol';
import { routeCursorPackets } from './cursorIngress.ts';
import type { PacketGate } from './packetGate.ts';
import { Refusal, acked } from './requests.ts';
import type { SocketSession } from './socketSession.ts';

/** Answers an acknowledged request with its reply's fields, or throws a `Refusal`. */
export type AckedHandler<E extends AckedClientEvent> = (session: SocketSession, request: ClientRequest<E>) => Promise<ClientReply<E>>;
/**
 * Takes a volatile packet; nothing is answered. A refused one is dropped, silently, or with a
 * (throttled) `notice` when the handler returns the refusal.
 */
export type VolatileHandler<E extends VolatileClientEvent> = (session: SocketSession, request: ClientRequest<E>) => ProtocolError | void;

type AckedHandlers = { readonly [E in AckedClientEvent]: AckedHandler<E> };
type VolatileHandlers = { readonly [E in VolatileClientEvent]: VolatileHandler<E> };
/** What the server does with each client event, given its validated request: total over `ClientEvent`. */
export type ClientEventHandlers = AckedHandlers & VolatileHandlers;

/**
 * Readers for the hottest volatile packets, cheaper than the schema: each accepts only what its
 * schema accepts, with the same value, and returns null for the schema to decide (and word the refusal).
 */
const fastReaders: { readonly [E in VolatileClientEvent]?: (packet: unknown) => ClientRequest<E> | null } = {
  [ClientEvent.CURSOR]: readCursorUpdate,
  [ClientEvent.INK]: readInkUpdate,
};

const knownEvents: ReadonlySet<unknown> = new Set(clientEventNames);

/**
 * Registers every client event of the session's socket, and the cursor packet's short way in
 * (cursorIngress.ts) under the same gate. Call once, when the connection is accepted.
 */
export function listen(session: SocketSession, handlers: ClientEventHandlers, gate: PacketGate): void {
  const socket = session.socket;
  socket.use((packet, next) => {
    const [event] = packet;
    const ack = packet.length > 1 ? packet[packet.length - 1] : undefined;
    // An event the protocol does not name is refused `bad_request` (through its acknowledgement
    // when it has one), never left unanswered; it still costs a token like any packet.
    gate.admit(event, ack, () => (knownEvents.has(event) ? next() : gate.unknownEvent(event, ack)));
  });
  const onCursor = volatileListener(ClientEvent.CURSOR, handlers[ClientEvent.CURSOR], session, gate);
  for (const event of clientEventNames) {
    if (isAckedClientEvent(event)) socket.on(event, ackedListener(event, handlers[event], session, gate));
    else socket.on(event, event === ClientEvent.CURSOR ? onCursor : volatileListener(event, handlers[event], session, gate));
  }
  routeCursorPackets(socket, (packet) => gate.admit(ClientEvent.CURSOR, undefined, () => onCursor(packet)));
}

function ackedListener<E extends AckedClientEvent>(event: E, handle: AckedHandlers[E], session: SocketSession, gate: PacketGate) {
  const schema = clientEventSchemas[event];
  return acked(gate, event, async (packet) => {
    const request = parsePacket(schema, packet);
    if (!request.ok) throw new Refusal(request.error);
    return handle(session, request.value);
  });
}

function volatileListener<E extends VolatileClientEvent>(
  event: E,
  handle: VolatileHandlers[E],
  session: SocketSession,
  gate: PacketGate,
): (packet: unknown) => void {
  const schema = clientEventSchemas[event];
  const bySchema = (packet: unknown) => {
    const request = parsePacket(schema, packet);
    if (!request.ok) return gate.notice(request.error, event);
    const refusal = handle(session, request.value);
    if (refusal) gate.notice(refusal, event);
  };
  const read = fastReaders[event];
  if (!read) return bySchema;
  return (packet) => {
    const request = read(packet);
    if (!request) return bySchema(packet);
    const refusal = handle(session, request);
    if (refusal) gate.notice(refusal, event);
  };
}
