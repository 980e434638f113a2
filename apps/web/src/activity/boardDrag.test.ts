/**
 * The select tool's drag on a private board (boardDrag.ts), without a server: the lock is asked
 * for with the board, moves go only under the granted generation and name the board, the drop
 * carries the final shape; a refusal moves nothing and says why (the server decides, I11).
 */
import { ClientEvent, ErrorCode, type Element, type ElementShape } from '@wb/protocol';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { BOARD_LOCK_MOVE_MS, BoardDrag } from './boardDrag.ts';

const BOARD = '00000000-0000-4000-8000-0000000000b1';
const ME = '00000000-0000-4000-8000-0000000000c1';
const rect: ElementShape = { kind: 'rect', x: 100, y: 100, w: 50, h: 40, stroke: '#000000', fill: 'transparent', strokeWidth: 2 };
const element: Element = { id: '00000000-0000-4000-8000-000000000001', shape: rect, version: 1, pinned: false, createdBy: ME, updatedBy: ME, z: 1, lock: null };

type Reply = { ok: true; [k: string]: unknown } | { ok: false; error: { code: string; message: string } };

function setup(answer: (event: string) => Reply) {
  const sent: Array<[string, Record<string, unknown>]> = [];
  let t = 0;
  let ids = 0;
  const pending: Array<() => void> = [];
  const drag = new BoardDrag(
    {
      request: (event: string, payload: unknown) =>
        new Promise((resolve) => {
          sent.push([event, payload as Record<string, unknown>]);
          pending.push(() => resolve(answer(event) as never));
        }),
      emit: (event, payload) => sent.push([event, payload as Record<string, unknown>]),
      randomId: () => `request-${++ids}`,
      every: () => () => undefined,
    },
    () => t,
  );
  return {
    drag,
    sent,
    advance: (ms: number) => {
      t += ms;
      vi.advanceTimersByTime(ms);
    },
    /** Delivers every reply asked for so far. */
    answer: async () => {
      for (const deliver of pending.splice(0)) deliver();
      await Promise.resolve();
      await Promise.resolve();
    },
    of: (event: string) => sent.filter(([e]) => e === event).map(([, p]) => p),
  };
}

const grant = (event: string): Reply =>
  event === ClientEvent.LOCK_ACQUIRE
    ? { ok: true, grant: { elementId: element.id, generation: 7, expiresInMs: 2_000 } }
    : { ok: true, element: { ...element, shape: { ...rect, x: 160 } } };

describe('a drag on a private board', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  test('I4: acquire, moves and release all name the board; moves carry the granted generation, at most every 33 ms; the drop carries the final shape', async () => {
    const s = setup(grant);
    s.drag.begin(BOARD, element, { x: 110, y: 110 });
    // Not granted yet: the pointer moves, nothing is sent or drawn.
    s.drag.move({ x: 120, y: 110 });
    expect(s.of(ClientEvent.LOCK_MOVE)).toEqual([]);
    expect(s.drag.store.getState().preview).toBeNull();
    expect(s.of(ClientEvent.LOCK_ACQUIRE)).toEqual([{ requestId: 'request-1', elementId: element.id, boardId: BOARD }]);
    await s.answer();
    // The grant's first move confirms it (where the pointer already is).
    expect(s.of(ClientEvent.LOCK_MOVE)).toEqual([{ elementId: element.id, generation: 7, x: 110, y: 100, boardId: BOARD }]);
    s.advance(5);
    s.drag.move({ x: 140, y: 110 });
    s.drag.move({ x: 170, y: 110 });
    expect(s.of(ClientEvent.LOCK_MOVE).length).toBe(1);
    expect(s.drag.store.getState().preview).toMatchObject({ boardId: BOARD, elementId: element.id, shape: { x: 160, y: 100 } });
    s.advance(BOARD_LOCK_MOVE_MS);
    expect(s.of(ClientEvent.LOCK_MOVE).at(-1)).toEqual({ elementId: element.id, generation: 7, x: 160, y: 100, boardId: BOARD });
    s.drag.end();
    expect(s.of(ClientEvent.LOCK_RELEASE)).toEqual([
      { requestId: 'request-2', elementId: element.id, generation: 7, boardId: BOARD, shape: { ...rect, x: 160 } },
    ]);
    // The preview holds until the answer, so the element does not jump back meanwhile.
    expect(s.drag.store.getState().preview?.shape.x).toBe(160);
    await s.answer();
    expect(s.drag.store.getState().preview).toBeNull();
    expect(s.drag.store.getState().notice).toBeNull();
  });

  test('a resize from a handle is a drag under the same lock; released before the grant, the drop follows the grant', async () => {
    const s = setup(grant);
    s.drag.begin(BOARD, element, { x: 150, y: 140 }, { kind: 'resize', handle: 'se' });
    await Promise.resolve();
    s.drag.move({ x: 200, y: 180 });
    s.drag.end();
    expect(s.of(ClientEvent.LOCK_RELEASE)).toEqual([]);
    await s.answer();
    const [release] = s.of(ClientEvent.LOCK_RELEASE);
    expect(release).toMatchObject({ generation: 7, boardId: BOARD, shape: { kind: 'rect', x: 100, y: 100, w: 100, h: 80 } });
    // Dropped before the grant arrived: no move is sent after the drop.
    expect(s.of(ClientEvent.LOCK_MOVE)).toEqual([]);
  });

  test('I11: a refused lock (another student\'s board, or held by someone) moves nothing and says why', async () => {
    for (const code of [ErrorCode.BOARD_FORBIDDEN, ErrorCode.LOCKED]) {
      const s = setup(() => ({ ok: false, error: { code, message: 'no' } }));
      s.drag.begin(BOARD, element, { x: 110, y: 110 });
      await s.answer();
      s.drag.move({ x: 300, y: 300 });
      s.drag.end();
      expect(s.of(ClientEvent.LOCK_MOVE)).toEqual([]);
      expect(s.of(ClientEvent.LOCK_RELEASE)).toEqual([]);
      expect(s.drag.store.getState().preview).toBeNull();
      expect(s.drag.store.getState().notice?.text).toBeTruthy();
    }
  });
});
