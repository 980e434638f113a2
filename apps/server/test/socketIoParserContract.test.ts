/**
 * The contract between cursorIngress.ts and the Socket.IO internals it reaches into. It runs them
 * as installed; an upgrade that changes any of them turns this red before it can quietly send
 * every cursor packet down the slow path (or, worse, decode the wrong bytes). What the hook relies on:
 *
 *   P1 socket.io-parser's `Decoder` can be subclassed, its `add(chunk)` takes each Engine.IO
 *      message (a text packet as a string) and emits `decoded`, and `destroy()` ends it.
 *   P2 the private `Decoder#reconstructor` is set (non-null) from a binary packet's header until
 *      its last attachment arrives, and null again after it or after `destroy()`.
 *   P3 socket.io-parser's `Encoder` (the one socket.io-client uses) writes an event without an ack
 *      on the default namespace as `2` followed by the JSON array `[event, ...args]`.
 *   P5 for a packet without binary, `Encoder#encode` returns `[encodeAsString(packet)]` (the
 *      private method JsonBatchEncoder calls without the binary walk).
 *   P4 socket.io builds one decoder per connection from the server's `parser` option, keeps it as
 *      the private `Client#decoder` (reachable as `socket.client.decoder`), feeds it every message
 *      through `add`, and destroys it when the connection closes.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ClientEvent, ServerEvent, type ClientToServerEvents, type ServerToClientEvents } from '@wb/protocol';
import { Server } from 'socket.io';
import { io as connect, type Socket as ClientSocket } from 'socket.io-client';
import { Decoder, Encoder, PacketType, protocol, type Packet } from 'socket.io-parser';
import { afterEach, describe, expect, test } from 'vitest';
import { CursorDecoder, JsonBatchEncoder, cursorAwareParser, routeCursorPackets } from '../src/realtime/cursorIngress.ts';
import type { WbServer, WbSocket } from '../src/realtime/types.ts';

const require = createRequire(import.meta.url);
/** The installed version of a package (named in the suite's title, so a failure says which). */
const versionOf = (name: string, from?: string): string => {
  let dir = dirname(require.resolve(name, from ? { paths: [from] } : undefined));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === name && pkg.version) return pkg.version;
    } catch {
      // not the package root yet
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json for ${name}`);
    dir = up;
  }
};
const socketIoDir = dirname(require.resolve('socket.io'));
const installed = `socket.io ${versionOf('socket.io')}, socket.io-parser ${versionOf('socket.io-parser')} (socket.io's own: ${versionOf('socket.io-parser', socketIoDir)})`;

/** The private field P2 names, read the way cursorIngress.ts reads it. */
const reconstructorOf = (decoder: Decoder): unknown => (decoder as unknown as { reconstructor?: unknown }).reconstructor;

const encode = (packet: Packet): (string | Buffer)[] => new Encoder().encode(packet) as (string | Buffer)[];

describe(`socket.io-parser internals used by the cursor short way (${installed})`, () => {
  test('P1: Decoder is subclassable; add() decodes a text packet and emits it; destroy() exists', () => {
    class Probe extends Decoder {
      chunks: unknown[] = [];
      override add(chunk: unknown): void {
        this.chunks.push(chunk);
        super.add(chunk);
      }
    }
    const probe = new Probe();
    const decoded: Packet[] = [];
    probe.on('decoded', (packet: Packet) => decoded.push(packet));
    probe.add('2["cursor",{"x":1,"y":2}]');
    expect(probe.chunks).toEqual(['2["cursor",{"x":1,"y":2}]']);
    expect(decoded).toEqual([{ type: PacketType.EVENT, nsp: '/', data: ['cursor', { x: 1, y: 2 }] }]);
    expect(typeof probe.destroy).toBe('function');
    expect(cursorAwareParser.protocol).toBe(protocol);
  });

  test('P2: Decoder#reconstructor is set while a binary packet waits for its attachments, null after', () => {
    const [header, attachment, ...rest] = encode({ type: PacketType.EVENT, nsp: '/', data: ['drop', Buffer.from([1, 2])] });
    expect(typeof header).toBe('string');
    expect(Buffer.isBuffer(attachment)).toBe(true);
    expect(rest).toEqual([]);

    const decoder = new Decoder();
    const decoded: Packet[] = [];
    decoder.on('decoded', (packet: Packet) => decoded.push(packet));
    expect(reconstructorOf(decoder) ?? null).toBeNull();
    decoder.add(header);
    expect(reconstructorOf(decoder)).toBeTypeOf('object');
    expect(reconstructorOf(decoder)).not.toBeNull();
    decoder.add(attachment);
    expect(reconstructorOf(decoder)).toBeNull();
    expect(decoded).toHaveLength(1);

    decoder.add(header);
    expect(reconstructorOf(decoder)).not.toBeNull();
    decoder.destroy();
    expect(reconstructorOf(decoder)).toBeNull();
  });

  test('P2 as the hook uses it: a cursor-shaped text chunk amid a binary packet is not taken the short way', () => {
    const [header] = encode({ type: PacketType.EVENT, nsp: '/', data: ['drop', Buffer.from([1])] });
    const decoder = new CursorDecoder();
    const short: unknown[] = [];
    decoder.onCursor = (payload) => short.push(payload);
    decoder.add(header);
    // Socket.IO's own rule applies (text while reconstructing is an error that closes the connection).
    expect(() => decoder.add(`2["${ClientEvent.CURSOR}",{"x":1,"y":2}]`)).toThrow();
    expect(short).toEqual([]);
  });

  test('P3: an event without an ack on the default namespace is `2` and the JSON array', () => {
    const payload = { x: 1005.5, y: -2 };
    expect(encode({ type: PacketType.EVENT, nsp: '/', data: [ClientEvent.CURSOR, payload] })).toEqual([
      `2${JSON.stringify([ClientEvent.CURSOR, payload])}`,
    ]);
    // With an ack id or another namespace the text differs, so the short way's prefix cannot match.
    expect(encode({ type: PacketType.EVENT, nsp: '/', id: 7, data: [ClientEvent.CURSOR, payload] })[0]).toMatch(/^27\[/);
    expect(encode({ type: PacketType.EVENT, nsp: '/x', data: [ClientEvent.CURSOR, payload] })[0]).toMatch(/^2\/x,\[/);
  });

  test('P5: the batch encoder writes what the encoder writes, for batches and everything else', () => {
    const batch = { cursors: [['s', 1, 2]], ink: [{ strokeId: 'k', sessionId: 's', from: 0, points: [[1, 2, 0.5]], stroke: '#000000', strokeWidth: 3 }] };
    const packets: Packet[] = [
      { type: PacketType.EVENT, nsp: '/', data: [ServerEvent.CURSORS, batch] },
      { type: PacketType.EVENT, nsp: '/', data: [ServerEvent.ROOM_EVENT, { kind: 'element.created', revision: 3 }] },
      { type: PacketType.EVENT, nsp: '/', data: [ServerEvent.NOTICE, { code: 'x' }] },
      { type: PacketType.ACK, nsp: '/', id: 4, data: [{ ok: true }] },
      { type: PacketType.EVENT, nsp: '/', data: [ServerEvent.NOTICE, Buffer.from([1, 2])] },
    ];
    for (const packet of packets) expect(new JsonBatchEncoder().encode(packet)).toEqual(new Encoder().encode(packet));
  });
});

describe(`socket.io's per-connection decoder (${installed})`, () => {
  let http: HttpServer | null = null;
  let io: WbServer | null = null;
  let client: ClientSocket<ServerToClientEvents, ClientToServerEvents> | null = null;
  afterEach(async () => {
    client?.disconnect();
    await new Promise<void>((resolve) => (io ? io.close(() => resolve()) : resolve()));
    http?.close();
    client = null;
    io = null;
    http = null;
  });

  test('P4: socket.client.decoder is built from the parser option, fed every message, and destroyed on close', async () => {
    http = createServer();
    io = new Server(http, { parser: cursorAwareParser });
    await new Promise<void>((resolve) => http?.listen(0, '127.0.0.1', resolve));
    const { port } = http.address() as AddressInfo;

    const short: unknown[] = [];
    const slow: unknown[] = [];
    const connected = new Promise<{ socket: WbSocket; decoder: unknown; routed: boolean }>((resolve) => {
      io?.on('connection', (socket) => {
        socket.on(ClientEvent.SYNC_REQUEST, (request, ack) => {
          slow.push(request);
          ack({ ok: true, sync: { kind: 'replay', fromRevision: 0, events: [] } });
        });
        const decoder = (socket.client as unknown as { decoder?: unknown }).decoder;
        resolve({ socket, decoder, routed: routeCursorPackets(socket, (payload) => short.push(payload)) });
      });
    });
    client = connect(`http://127.0.0.1:${port}`, { transports: ['websocket'] });
    const { socket, decoder, routed } = await connected;
    expect(decoder).toBeInstanceOf(CursorDecoder);
    expect(routed).toBe(true);
    if (!(decoder instanceof CursorDecoder)) throw new Error('not the cursor-aware decoder');
    expect(decoder.onCursor).toBeTypeOf('function');

    client.emit(ClientEvent.CURSOR, { x: 3, y: 4 });
    const reply = await client.timeout(5_000).emitWithAck(ClientEvent.SYNC_REQUEST, { lastRevision: 1 });
    expect(reply.ok).toBe(true);
    expect(short).toEqual([{ x: 3, y: 4 }]);
    expect(slow).toEqual([{ lastRevision: 1 }]);

    let destroyed = false;
    const destroy = decoder.destroy.bind(decoder);
    decoder.destroy = () => {
      destroyed = true;
      destroy();
    };
    const closed = new Promise<void>((resolve) => socket.once('disconnect', () => resolve()));
    client.disconnect();
    await closed;
    await expect.poll(() => destroyed).toBe(true);
    expect(decoder.onCursor).toBeNull();
  });
});
