import type { CursorBatch, DragFrame, ElementShape } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { SyncEngine } from '../sync/syncEngine.ts';
import { BOB, BOB_S, EL1, TEACHER, TEACHER_S, created, element, expired, granted, rect, released, snapshotSync, updated } from '../sync/testFixtures.ts';
import { BoardEditor, type EditorTransport } from './boardEditor.ts';
import { transformShape, type Frame } from './transform.ts';

/** Nothing is sent in these tests: the teacher only watches Bob. */
const idle = (): never => {
  throw new Error('not sent in this test');
};
const transport: EditorTransport = {
  isConnected: () => true,
  createElement: idle,
  updateElement: idle,
  deleteElement: idle,
  acquireLock: idle,
  acquireLocks: idle,
  moveLocked: idle,
  moveLockedGroup: idle,
  sendInk: idle,
  releaseLock: idle,
  pinElement: idle,
  breakLock: idle,
  setLessonSettings: idle,
  setPaper: idle,
  setPen: idle,
};

/**
 * The teacher's screen: the sync engine wired to the editor as roomClient.ts wires them (the
 * state first, then the drags, in one change), and every shape EL1 was shown with, in order.
 */
function teacherWatchingBob(shape: ElementShape) {
  const engine = new SyncEngine({ requestSync: () => {} }, TEACHER_S);
  const editor = new BoardEditor({ userId: TEACHER, sessionId: TEACHER_S, role: 'teacher' }, transport);
  engine.subscribe((changes) => {
    if (changes.has('state')) editor.stateChanged(engine.state);
    if (changes.has('drags')) editor.dragsChanged(new Map(engine.drags));
  });
  const shown: ElementShape[] = [];
  const record = () => {
    const preview = editor.motion.getState().previews.get(EL1);
    const now = preview?.shape ?? editor.board.getState().elements.get(EL1)?.shape;
    if (now && now !== shown.at(-1)) shown.push(now);
  };
  editor.board.subscribe(record);
  editor.motion.subscribe(record);
  engine.connectionOpened(0);
  engine.receiveSync(snapshotSync(), 0);
  engine.receiveEvent(created(11, element(EL1, 1, shape)), 0);
  engine.receiveEvent(granted(12, EL1, 3, BOB_S, BOB), 0);
  shown.length = 0;
  return { engine, editor, shown };
}

const frameOf = (f: Frame): DragFrame => ({ ...f });
const reshape = (frame: DragFrame, x: number, y: number): CursorBatch => ({ cursors: [], drags: [{ elementId: EL1, generation: 3, sessionId: BOB_S, userId: BOB, x, y, frame }] });

describe('TR14: another person\'s resize or turn in progress is drawn live', () => {
  test('a resize frame draws the element at its previewed size, and the committed edit replaces it with nothing in between', () => {
    const { engine, editor, shown } = teacherWatchingBob(rect(100, 100, 100, 50));
    // Bob drags the south-east handle: his element now spans 300 × 150.
    engine.receiveCursors(reshape(frameOf({ x: 100, y: 100, w: 300, h: 150, rotation: 0 }), 100, 100), 1);
    expect(editor.motion.getState().previews.get(EL1)).toMatchObject({ own: false, userId: BOB, shape: { kind: 'rect', x: 100, y: 100, w: 300, h: 150 } });
    // His drop: the committed shape, then the lock's release. The screen goes from the preview to
    // the commit, never back to the old size.
    const committed = rect(100, 100, 300, 150);
    engine.receiveEvent(updated(13, element(EL1, 2, committed, { lock: { sessionId: BOB_S, userId: BOB, generation: 3 } })), 2);
    engine.receiveEvent(released(14, EL1, 3), 3);
    expect(editor.motion.getState().previews.size).toBe(0);
    expect(shown.length).toBeGreaterThan(0);
    for (const s of shown) expect(s).toMatchObject({ x: 100, y: 100, w: 300, h: 150 });
    expect(editor.board.getState().elements.get(EL1)?.shape).toBe(committed);
  });

  test('a turn of a pen stroke maps its points from the frame alone: the shape Bob will drop', () => {
    const stroke: ElementShape = { kind: 'pen', x: 100, y: 100, points: [[0, 0, 0.5], [100, 0, 0.5], [100, 50, 0.5]], stroke: '#1f2937', strokeWidth: 3 };
    const { engine, editor } = teacherWatchingBob(stroke);
    // Its own frame is its bounds, (100, 100) 100 × 50, upright; turned a quarter about its centre.
    const from: Frame = { x: 100, y: 100, w: 100, h: 50, rotation: 0 };
    const to: Frame = { ...from, rotation: 90 };
    engine.receiveCursors(reshape(frameOf(to), 125, 75), 1);
    const drawn = editor.motion.getState().previews.get(EL1)?.shape;
    expect(drawn).toEqual(transformShape(stroke, from, to));
  });

  test('an abandoned preview disappears: the holder\'s presence ends, or the lock is released without a drop', () => {
    const a = teacherWatchingBob(rect(100, 100, 100, 50));
    a.engine.receiveCursors(reshape(frameOf({ x: 100, y: 100, w: 300, h: 150, rotation: 0 }), 100, 100), 1);
    a.engine.receiveEvent(expired(13, BOB_S, BOB), 2);
    expect(a.editor.motion.getState().previews.size).toBe(0);
    expect(a.shown.at(-1)).toMatchObject({ w: 100, h: 50 });

    const b = teacherWatchingBob(rect(100, 100, 100, 50));
    b.engine.receiveCursors(reshape(frameOf({ x: 100, y: 100, w: 300, h: 150, rotation: 0 }), 100, 100), 1);
    b.engine.receiveEvent(released(13, EL1, 3), 2);
    expect(b.editor.motion.getState().previews.size).toBe(0);
    expect(b.editor.board.getState().elements.get(EL1)?.shape).toMatchObject({ w: 100, h: 50 });
  });

  test('a batch that moves nothing of it keeps the same preview shape (its markup is not rebuilt)', () => {
    const { engine, editor } = teacherWatchingBob(rect(100, 100, 100, 50));
    engine.receiveCursors(reshape(frameOf({ x: 100, y: 100, w: 300, h: 150, rotation: 0 }), 100, 100), 1);
    const first = editor.motion.getState().previews.get(EL1)?.shape;
    editor.dragsChanged(new Map(engine.drags));
    expect(editor.motion.getState().previews.get(EL1)?.shape).toBe(first);
  });
});
