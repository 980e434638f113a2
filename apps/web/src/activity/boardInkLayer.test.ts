/**
 * A grid tile's live ink (boardInkLayer.ts) fed by its board's engine's ink store, as the class
 * grid feeds it, with the frames in the test's hands: the lines are a recorder, not a DOM.
 */
import type { BoardPointers, CursorBatch, Element, InkPoint } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { BoardEngine } from '../connection/boardEngine.ts';
import type { EditorTransport } from '../elements/boardEditor.ts';
import type { LiveStroke } from '../sync/liveInk.ts';
import { stateFromSnapshot } from '../sync/roomState.ts';
import { member, presence, snapshot } from '../sync/testFixtures.ts';
import { BoardInkLayer, type StrokeLines } from './boardInkLayer.ts';

const LESSON = '00000000-0000-4000-8000-00000000000a';
const BOARD = '00000000-0000-4000-8000-0000000000b1';
const OTHER_BOARD = '00000000-0000-4000-8000-0000000000b2';
const TEACHER = '00000000-0000-4000-8000-0000000000c1';
const ANA = '00000000-0000-4000-8000-0000000000c2';
const ANA_SESSION = '00000000-0000-4000-8000-0000000000e1';
const STROKE = '00000000-0000-4000-8000-00000000f001';
const STROKE2 = '00000000-0000-4000-8000-00000000f002';

const pen = (id: string, points: InkPoint[]): Element => ({
  id,
  shape: { kind: 'pen', x: 0, y: 0, points, stroke: '#1e1e1e', strokeWidth: 4 },
  version: 1,
  pinned: false,
  createdBy: ANA,
  updatedBy: ANA,
  z: 1,
  lock: null,
});
/** Ana's batch on a board: her pointer and `count` new points of a stroke from point `from`. */
const batch = (boardId: string, from: number, count: number, strokeId = STROKE): BoardPointers => ({
  boardId,
  pointers: [[ANA_SESSION, ANA, from, from]],
  ink: [{ strokeId, sessionId: ANA_SESSION, from, points: Array.from({ length: count }, (_, i): InkPoint => [from + i, 2 * (from + i), 0.5]), stroke: '#1e1e1e', strokeWidth: 4 }],
});

/** Lines as plain records: what was added, appended and removed, and what each line holds. */
function recorder() {
  const calls: string[] = [];
  const lines = new Set<{ strokeId: string; points: InkPoint[] }>();
  const port: StrokeLines<{ strokeId: string; points: InkPoint[] }> = {
    add: (stroke: LiveStroke) => {
      calls.push(`add ${stroke.strokeId.slice(-4)}`);
      const line = { strokeId: stroke.strokeId, points: [] as InkPoint[] };
      lines.add(line);
      return line;
    },
    append: (line, points) => {
      calls.push(`append ${line.strokeId.slice(-4)} ${points.length}`);
      line.points.push(...points);
    },
    remove: (line) => {
      calls.push(`remove ${line.strokeId.slice(-4)}`);
      lines.delete(line);
    },
  };
  return { port, calls, lines: () => [...lines] };
}

/** A board's ephemera as the connection hands them to its engine (roomClient.ts). */
const asCursors = (b: BoardPointers): CursorBatch => ({ cursors: b.pointers.map(([sessionId, , x, y]) => [sessionId, x, y] as const), ...(b.ink ? { ink: b.ink } : {}) });

/**
 * A teacher's engines of two private boards, whose stores publish on frames the test runs, framed
 * by a lesson where Ana is present; and a tile's layer on BOARD.
 */
