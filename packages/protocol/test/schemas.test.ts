import { randomUUID } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import {
  CursorBatch,
  CursorEntry,
  CursorUpdate,
  cursorEntry,
  cursorPosition,
  DisplayName,
  ErrorCode,
  FatalErrorCode,
  HandshakeAuth,
  MAX_COORDINATE,
  RoomCode,
  RoomEvent,
  colorForUser,
  MEMBER_PALETTE,
  isFatalErrorCode,
  parsePacket,
  readCursorUpdate,
} from '../src/index.ts';

describe('protocol schemas refuse bad input at the edge', () => {
  test.each([
    [{ x: 1, y: 2 }, true],
    [{ x: 1, y: 2, t: 123 }, true],
    [{ x: Number.NaN, y: 0 }, false],
    [{ x: Number.POSITIVE_INFINITY, y: 0 }, false],
    [{ x: 1e308, y: 0 }, false],
    [{ x: MAX_COORDINATE + 1, y: 0 }, false],
    [{ x: '1', y: 2 }, false],
    [{ x: 1 }, false],
    [{ x: 1, y: 2, extra: 1 }, false],
    [null, false],
  ])('cursor %j valid=%s', (packet, valid) => {
    expect(CursorUpdate.safeParse(packet).success).toBe(valid);
  });

  test('readCursorUpdate (the hot path) accepts only what CursorUpdate accepts, with the same value', () => {
    const samples: unknown[] = [
      { x: 1, y: 2 },
      { x: -0, y: 0.5, t: 7 },
      { x: MAX_COORDINATE, y: -MAX_COORDINATE },
      { x: MAX_COORDINATE + 1, y: 0 },
      { x: Number.NaN, y: 0 },
      { x: 1, y: Number.NEGATIVE_INFINITY },
      { x: 1, y: 2, t: Number.POSITIVE_INFINITY },
      { x: 1, y: 2, t: '3' },
      { x: 1, y: 2, t: undefined },
      { x: 1, y: 2, t: null },
      { x: 1, y: 2, extra: 1 },
      { x: 1 },
      { y: 1, t: 2 },
      JSON.parse('{"__proto__": 1, "x": 1, "y": 2}'),
      Object.assign(Object.create({ t: 3 }), { x: 1, y: 2 }),
      [1, 2],
      null,
      undefined,
      '{"x":1,"y":2}',
      42,
    ];
    // Random packets around the boundaries: numbers, strings, missing and extra keys.
    const pick = <T>(values: readonly T[]): T => values[Math.floor(Math.random() * values.length)] as T;
    const numbers = [0, 1.5, -3, MAX_COORDINATE, MAX_COORDINATE + 0.5, -MAX_COORDINATE - 1, Number.NaN, Infinity, 1e300];
    for (let i = 0; i < 2_000; i++) {
      const packet: Record<string, unknown> = {};
      for (const key of ['x', 'y', 't', 'z']) {
        if (Math.random() < (key === 'z' ? 0.1 : 0.85)) packet[key] = Math.random() < 0.9 ? pick(numbers) : String(pick(numbers));
      }
      samples.push(packet);
    }
    let accepted = 0;
    for (const packet of samples) {
      const fast = readCursorUpdate(packet);
      const schema = CursorUpdate.safeParse(packet);
      if (fast !== null) {
        accepted += 1;
        expect(schema.success, JSON.stringify(packet)).toBe(true);
        expect(fast).toEqual(schema.data);
      }
      // What arrives off the wire is JSON: for that, the two must agree both ways (declining a
      // valid packet is allowed only for shapes JSON cannot produce, such as inherited keys).
      const text = JSON.stringify(packet);
      if (text === undefined) continue;
      const wire: unknown = JSON.parse(text);
      expect(readCursorUpdate(wire) !== null, text).toBe(CursorUpdate.safeParse(wire).success);
    }
    expect(accepted).toBeGreaterThan(100);
  });

  test('a cursor entry is a tuple [sessionId, x, y, t?] and reads back by name', () => {
    const sessionId = randomUUID();
    expect(CursorEntry.safeParse([sessionId, 1.5, -2]).success).toBe(true);
    expect(CursorEntry.safeParse([sessionId, 1.5, -2, 1_764_000_000_000]).success).toBe(true);
    expect(CursorEntry.safeParse(['not-a-session', 1, 2]).success).toBe(false);
    expect(CursorEntry.safeParse([sessionId, 1]).success).toBe(false);
    expect(CursorEntry.safeParse([sessionId, 1, 2, 3, 4]).success).toBe(false);
    expect(CursorEntry.safeParse({ sessionId, x: 1, y: 2 }).success).toBe(false);
    expect(cursorEntry({ sessionId, x: 3, y: 4 })).toEqual([sessionId, 3, 4]);
    expect(cursorEntry({ sessionId, x: 3, y: 4, t: 5 })).toEqual([sessionId, 3, 4, 5]);
    expect(cursorPosition([sessionId, 3, 4])).toEqual({ sessionId, x: 3, y: 4 });
    expect(cursorPosition([sessionId, 3, 4, 5])).toEqual({ sessionId, x: 3, y: 4, t: 5 });
  });

  test('a batch of 31 stamped cursors is under half the bytes of the named entries of protocol 1', () => {
    const entries = Array.from({ length: 31 }, (_, i) => ({ sessionId: randomUUID(), userId: randomUUID(), x: 1234.5 + i, y: -678.9, t: 1_764_000_000_000 + i }));
    const batch = { cursors: entries.map((e) => cursorEntry(e)) };
    expect(CursorBatch.safeParse(batch).success).toBe(true);
    const tupleBytes = JSON.stringify(batch).length;
    const namedBytes = JSON.stringify({ cursors: entries }).length;
    // Half: the claim under test (a cursor as a tuple costs under half its named form); not a tolerance.
    expect(tupleBytes).toBeLessThan(namedBytes / 2);
  });

  test('display names are trimmed, bounded and free of control and bidi characters', () => {
    expect(DisplayName.parse('  Ana  ')).toBe('Ana');
    expect(DisplayName.safeParse('').success).toBe(false);
    expect(DisplayName.safeParse('   ').success).toBe(false);
    expect(DisplayName.safeParse('x'.repeat(41)).success).toBe(false);
    expect(DisplayName.safeParse('a\u0000b').success).toBe(false);
    expect(DisplayName.safeParse('evil\u202Eeman').success).toBe(false);
    // Markup is allowed as text: it is rendered as text, never as HTML.
    expect(DisplayName.parse('<b>Bo</b>')).toBe('<b>Bo</b>');
  });

  test('room codes are normalised to upper case and refuse ambiguous lengths', () => {
    expect(RoomCode.parse(' abc234 ')).toBe('ABC234');
    expect(RoomCode.safeParse('ABC23').success).toBe(false);
    expect(RoomCode.safeParse('ABC2345').success).toBe(false);
  });

  test('the handshake needs a token and a protocol version', () => {
    expect(HandshakeAuth.safeParse({ token: 't', protocol: 1 }).success).toBe(true);
    expect(HandshakeAuth.safeParse({ token: 't', protocol: 1, lastRevision: -1 }).success).toBe(false);
    expect(HandshakeAuth.safeParse({ protocol: 1 }).success).toBe(false);
  });

  test('room events are a closed union on kind', () => {
    const base = { roomId: randomUUID(), revision: 3, eventId: 'e1' };
    const payload = { sessionId: randomUUID(), userId: randomUUID(), revision: 2 };
    expect(RoomEvent.safeParse({ ...base, kind: 'presence.expired', payload }).success).toBe(true);
    expect(RoomEvent.safeParse({ ...base, kind: 'presence.vanished', payload }).success).toBe(false);
  });

  test('parsePacket names the offending field in a bad_request', () => {
    const parsed = parsePacket(CursorUpdate, { x: 1, y: 'no' });
    expect(parsed).toMatchObject({ ok: false, error: { code: ErrorCode.BAD_REQUEST } });
    if (!parsed.ok) expect(parsed.error.message).toMatch(/^y: /);
  });

  test('fatal codes stop retries; retryable ones do not', () => {
    for (const code of Object.values(FatalErrorCode)) expect(isFatalErrorCode(code)).toBe(true);
    expect(isFatalErrorCode(ErrorCode.RATE_LIMITED)).toBe(false);
    expect(isFatalErrorCode(ErrorCode.UNAVAILABLE)).toBe(false);
  });

  test('the fallback colour of a user without a membership is the same on every screen, from the palette', () => {
    const a = randomUUID();
    expect(colorForUser(a)).toBe(colorForUser(a));
    expect(MEMBER_PALETTE).toContain(colorForUser(a));
  });
});
