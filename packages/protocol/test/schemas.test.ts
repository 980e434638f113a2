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
  isFatalErrorCode,
  parsePacket,
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

  test('a user keeps one colour on every screen, and users differ', () => {
    const a = randomUUID();
    expect(colorForUser(a)).toBe(colorForUser(a));
    const colours = new Set(Array.from({ length: 30 }, () => colorForUser(randomUUID())));
    expect(colours.size).toBeGreaterThan(20);
  });
});