function grid() {
  const frames: (() => void)[] = [];
  const base = snapshot();
  const lesson = stateFromSnapshot({ ...base, room: { ...base.room, id: LESSON }, members: [member(TEACHER, 'Ms Teacher', 'teacher'), member(ANA, 'Ana')], presence: [presence(ANA_SESSION, ANA)] });
  const engines = [BOARD, OTHER_BOARD].map((id) => {
    const engine = new BoardEngine(
      id,
      { kind: 'private', frame: { boardId: id, editPolicy: 'own' } },
      // Offline as far as the editor knows: nothing of ours is sent in these tests.
      { transport: { isConnected: () => false } as unknown as EditorTransport, requestSync: () => undefined },
      { userId: TEACHER, sessionId: '00000000-0000-4000-8000-0000000000e9', role: 'teacher' },
      (publish) => frames.push(publish),
    );
    engine.connectionOpened(0);
    engine.receiveBoardSync({ kind: 'snapshot', snapshot: { revision: 0, elements: [], board: { id, activityId: '00000000-0000-4000-8000-0000000000a1', ownerUserId: ANA, ownerName: 'Ana', revision: 0, editPolicy: 'own', shownLabel: null } } }, lesson, 0);
    return engine;
  });
  const [board, other] = engines as [BoardEngine, BoardEngine];
  const lines = recorder();
  const layer = new BoardInkLayer(lines.port);
  let draws = 0;
  board.ink.subscribe((now, before) => {
    if (now.strokes === before.strokes) return;
    draws++;
    layer.draw(now.strokes);
  });
  const frame = () => frames.splice(0).forEach((publish) => publish());
  const receivePointers = (b: BoardPointers) => (b.boardId === BOARD ? board : other).sync.receiveCursors(asCursors(b), 1_000);
  return { board, receivePointers, lines, frame, draws: () => draws, frames };
}

describe('a grid tile\'s live ink (boardInkLayer.ts)', () => {
  test('TI1: however many batches arrive within a frame, the tile draws once in it, with every point', async () => {
    const { receivePointers, lines, frame, draws, frames } = grid();
    // Ten batches of four points, and the other 29 boards' batches around them, in one frame.
    for (let i = 0; i < 10; i++) {
      receivePointers(batch(BOARD, i * 4, 4));
      receivePointers(batch(OTHER_BOARD, i * 4, 4, STROKE2));
    }
    // One frame asked for per board that changed: this board's and the other's.
    expect(frames).toHaveLength(2);
    expect(draws()).toBe(0);
    frame();
    expect(draws()).toBe(1);
    expect(lines.calls).toEqual(['add f001', 'append f001 40']);
    expect(lines.lines()[0]?.points).toEqual(Array.from({ length: 40 }, (_, i) => [i, 2 * i, 0.5]));
    // The next frame brings the next batches, again once.
    receivePointers(batch(BOARD, 40, 4));
    receivePointers(batch(BOARD, 44, 4));
    frame();
    expect(draws()).toBe(2);
    expect(lines.lines()[0]?.points).toHaveLength(48);
  });

  test('TI2: a stroke that grew gets only its new points appended; each point is on its line once, in order', async () => {
    const { receivePointers, lines, frame } = grid();
    receivePointers(batch(BOARD, 0, 4));
    frame();
    // An overlapping batch (points 2-7) and a repeated one: only 4-7 are new.
    receivePointers(batch(BOARD, 2, 6));
    receivePointers(batch(BOARD, 2, 6));
    frame();
    expect(lines.calls).toEqual(['add f001', 'append f001 4', 'append f001 4']);
    expect(lines.lines()[0]?.points.map(([x]) => x)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // A second stroke beside it gets a line of its own; the first is not drawn again.
    receivePointers(batch(BOARD, 0, 3, STROKE2));
    frame();
    expect(lines.calls.slice(3)).toEqual(['add f002', 'append f002 3']);
  });

  test('TI3: a stroke whose element arrives loses its line at once, in that task, not a frame later; a late batch never brings it back', async () => {
    const { board, receivePointers, lines, frame } = grid();
    receivePointers(batch(BOARD, 0, 8));
    frame();
    receivePointers(batch(BOARD, 8, 4));
    board.sync.receiveEvent({ roomId: BOARD, revision: 1, eventId: `element.created:${BOARD}:1`, kind: 'element.created', payload: { element: pen(STROKE, [[0, 0, 0.5]]) } }, 1_000);
    expect(board.sync.state?.elements.has(STROKE)).toBe(true);
    expect(lines.lines()).toEqual([]);
    expect(lines.calls.at(-1)).toBe('remove f001');
    receivePointers(batch(BOARD, 12, 4));
    frame();
    expect(lines.lines()).toEqual([]);
  });
});
