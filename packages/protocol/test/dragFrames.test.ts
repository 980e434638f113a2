import { randomUUID } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { BoardPointers, CursorBatch, ErrorCode, LockMove, MAX_COORDINATE, MAX_ELEMENT_SIZE, parsePacket } from '../src/index.ts';

const elementId = randomUUID();
const move = { elementId, generation: 3, x: 10, y: 20 };
const frame = { x: 10, y: 20, w: 300, h: 150, rotation: 30 };

describe('a resize or turn in progress is a lock.move with its frame (optional, validated at the edge)', () => {
  test.each([
    ['a move without a frame, as before', true, move],
    ['a move with a frame', true, { ...move, frame }],
    ['on a private board', true, { ...move, frame, boardId: randomUUID() }],
    ['a flat frame (a straight line)', true, { ...move, frame: { ...frame, h: 0 } }],
    ['a negative side', false, { ...move, frame: { ...frame, w: -1 } }],
    ['a side past MAX_ELEMENT_SIZE', false, { ...move, frame: { ...frame, h: MAX_ELEMENT_SIZE + 1 } }],
    ['a corner off the board', false, { ...move, frame: { ...frame, x: MAX_COORDINATE + 1 } }],
    ['a turn of 360°', false, { ...move, frame: { ...frame, rotation: 360 } }],
    ['a negative turn', false, { ...move, frame: { ...frame, rotation: -15 } }],
    ['a turn that is not a number', false, { ...move, frame: { ...frame, rotation: Number.NaN } }],
    ['a frame without its turn', false, { ...move, frame: { x: 1, y: 2, w: 3, h: 4 } }],
    ['a frame with an extra field', false, { ...move, frame: { ...frame, points: [] } }],
    ['a frame that is not an object', false, { ...move, frame: [1, 2, 3, 4, 0] }],
  ])('%s (valid: %s)', (_name, valid, packet) => {
    expect(LockMove.safeParse(packet).success).toBe(valid);
  });

  test('a bad frame is a bad_request naming the field', () => {
    const parsed = parsePacket(LockMove, { ...move, frame: { ...frame, rotation: 400 } });
    expect(parsed).toMatchObject({ ok: false, error: { code: ErrorCode.BAD_REQUEST } });
    if (!parsed.ok) expect(parsed.error.message).toMatch(/^frame\.rotation: /);
  });

  test('drag entries carry the frame in cursor and board batches; an entry without one reads as before', () => {
    const entry = { elementId, generation: 3, sessionId: randomUUID(), userId: randomUUID(), x: 10, y: 20 };
    const cursors = CursorBatch.parse({ cursors: [], drags: [entry, { ...entry, frame }] });
    expect(cursors.drags).toEqual([entry, { ...entry, frame }]);
    const board = BoardPointers.parse({ boardId: randomUUID(), pointers: [], drags: [{ ...entry, frame }] });
    expect(board.drags?.[0]?.frame).toEqual(frame);
    expect(CursorBatch.safeParse({ cursors: [], drags: [{ ...entry, frame: { ...frame, w: -5 } }] }).success).toBe(false);
  });
});
