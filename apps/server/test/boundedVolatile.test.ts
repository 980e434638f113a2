/**
 * Bounded volatile delivery (boundedVolatile.ts, I10, I13) against the installed Socket.IO and
 * Engine.IO: V1, V2 of its header. A socket whose transport never drains gets its volatile
 * packets queued up to the bound and shed past it, by room broadcast and by its own emit alike,
 * while durable packets still queue; once the transport drains, what was queued arrives and
 * volatile packets flow again.
 */
import { randomUUID } from 'node:crypto';
import { ErrorCode, ServerEvent, type BoardPointers, type InkEntry } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { MAX_QUEUED_CHARS, MAX_QUEUED_PACKETS } from '../src/realtime/boundedVolatile.ts';
import { roomChannel } from '../src/realtime/channels.ts';
import type { WbSocket } from '../src/realtime/types.ts';
import { createRoom, describeOnEachDatabase, joinAs } from './support.ts';

/** The Engine.IO internals the test reaches: the write buffer (V2) and the transport's send. */
interface Engine {
  writeBuffer: { data?: unknown }[];
  transport: { writable: boolean; send(packets: unknown[]): void };
}

const queuedChars = (engine: Engine) => engine.writeBuffer.reduce((sum, p) => sum + (typeof p.data === 'string' ? p.data.length : 0), 0);

/** A board batch with `points` ink points (about 20 characters each on the wire). */
const batch = (boardId: string, points: number): BoardPointers => {
  const ink: InkEntry = {
    sessionId: 's',
    strokeId: randomUUID(),
    from: 0,
    points: Array.from({ length: points }, (_, i) => [i, i, 0.5] as [number, number, number]),
    stroke: '#1e1e1e',
    strokeWidth: 3,
  };
  return { boardId, pointers: [], ...(points > 0 ? { ink: [ink] } : {}) };
};

