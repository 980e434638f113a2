import { ClientEvent } from '@wb/protocol';
import { Encoder, PacketType, type Packet } from 'socket.io-parser';
import { describe, expect, test } from 'vitest';
import { CursorDecoder } from '../src/realtime/cursorIngress.ts';

/** What socket.io-client's encoder puts on the wire for an event on the default namespace. */
const wire = (data: unknown[], id?: number, nsp = '/'): string => {
  const packet: Packet = { type: PacketType.EVENT, nsp, data, ...(id === undefined ? {} : { id }) };
  const [text] = new Encoder().encode(packet) as string[];
  if (typeof text !== 'string') throw new Error('expected a text packet');
  return text;
};

function decoderWithSpies() {
  const decoder = new CursorDecoder();
  const short: unknown[] = [];
  const decoded: Packet[] = [];
  decoder.onCursor = (payload) => short.push(payload);
  decoder.on('decoded', (packet: Packet) => decoded.push(packet));
  return { decoder, short, decoded };
}

describe('cursor ingress: the plain cursor packet takes the short way, everything else Socket.IO’s', () => {
  test('a plain cursor packet reaches the handler with its payload and is not decoded again', () => {
    const { decoder, short, decoded } = decoderWithSpies();
    decoder.add(wire([ClientEvent.CURSOR, { x: 1.5, y: -2 }]));
    decoder.add(wire([ClientEvent.CURSOR, 'not an object']));
    expect(short).toEqual([{ x: 1.5, y: -2 }, 'not an object']);
    expect(decoded).toEqual([]);
  });

  test('other forms and other events are decoded by Socket.IO exactly as before', () => {
    const { decoder, short, decoded } = decoderWithSpies();
    const forms = [
      wire([ClientEvent.CURSOR, { x: 1, y: 2 }], 7), // with an ack
      wire([ClientEvent.CURSOR, { x: 1, y: 2 }, 'extra']), // extra argument
      wire([ClientEvent.CURSOR]), // no payload
      wire([ClientEvent.CURSOR, { x: 1, y: 2 }], undefined, '/other'), // another namespace
      wire([ClientEvent.LEASE_RENEW, { revision: 1, requestId: 'r-1' }], 3),
    ];
    for (const form of forms) decoder.add(form);
    expect(short).toEqual([]);
    expect(decoded.map((p) => [p.nsp, p.id, p.data])).toEqual([
      ['/', 7, [ClientEvent.CURSOR, { x: 1, y: 2 }]],
      ['/', undefined, [ClientEvent.CURSOR, { x: 1, y: 2 }, 'extra']],
      ['/', undefined, [ClientEvent.CURSOR]],
      ['/other', undefined, [ClientEvent.CURSOR, { x: 1, y: 2 }]],
      ['/', 3, [ClientEvent.LEASE_RENEW, { revision: 1, requestId: 'r-1' }]],
    ]);
  });

  test('a malformed cursor packet fails the way Socket.IO fails it (the connection closes)', () => {
    const { decoder, short } = decoderWithSpies();
    expect(() => decoder.add(`2["${ClientEvent.CURSOR}",{"x":1`)).toThrow();
    expect(short).toEqual([]);
  });

  test('without a handler, and after destroy, every packet takes Socket.IO’s path', () => {
    const { decoder, short, decoded } = decoderWithSpies();
    decoder.onCursor = null;
    decoder.add(wire([ClientEvent.CURSOR, { x: 1, y: 2 }]));
    decoder.onCursor = (payload) => short.push(payload);
    decoder.destroy();
    expect(decoder.onCursor).toBeNull();
    expect(short).toEqual([]);
    expect(decoded).toHaveLength(1);
  });
});
