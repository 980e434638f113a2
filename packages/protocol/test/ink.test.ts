import { randomUUID } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { ClientEvent, CursorBatch, InkUpdate, MAX_COORDINATE, MAX_INK_POINTS_PER_PACKET, MAX_LIVE_INK_POINTS, clientEventSchemas, isAckedClientEvent } from '../src/index.ts';

const strokeId = randomUUID();
const packet = (fields: Record<string, unknown> = {}) => ({ strokeId, from: 0, points: [[1, 2, 0.5]], stroke: '#1e1e1e', strokeWidth: 3, ...fields });

describe('live ink packets (ink.ts) are bounded and validated at the edge', () => {
  test.each([
    ['a first packet', packet(), true],
    ['a later packet', packet({ from: 40, points: [[1, 2, 0.5], [3, 4, 1]] }), true],
    ['pointer-up with no new points', packet({ points: [], end: 'up' }), true],
    ['a cancelled stroke', packet({ points: [], end: 'cancel' }), true],
    ['the most points a packet may carry', packet({ points: Array.from({ length: MAX_INK_POINTS_PER_PACKET }, (_, i) => [i, i, 0.5]) }), true],
    ['one point too many', packet({ points: Array.from({ length: MAX_INK_POINTS_PER_PACKET + 1 }, (_, i) => [i, i, 0.5]) }), false],
    ['an index past a live stroke', packet({ from: MAX_LIVE_INK_POINTS + 1 }), false],
    ['a negative index', packet({ from: -1 }), false],
    ['a fractional index', packet({ from: 1.5 }), false],
    ['a coordinate off the board', packet({ points: [[MAX_COORDINATE + 1, 0, 0.5]] }), false],
    ['a NaN coordinate', packet({ points: [[Number.NaN, 0, 0.5]] }), false],
    ['pressure above 1', packet({ points: [[0, 0, 1.5]] }), false],
    ['a point of two numbers', packet({ points: [[0, 0]] }), false],
    ['a stroke id that is not a UUID', packet({ strokeId: 'abc' }), false],
    ['a colour that is not #rrggbb', packet({ stroke: 'red' }), false],
    ['a stroke width out of range', packet({ strokeWidth: 100 }), false],
    ['an unknown end', packet({ end: 'done' }), false],
    ['an unknown field', packet({ userId: randomUUID() }), false],
  ])('%s', (_name, value, valid) => {
    expect(InkUpdate.safeParse(value).success).toBe(valid);
  });

  test('ink is a volatile client event validated by its schema', () => {
    expect(isAckedClientEvent(ClientEvent.INK)).toBe(false);
    expect(clientEventSchemas[ClientEvent.INK]).toBe(InkUpdate);
  });

  test('a cursor batch carries ink entries beside cursors; a batch without them stays valid', () => {
    const sessionId = randomUUID();
    expect(CursorBatch.safeParse({ cursors: [], ink: [{ strokeId, sessionId, from: 0, points: [[1, 2, 0.5]], stroke: '#000000', strokeWidth: 2 }] }).success).toBe(true);
    expect(CursorBatch.safeParse({ cursors: [[sessionId, 1, 2]] }).success).toBe(true);
  });
});