describeOnEachDatabase('bounded volatile delivery', {}, (suite) => {
  const { client } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  const shedTotal = async () => {
    const line = (await (await fetch(`${app.url}/metrics`)).text()).split('\n').find((l) => l.startsWith('wb_volatile_packets_shed_total '));
    return Number(line?.split(' ')[1] ?? NaN);
  };

  /** A student's socket whose transport takes one write and never reports it done (its peer stopped reading). */
  async function stalledStudent() {
    const teacher = await createRoom(app);
    const grant = await joinAs(app, teacher.room.code, 'Ana');
    const s = client(app, grant.token);
    await s.ready();
    const socket = [...app.realtime.io.of('/').sockets.values()].find((x) => x.data.sessionId === grant.sessionId) as WbSocket;
    const engine = socket.conn as unknown as Engine;
    const transport = engine.transport;
    const send = transport.send.bind(transport);
    const held: unknown[] = [];
    transport.send = (packets) => {
      transport.writable = false;
      held.push(...packets);
    };
    const drain = () => {
      transport.send = send;
      send(held.splice(0));
    };
    return { roomId: teacher.room.id, s, socket, engine, held, drain };
  }

  test('V1, V2, I10: volatile packets to a socket whose transport does not drain queue up to MAX_QUEUED_PACKETS, then are shed; durable ones still queue; drained, it gets the queue and then new batches', async () => {
    const { roomId, s, socket, engine, held, drain } = await stalledStudent();
    const io = app.realtime.io;
    const shedBefore = await shedTotal();
    const SENT = 1_000;
    // Small batches: the packet bound is reached first. Half by room broadcast, half by the socket's own emit.
    for (let i = 0; i < SENT / 2; i++) {
      io.to(roomChannel(roomId)).volatile.emit(ServerEvent.BOARD_POINTERS, batch(`b${i}`, 0));
      socket.volatile.emit(ServerEvent.BOARD_POINTERS, batch(`o${i}`, 0));
    }
    // Nothing leaves before the turn ends (coalescedWrites.ts): the packets wait in the buffer up to the bound.
    expect(held.length).toBe(0);
    expect(engine.writeBuffer.length).toBe(MAX_QUEUED_PACKETS);
    // A durable packet is never shed.
    socket.emit(ServerEvent.NOTICE, { code: ErrorCode.UNAVAILABLE, message: 'durable' });
    expect(engine.writeBuffer.length).toBe(MAX_QUEUED_PACKETS + 1);
    expect((await shedTotal()) - shedBefore).toBe(SENT - MAX_QUEUED_PACKETS);
    // The turn's end handed the whole buffer to the transport, in one send, which holds it.
    expect(held.length).toBe(MAX_QUEUED_PACKETS + 1);

    drain();
    await s.until(() => s.received.notice.some((n) => n.message === 'durable'), 'the durable packet after the queue');
    expect(s.received[ServerEvent.BOARD_POINTERS].length).toBe(MAX_QUEUED_PACKETS);
    socket.volatile.emit(ServerEvent.BOARD_POINTERS, batch('after', 0));
    await s.until(() => s.received[ServerEvent.BOARD_POINTERS].some((p) => p.boardId === 'after'), 'a volatile batch once drained');
  });

  test('W1, W2 (coalescedWrites.ts, issue 42): what one turn sends to a connection reaches its transport in one send, in order, at the end of the turn', async () => {
    const teacher = await createRoom(app);
    const grant = await joinAs(app, teacher.room.code, 'Ana');
    const s = client(app, grant.token);
    await s.ready();
    const socket = [...app.realtime.io.of('/').sockets.values()].find((x) => x.data.sessionId === grant.sessionId) as WbSocket;
    const engine = socket.conn as unknown as Engine;
    const transport = engine.transport;
    const send = transport.send.bind(transport);
    const sends: number[] = [];
    transport.send = (packets) => {
      sends.push(packets.length);
      send(packets);
    };
    app.realtime.io.to(roomChannel(teacher.room.id)).volatile.emit(ServerEvent.BOARD_POINTERS, batch('first', 0));
    socket.emit(ServerEvent.NOTICE, { code: ErrorCode.UNAVAILABLE, message: 'second' });
    app.realtime.io.to(roomChannel(teacher.room.id)).volatile.emit(ServerEvent.BOARD_POINTERS, batch('third', 0));
    expect(sends).toEqual([]);
    await new Promise((resolve) => process.nextTick(resolve));
    expect(sends).toEqual([3]);
    transport.send = send;
    await s.until(() => s.received[ServerEvent.BOARD_POINTERS].some((p) => p.boardId === 'third'), 'the turn\'s packets');
    expect(s.received[ServerEvent.BOARD_POINTERS].map((p) => p.boardId)).toEqual(['first', 'third']);
    expect(s.received.notice.some((n) => n.message === 'second')).toBe(true);
  });

  test('V2, I10: large volatile batches to a socket whose transport does not drain are shed once MAX_QUEUED_CHARS wait', async () => {
    const { roomId, engine } = await stalledStudent();
    const io = app.realtime.io;
    const shedBefore = await shedTotal();
    const SENT = 200;
    // ~5 KB a batch: the character bound is reached before the packet bound.
    for (let i = 0; i < SENT; i++) io.to(roomChannel(roomId)).volatile.emit(ServerEvent.BOARD_POINTERS, batch(`b${i}`, 256));
    const one = queuedChars(engine) / engine.writeBuffer.length;
    const waiting = engine.writeBuffer.length;
    expect(waiting).toBeLessThan(MAX_QUEUED_PACKETS);
    expect(queuedChars(engine)).toBeGreaterThanOrEqual(MAX_QUEUED_CHARS);
    expect(queuedChars(engine)).toBeLessThan(MAX_QUEUED_CHARS + one);
    expect((await shedTotal()) - shedBefore).toBe(SENT - waiting);
  });
});
