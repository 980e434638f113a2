import { randomUUID } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { ClientEvent, CursorBatch, InkUpdate, MAX_COORDINATE, MAX_INK_POINTS_PER_PACKET, MAX_LIVE_INK_POINTS, clientEventSchemas, isAckedClientEvent, readInkUpdate } from '../src/index.ts';

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

describe('readInkUpdate, the server hot path (issue 42)', () => {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(Math.random() * values.length)] as T;
  const fieldValues: Record<string, readonly unknown[]> = {
    strokeId: [strokeId, 'abc', '00000000-0000-0000-0000-000000000000', strokeId.toUpperCase(), 7],
    from: [0, 40, MAX_LIVE_INK_POINTS, MAX_LIVE_INK_POINTS + 1, -1, 1.5, '3'],
    points: [[], [[1, 2, 0.5]], [[MAX_COORDINATE, -MAX_COORDINATE, 1]], [[MAX_COORDINATE + 1, 0, 0]], [[0, 0, 1.5]], [[0, 0]], [[0, 0, 0, 0]], [[0, '1', 0]], [null], [[Number.NaN, 0, 0]], Array.from({ length: MAX_INK_POINTS_PER_PACKET + 1 }, () => [0, 0, 0])],
    stroke: ['#1e1e1e', '#ABCDEF', 'red', '#12345', 0],
    strokeWidth: [3, 0.5, 64, 0.4, 65, Number.POSITIVE_INFINITY, '3'],
    end: ['up', 'cancel', 'done', null],
    boardId: [randomUUID(), 'board', 1],
    userId: [randomUUID()],
  };
  const OPTIONAL = new Set(['end', 'boardId', 'userId']);

  test('accepts only what InkUpdate accepts, with an equal value; agrees with it both ways on JSON', () => {
    const samples: unknown[] = [packet(), packet({ end: 'up', points: [] }), packet({ boardId: randomUUID() }), null, [], 'ink', Object.assign(Object.create({ end: 'up' }), packet())];
    for (let i = 0; i < 3_000; i++) {
      const sample: Record<string, unknown> = {};
      for (const [key, values] of Object.entries(fieldValues)) {
        const chance = OPTIONAL.has(key) ? (key === 'userId' ? 0.05 : 0.3) : 0.95;
        // Mostly valid values, so that most samples are accepted and the fields' checks are each reached.
        if (Math.random() < chance) sample[key] = Math.random() < 0.8 ? values[0] : pick(values);
      }
      samples.push(sample);
    }
    let accepted = 0;
    for (const sample of samples) {
      const fast = readInkUpdate(sample);
      const schema = InkUpdate.safeParse(sample);
      if (fast !== null) {
        accepted += 1;
        expect(schema.success, JSON.stringify(sample)).toBe(true);
        expect(fast).toEqual(schema.data);
      }
      const text = JSON.stringify(sample);
      if (text === undefined) continue;
      const wire: unknown = JSON.parse(text);
      expect(readInkUpdate(wire) !== null, text).toBe(InkUpdate.safeParse(wire).success);
    }
    expect(accepted).toBeGreaterThan(300);
  });
});
