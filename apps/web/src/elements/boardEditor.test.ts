import { DEFAULT_LESSON_SETTINGS, INK_SYNC_MS, MAX_INK_POINTS_PER_PACKET, policyText, refusalText, type Ack, type EditPolicy, type Element, type ElementReply, type InkUpdate, type LockGrant, type LockManyReply, type LockMove, type LockReleaseRequest, type UpdateElementRequest } from '@wb/protocol';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { applyRoomEvent, stateFromSnapshot, type RoomState } from '../sync/roomState.ts';
import { ALICE, ALICE_S, BOB, BOB_S, EL1, EL2, TEACHER, member, created, element, granted, rect, snapshot } from '../sync/testFixtures.ts';
import { BoardEditor, SYNCING_AFTER_MS, type EditKeeper, type EditorTransport } from './boardEditor.ts';
import type { EditOp } from './editQueue.ts';

/** A transport whose replies the test decides; every request is recorded. */
function fakeTransport() {
  const calls: Array<{ kind: string; request: unknown }> = [];
  const moves: LockMove[] = [];
  const inks: InkUpdate[] = [];
  let connected = true;
  let nextGrant: Ack<{ grant: LockGrant }> | null = null;
  let nextRelease: Ack<ElementReply> | null = null;
  /** Answers for the next creates, in order; then the echo. */
  const createAnswers: Ack<ElementReply>[] = [];
  /** Answers for the next updates, in order; then the echo. */
  const updateAnswers: Ack<ElementReply>[] = [];
  let nextGroup: Ack<LockManyReply> | null = null;
  const pending: Array<() => void> = [];
  const reply = <T,>(kind: string, request: unknown, answer: () => Ack<T>) => {
    calls.push({ kind, request });
    return new Promise<Ack<T>>((resolve) => pending.push(() => resolve(answer())));
  };
  const echo = (request: { id: string; shape?: Element['shape'] }, version: number): Ack<ElementReply> => ({
    ok: true,
    element: element(request.id, version, request.shape ?? rect()),
  });
  const transport: EditorTransport = {
    isConnected: () => connected,
    createElement: (r) => reply('create', r, () => createAnswers.shift() ?? echo(r, 1)),
    updateElement: (r: UpdateElementRequest) => reply('update', r, () => updateAnswers.shift() ?? echo(r, r.baseVersion + 1)),
    deleteElement: (r) => reply('delete', r, () => echo({ id: r.id }, 9)),
    acquireLock: (r) => reply('acquire', r, () => nextGrant ?? { ok: true, grant: { elementId: r.elementId, generation: 7, expiresInMs: 2_000 } }),
    acquireLocks: (r) =>
      reply('acquireMany', r, () => nextGroup ?? { ok: true, grants: r.elementIds.map((elementId) => ({ elementId, generation: 4, expiresInMs: 2_000 })) }),
    moveLocked: (m) => moves.push(m),
    moveLockedGroup: (ms) => {
      moves.push(...ms);
      calls.push({ kind: 'moveGroup', request: ms });
    },
    sendInk: (u) => {
      inks.push(u);
      calls.push({ kind: 'ink', request: u });
    },
    releaseLock: (r: LockReleaseRequest) =>
      reply('release', r, () => nextRelease ?? { ok: true, element: element(r.elementId, 3, r.shape ?? rect()) }),
    pinElement: (r) => reply('pin', r, () => echo({ id: r.elementId }, 2)),
    breakLock: (r) => reply('break', r, () => echo({ id: r.elementId }, 2)),
    setLessonSettings: (r) => reply('settings', r, () => ({ ok: true, settings: { ...DEFAULT_LESSON_SETTINGS, editPolicy: r.settings.editPolicy ?? 'own' } })),
    setPaper: (paper) => reply('paper', paper, () => ({ ok: true })),
    setPen: (r) => reply('pen', r, () => ({ ok: true, member: { userId: r.userId, displayName: 'Alice', role: 'student', status: 'active', colorIndex: 1, penMuted: r.muted, handRaisedAt: null } })),
  };
  return {
    transport,
    calls,
    moves,
    inks,
    /** Deliver every reply waiting so far, then let promise callbacks run. */
    async flush() {
      for (const deliver of pending.splice(0)) deliver();
      await vi.advanceTimersByTimeAsync(0);
    },
    setConnected: (c: boolean) => (connected = c),
    grantWith: (a: Ack<{ grant: LockGrant }>) => (nextGrant = a),
    releaseWith: (a: Ack<ElementReply>) => (nextRelease = a),
    answerCreatesWith: (...answers: Ack<ElementReply>[]) => createAnswers.push(...answers),
    answerUpdatesWith: (...answers: Ack<ElementReply>[]) => updateAnswers.push(...answers),
    groupWith: (a: Ack<LockManyReply>) => (nextGroup = a),
  };
}

function setup(state: RoomState, role: 'teacher' | 'student' = 'student', place = { privateBoard: false }) {
  const t = fakeTransport();
  const editor = new BoardEditor({ userId: ALICE, sessionId: ALICE_S, role }, t.transport, null, place);
  editor.stateChanged(state);
  return { editor, ...t };
}

const withRect = () => applyRoomEvent(stateFromSnapshot(snapshot()), created(11, element(EL1, 2, rect(100, 100))));

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('drags under a lock', () => {
  test('refused at once, without a request, while someone else holds the lock (no flicker, no jump)', () => {
    const { editor, calls } = setup(applyRoomEvent(withRect(), granted(12, EL1, 4, BOB_S, BOB)));
    expect(editor.beginDrag(EL1, { x: 110, y: 110 })).toBe('locked');
    editor.moveDrag({ x: 200, y: 200 });
    editor.endDrag();
    expect(calls).toEqual([]);
    expect(editor.motion.getState().previews.size).toBe(0);
  });

  test('a pinned element refuses a student and lets the teacher ask for the lock', () => {
    const pinned = applyRoomEvent(stateFromSnapshot(snapshot()), created(11, element(EL1, 2, rect(), { pinned: true })));
    expect(setup(pinned).editor.beginDrag(EL1, { x: 1, y: 1 })).toBe('pinned');
    const teacher = setup(pinned, 'teacher');
    expect(teacher.editor.beginDrag(EL1, { x: 1, y: 1 })).toBeNull();
    expect(teacher.calls.map((c) => c.kind)).toEqual(['acquire']);
  });

  test('nothing moves before the grant; then moves carry its generation and pointer-up commits the final shape', async () => {
    const { editor, calls, moves, flush } = setup(withRect());
    editor.beginDrag(EL1, { x: 110, y: 110 });
    editor.moveDrag({ x: 130, y: 120 });
    expect(editor.motion.getState().previews.size).toBe(0);
    await flush(); // the grant arrives: the element jumps forward to the pointer, never back
    expect(editor.motion.getState().previews.get(EL1)).toMatchObject({ x: 120, y: 110, own: true });
    expect(moves.at(-1)).toEqual({ elementId: EL1, generation: 7, x: 120, y: 110 });
    editor.moveDrag({ x: 150, y: 160 });
    await vi.advanceTimersByTimeAsync(40);
    expect(moves.at(-1)).toMatchObject({ generation: 7, x: 140, y: 150 });
    editor.endDrag();
    expect(calls.at(-1)).toMatchObject({ kind: 'release', request: { elementId: EL1, generation: 7, shape: { x: 140, y: 150 } } });
    await flush();
    // Acknowledged: drawn at the committed position until the room event arrives.
    expect(editor.board.getState().elements.get(EL1)?.shape).toMatchObject({ x: 140, y: 150 });
    expect(editor.board.getState().canUndo).toBe(true);
  });

  test('TR8: a resize from a handle is a drag under the lock: its moves carry the frame the others draw it at, the drop commits the new size', async () => {
    const { editor, calls, moves, flush } = setup(withRect());
    const frame = { x: 100, y: 100, w: 100, h: 50, rotation: 0 };
    expect(editor.beginDrag([EL1], { x: 200, y: 150 }, { kind: 'resize', handle: 'se', frame })).toBeNull();
    expect(calls.at(-1)).toMatchObject({ kind: 'acquire', request: { elementId: EL1 } });
    await flush();
    editor.moveDrag({ x: 300, y: 250 }, true);
    await vi.advanceTimersByTimeAsync(40);
    // Our screen shows the new shape; each move keeps the lock alive and says where it now stands.
    expect(editor.motion.getState().previews.get(EL1)?.shape).toMatchObject({ x: 100, y: 100, w: 300, h: 150 });
    expect(moves.at(-1)).toEqual({ elementId: EL1, generation: 7, x: 100, y: 100, frame: { x: 100, y: 100, w: 300, h: 150, rotation: 0 } });
    editor.endDrag();
    expect(calls.at(-1)).toMatchObject({ kind: 'release', request: { elementId: EL1, generation: 7, shape: { x: 100, y: 100, w: 300, h: 150 } } });
  });

  test('TR12: shift let go mid-resize frees the proportions at once, without a pointer move', async () => {
    const { editor, flush } = setup(withRect());
    editor.beginDrag([EL1], { x: 200, y: 150 }, { kind: 'resize', handle: 'se', frame: { x: 100, y: 100, w: 100, h: 50, rotation: 0 } });
    await flush();
    editor.moveDrag({ x: 300, y: 160 }, true);
    expect(editor.motion.getState().previews.get(EL1)?.shape).toMatchObject({ w: 200, h: 100 });
    editor.setDragShift(false);
    expect(editor.motion.getState().previews.get(EL1)?.shape).toMatchObject({ w: 200, h: 60 });
  });

  test('TR9: a turn from the rotate handle commits a rotation; a refused lock turns nothing', async () => {
    const { editor, calls, flush, grantWith } = setup(withRect());
    const frame = { x: 100, y: 100, w: 100, h: 50, rotation: 0 };
    editor.beginDrag([EL1], { x: 150, y: 70 }, { kind: 'rotate', frame });
    await flush();
    editor.moveDrag({ x: 230, y: 125 });
    editor.endDrag();
    expect(calls.at(-1)).toMatchObject({ kind: 'release', request: { shape: { x: 100, y: 100, w: 100, h: 50, rotation: 90 } } });
    await flush();
    grantWith({ ok: false, error: { code: 'locked', message: 'held' } });
    editor.beginDrag([EL1], { x: 150, y: 70 }, { kind: 'rotate', frame });
    editor.moveDrag({ x: 230, y: 125 });
    await flush();
    editor.endDrag();
    expect(calls.filter((c) => c.kind === 'release')).toHaveLength(1);
    expect(editor.motion.getState().previews.get(EL1)?.shape).toBeUndefined();
  });

  const withTwoRects = () => applyRoomEvent(withRect(), created(12, element(EL2, 2, rect(300, 100))));

  test('a multi-selection drag asks for every lock in one request, then moves and commits each under its own generation', async () => {
    const { editor, calls, moves, flush } = setup(withTwoRects());
    expect(editor.beginDrag([EL1, EL2], { x: 110, y: 110 })).toBeNull();
    expect(calls.filter((c) => c.kind.startsWith('acquire'))).toEqual([{ kind: 'acquireMany', request: { requestId: expect.any(String), elementIds: [EL1, EL2] } }]);
    editor.moveDrag({ x: 130, y: 120 });
    expect(editor.motion.getState().previews.size).toBe(0);
    await flush();
    expect(editor.motion.getState().previews.get(EL1)).toMatchObject({ x: 120, y: 110 });
    expect(editor.motion.getState().previews.get(EL2)).toMatchObject({ x: 320, y: 110 });
    // Both moves leave together (a volatile packet in the same task would be dropped).
    expect(calls.filter((c) => c.kind === 'moveGroup').at(-1)?.request).toEqual([
      { elementId: EL1, generation: 4, x: 120, y: 110 },
      { elementId: EL2, generation: 4, x: 320, y: 110 },
    ]);
    // Still: the keepalive repeats both, so neither lock lapses while the pointer rests.
    const sent = moves.length;
    await vi.advanceTimersByTimeAsync(1_100);
    expect(moves.slice(sent).filter((m) => m.elementId === EL2).length).toBeGreaterThanOrEqual(2);
    editor.endDrag();
    expect(calls.slice(-2)).toMatchObject([
      { kind: 'release', request: { elementId: EL1, generation: 4, shape: { x: 120, y: 110 } } },
      { kind: 'release', request: { elementId: EL2, generation: 4, shape: { x: 320, y: 110 } } },
    ]);
  });

  test('TR11: turning a group from its handle takes every lock in one request and turns each about the group\'s centre', async () => {
    const { editor, calls, flush } = setup(withTwoRects());
    // rect(100, 100) and rect(300, 100) are 100 × 50: the group is (100, 100)–(400, 150), centre (250, 125).
    const frame = { x: 100, y: 100, w: 300, h: 50, rotation: 0 };
    editor.beginDrag([EL1, EL2], { x: 250, y: 72 }, { kind: 'rotate', frame });
    expect(calls.at(-1)).toMatchObject({ kind: 'acquireMany', request: { elementIds: [EL1, EL2] } });
    await flush();
    editor.moveDrag({ x: 400, y: 125 });
    await vi.advanceTimersByTimeAsync(100);
    editor.endDrag();
    // Each element's move carries its own frame, turned about the group's centre.
    expect(calls.filter((c) => c.kind === 'moveGroup').at(-1)?.request).toEqual([
      { elementId: EL1, generation: 4, x: 200, y: 0, frame: { x: 200, y: 0, w: 100, h: 50, rotation: 90 } },
      { elementId: EL2, generation: 4, x: 200, y: 200, frame: { x: 200, y: 200, w: 100, h: 50, rotation: 90 } },
    ]);
    // A quarter turn: the left rectangle's centre (150, 125) goes to (250, 25), the right one's to (250, 225).
    expect(calls.slice(-2)).toMatchObject([
      { kind: 'release', request: { elementId: EL1, generation: 4, shape: { x: 200, y: 0, w: 100, h: 50, rotation: 90 } } },
      { kind: 'release', request: { elementId: EL2, generation: 4, shape: { x: 200, y: 200, w: 100, h: 50, rotation: 90 } } },
    ]);
  });

  test('a refused group lock moves nothing and says who holds one of them', async () => {
    const state = withTwoRects();
    const { editor, moves, flush, groupWith } = setup({ ...state, members: new Map([...state.members, [BOB, member(BOB, 'Bob')]]) });
    groupWith({ ok: false, error: { code: 'locked', message: 'held', heldBy: { elementId: EL2, userId: BOB } } });
    editor.beginDrag([EL1, EL2], { x: 110, y: 110 });
    editor.moveDrag({ x: 200, y: 200 });
    await flush();
    expect(moves).toEqual([]);
    expect(editor.motion.getState().previews.size).toBe(0);
    expect(editor.board.getState().notice?.text).toBe('Bob is moving one of these.');
  });

  test('a still pointer keeps the lock alive with repeated moves', async () => {
    const { editor, moves, flush } = setup(withRect());
    editor.beginDrag(EL1, { x: 110, y: 110 });
    await flush();
    const before = moves.length;
    await vi.advanceTimersByTimeAsync(1_600);
    expect(moves.length - before).toBeGreaterThanOrEqual(3);
    editor.endDrag();
  });

  test('I4: a stale_generation release leaves the element where the room says', async () => {
    const { editor, flush, releaseWith } = setup(withRect());
    releaseWith({ ok: false, error: { code: 'stale_generation', message: 'lock ended' } });
    editor.beginDrag(EL1, { x: 110, y: 110 });
    await flush();
    editor.moveDrag({ x: 300, y: 300 });
    editor.endDrag();
    await flush();
    expect(editor.motion.getState().previews.size).toBe(0);
    expect(editor.board.getState().elements.get(EL1)?.shape).toMatchObject({ x: 100, y: 100 });
    expect(editor.board.getState().notice?.text).toMatch(/did not apply/);
  });

  test('a lost race for the lock (locked) moves nothing and says who has it', async () => {
    const { editor, flush, grantWith, calls } = setup(withRect());
    grantWith({ ok: false, error: { code: 'locked', message: 'held' } });
    editor.beginDrag(EL1, { x: 110, y: 110 });
    editor.moveDrag({ x: 200, y: 200 });
    await flush();
    editor.endDrag();
    expect(editor.motion.getState().previews.size).toBe(0);
    expect(calls.map((c) => c.kind)).toEqual(['acquire']);
  });

  test('offline, a drop becomes an ordinary queued edit against the version seen', async () => {
    const { editor, calls, setConnected, flush } = setup(withRect());
    setConnected(false);
    editor.beginDrag(EL1, { x: 110, y: 110 });
    editor.moveDrag({ x: 120, y: 130 });
    editor.endDrag();
    expect(calls).toEqual([]);
    expect(editor.board.getState().unsynced).toBe(1);
    setConnected(true);
    editor.connectionLive();
    expect(calls[0]).toMatchObject({ kind: 'update', request: { id: EL1, baseVersion: 2, shape: { x: 110, y: 120 } } });
    await flush();
    expect(editor.board.getState().unsynced).toBe(0);
  });
});

describe('the lesson\'s edit policy, mirrored (the server decides)', () => {
  const withPolicy = (state: RoomState, editPolicy: EditPolicy): RoomState => ({ ...state, room: { ...state.room, settings: { ...state.room.settings, editPolicy } } });

  test('a look-only lesson refuses student edits at once and tells them', () => {
    const { editor, calls } = setup(withPolicy(withRect(), 'look'));
    expect(editor.create(rect())).toBeNull();
    expect(editor.beginDrag(EL1, { x: 110, y: 110 })).toBe('read_only');
    expect(calls).toEqual([]);
    expect(editor.board.getState().readOnly).toBe(true);
    expect(editor.board.getState().notice?.text).toBe(policyText.lookOnly);
  });

  test('the teacher still edits a look-only lesson', () => {
    const { editor, calls } = setup(withPolicy(withRect(), 'look'), 'teacher');
    expect(editor.create(rect())).not.toBeNull();
    expect(calls.map((c) => c.kind)).toEqual(['create']);
  });

  test('under "own work" a student\'s erase of the teacher\'s element sends nothing and says who made it', () => {
    const state = withRect();
    const teachers = { ...state.elements.get(EL1)!, createdBy: TEACHER, updatedBy: TEACHER };
    const { editor, calls } = setup({ ...state, elements: new Map([[EL1, teachers]]) });
    expect(editor.refusalFor(teachers)).toBe('not_own');
    editor.delete([EL1], { erased: true });
    expect(calls).toEqual([]);
    expect(editor.board.getState().notice?.text).toBe(`Made by Ms Teacher. ${policyText.notOwn}`);
  });

  test("F1 on a student's private board the teacher's feedback is never theirs, whatever the policy: nothing sent, the feedback notice", () => {
    const state = withPolicy(withRect(), 'everyone');
    const teachers = { ...state.elements.get(EL1)!, createdBy: TEACHER, updatedBy: TEACHER };
    const { editor, calls } = setup({ ...state, elements: new Map([[EL1, teachers]]) }, 'student', { privateBoard: true });
    expect(editor.refusalFor(teachers)).toBe('not_own');
    expect(editor.beginDrag(EL1, { x: 110, y: 110 })).toBe('not_own');
    editor.delete([EL1], { erased: true });
    expect(calls).toEqual([]);
    expect(editor.board.getState().notice?.text).toBe(refusalText.feedback_locked);
    // On the class board the same policy lets her change it.
    const classBoard = setup({ ...state, elements: new Map([[EL1, teachers]]) });
    expect(classBoard.editor.refusalFor(teachers)).toBeNull();
  });

  test('a muted pen only looks, under every policy', () => {
    const state = withPolicy(withRect(), 'everyone');
    const members = new Map(state.members);
    members.set(ALICE, { ...members.get(ALICE)!, penMuted: true });
    const { editor, calls } = setup({ ...state, members });
    expect(editor.create(rect())).toBeNull();
    expect(calls).toEqual([]);
    expect(editor.board.getState()).toMatchObject({ readOnly: true, penMuted: true });
  });
});

describe('paste and duplicate through the normal create path', () => {
  test('CB5: pasted shapes are created one element.create each, selected, and undone as one step', async () => {
    const { editor, calls, flush } = setup(withRect());
    const ids = editor.createMany([rect(500, 500), rect(700, 500)]);
    expect(ids).toHaveLength(2);
    expect(editor.board.getState().selection).toEqual(new Set(ids));
    for (let i = 0; i < 2; i++) await flush();
    expect(calls.filter((c) => c.kind === 'create').map((c) => (c.request as { id: string }).id)).toEqual(ids);
    editor.undo();
    for (let i = 0; i < 2; i++) await flush();
    expect(calls.filter((c) => c.kind === 'delete')).toHaveLength(2);
  });

  test('CB6: a look-only lesson pastes nothing and says why', () => {
    const state = withRect();
    const { editor, calls } = setup({ ...state, room: { ...state.room, settings: { ...state.room.settings, editPolicy: 'look' } } });
    expect(editor.createMany([rect(500, 500)])).toEqual([]);
    expect(calls).toHaveLength(0);
    expect(editor.board.getState().notice?.text).toBe(policyText.lookOnly);
  });
});

describe('undo and redo as new acknowledged edits', () => {
  test('undo of a create deletes it; redo re-creates it under a new id', async () => {
    const { editor, calls, flush } = setup(withRect());
    const id = editor.create(rect(5, 5));
    await flush();
    editor.undo();
    expect(calls.at(-1)).toMatchObject({ kind: 'delete', request: { id } });
    await flush();
    editor.redo();
    const last = calls.at(-1);
    expect(last?.kind).toBe('create');
    expect((last?.request as { id: string }).id).not.toBe(id);
  });
});

describe('a full board (board_full)', () => {
  const full: Ack<ElementReply> = { ok: false, error: { code: 'board_full', message: refusalText.board_full } };

  test('a paste refused board_full is dropped whole: the rest is not sent, nothing stays drawn, one notice counts it all', async () => {
    const { editor, calls, flush, answerCreatesWith } = setup(withRect());
    answerCreatesWith(full);
    const ids = editor.createMany([rect(1, 1), rect(2, 2), rect(3, 3)]);
    expect(ids).toHaveLength(3);
    expect(ids.every((id) => editor.board.getState().elements.has(id))).toBe(true);
    await flush();
    await flush();
    expect(calls.filter((c) => c.kind === 'create')).toHaveLength(1);
    expect(ids.some((id) => editor.board.getState().elements.has(id))).toBe(false);
    expect(editor.board.getState()).toMatchObject({ unsynced: 0 });
    expect(editor.board.getState().notice?.text).toBe(`3 changes were not saved. ${refusalText.board_full}`);
  });

  test('creates already acknowledged stay; a later create is sent again once room was made', async () => {
    const { editor, calls, flush, answerCreatesWith } = setup(withRect());
    answerCreatesWith({ ok: true, element: element('00000000-0000-4000-8000-0000000000a1', 1, rect(1, 1)) }, full);
    editor.createMany([rect(1, 1), rect(2, 2), rect(3, 3)]);
    await flush();
    await flush();
    await flush();
    expect(calls.filter((c) => c.kind === 'create')).toHaveLength(2);
    expect(editor.board.getState().notice?.text).toBe(`2 changes were not saved. ${refusalText.board_full}`);
    editor.create(rect(4, 4));
    await flush();
    expect(calls.filter((c) => c.kind === 'create')).toHaveLength(3);
  });
});

describe('a server past its capacity (issue 19: graceful overload)', () => {
  const busy: Ack<ElementReply> = { ok: false, error: { code: 'busy', message: 'The board is catching up.' } };

  test('a create answered busy is kept, shown as syncing and sent again with the same request id; syncing ends at its acknowledgement', async () => {
    const { editor, calls, flush, answerCreatesWith } = setup(withRect());
    answerCreatesWith(busy, busy);
    const id = editor.create(rect(5, 5));
    expect(editor.board.getState()).toMatchObject({ unsynced: 1, syncing: false });
    await flush();
    expect(editor.board.getState()).toMatchObject({ unsynced: 1, syncing: true, notice: null });
    await vi.advanceTimersByTimeAsync(1_000);
    await flush();
    expect(editor.board.getState()).toMatchObject({ unsynced: 1, syncing: true });
    await vi.advanceTimersByTimeAsync(1_000);
    await flush();
    const creates = calls.filter((c) => c.kind === 'create').map((c) => c.request as { id: string; requestId: string });
    expect(creates).toHaveLength(3);
    expect(new Set(creates.map((c) => c.requestId)).size).toBe(1);
    expect(creates.every((c) => c.id === id)).toBe(true);
    expect(editor.board.getState()).toMatchObject({ unsynced: 0, syncing: false });
  });

  test('an edit in flight longer than SYNCING_AFTER_MS shows syncing, without a notice, until it is answered', async () => {
    const { editor, flush } = setup(withRect());
    editor.create(rect(5, 5));
    await vi.advanceTimersByTimeAsync(SYNCING_AFTER_MS - 1);
    expect(editor.board.getState().syncing).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(editor.board.getState()).toMatchObject({ syncing: true, notice: null });
    await flush();
    expect(editor.board.getState()).toMatchObject({ unsynced: 0, syncing: false });
  });
});

describe('live ink from the pen', () => {
  const style = { stroke: '#1e1e1e', strokeWidth: 3 };
  const at = (x: number) => ({ x, y: x, pressure: 0.5 });
  const pen = { kind: 'pen' as const, x: 0, y: 0, points: [[0, 0, 0.5], [1, 1, 0.5]] as Array<[number, number, number]>, stroke: '#1e1e1e', strokeWidth: 3 };

  test('a stroke goes out at most every INK_SYNC_MS as the points since the last packet; pointer-up sends the rest with end "up" before its element.create (same id)', () => {
    const { editor, inks, calls } = setup(withRect());
    const id = editor.beginStroke(at(0), style);
    expect(inks).toHaveLength(1);
    editor.extendStroke([at(1), at(2)]);
    editor.extendStroke([at(3)]);
    expect(inks).toHaveLength(1); // waiting for the 33 ms tick
    vi.advanceTimersByTime(INK_SYNC_MS);
    expect(inks.map((u) => [u.from, u.points.map(([x]) => x)])).toEqual([
      [0, [0]],
      [1, [1, 2, 3]],
    ]);
    editor.extendStroke([at(4)]);
    expect(editor.endStroke(pen)).toBe(id);
    expect(inks.at(-1)).toMatchObject({ strokeId: id, from: 4, points: [[4, 4, 0.5]], end: 'up' });
    const kinds = calls.map((c) => c.kind);
    expect(kinds.lastIndexOf('ink')).toBeLessThan(kinds.indexOf('create'));
    expect(calls.find((c) => c.kind === 'create')?.request).toMatchObject({ id });
    vi.advanceTimersByTime(INK_SYNC_MS * 3);
    expect(inks.at(-1)?.end).toBe('up'); // nothing after the end
  });

  test('a burst of samples is split into packets of at most MAX_INK_POINTS_PER_PACKET', () => {
    const { editor, inks } = setup(withRect());
    editor.beginStroke(at(0), style);
    vi.advanceTimersByTime(INK_SYNC_MS);
    editor.extendStroke(Array.from({ length: MAX_INK_POINTS_PER_PACKET + 10 }, (_, i) => at(i + 1)));
    expect(inks.slice(1).map((u) => [u.from, u.points.length])).toEqual([
      [1, MAX_INK_POINTS_PER_PACKET],
      [1 + MAX_INK_POINTS_PER_PACKET, 10],
    ]);
  });

  test('a cancelled stroke ends with end "cancel" and creates nothing; a read-only board sends no ink', () => {
    const { editor, inks, calls } = setup(withRect());
    editor.beginStroke(at(0), style);
    expect(editor.endStroke(null)).toBeNull();
    expect(inks.at(-1)?.end).toBe('cancel');
    expect(calls.some((c) => c.kind === 'create')).toBe(false);

    const base = withRect();
    const locked = setup({ ...base, room: { ...base.room, settings: { ...base.room.settings, editPolicy: 'look' } } });
    expect(locked.editor.beginStroke(at(0), style)).toBeNull();
    locked.editor.extendStroke([at(1)]);
    locked.editor.endStroke(pen);
    expect(locked.inks).toEqual([]);
  });
});

/**
 * This device's keeper as the editor sees it (offline/deviceStore.ts writes it to IndexedDB; the
 * browser suite's offline journey runs that one): what was last saved is what a reload loads.
 */
function memoryKeeper(failing = false) {
  let kept: EditOp[] = [];
  const keeper: EditKeeper & { readonly ops: EditOp[] } = {
    get ops() {
      return kept;
    },
    load: async () => kept,
    save: async (ops) => {
      if (failing) return false;
      kept = [...ops];
      return true;
    },
  };
  return keeper;
}

describe('edits kept on this device across a reload (offline/deviceStore.ts)', () => {
  const ALICE_SELF = { userId: ALICE, sessionId: ALICE_S, role: 'student' as const };

  /** A page of the same session: a new editor over the same keeper, as after a reload. */
  async function reloaded(keeper: EditKeeper, connected: boolean) {
    const t = fakeTransport();
    t.setConnected(connected);
    const editor = new BoardEditor(ALICE_SELF, t.transport, keeper);
    editor.stateChanged(withRect());
    await vi.advanceTimersByTimeAsync(0);
    return { editor, ...t };
  }

  test('K1: every unsynced edit is kept as it is made, in order, with its request id; an acknowledged one leaves', async () => {
    const keeper = memoryKeeper();
    const { editor, setConnected, calls, flush } = await reloaded(keeper, false);
    editor.create(rect(1, 1));
    editor.update([{ id: EL1, shape: rect(300, 300) }]);
    await vi.advanceTimersByTimeAsync(0);
    expect(keeper.ops.map((o) => o.kind)).toEqual(['create', 'update']);
    expect(editor.board.getState()).toMatchObject({ unsynced: 2, kept: true });
    setConnected(true);
    editor.connectionLive();
    await flush();
    await flush();
    expect(calls.map((c) => c.kind)).toEqual(['create', 'update']);
    await vi.advanceTimersByTimeAsync(0);
    expect(keeper.ops).toEqual([]);
  });

  test('K2: after a reload the kept edits go first, with their own request ids, and the person is told', async () => {
    const keeper = memoryKeeper();
    const before = await reloaded(keeper, false);
    before.editor.create(rect(1, 1));
    before.editor.update([{ id: EL1, shape: rect(300, 300) }]);
    await vi.advanceTimersByTimeAsync(0);
    const made = keeper.ops.map((o) => o.requestId);
    before.editor.stop();

    const after = await reloaded(keeper, false);
    expect(after.editor.board.getState().unsynced).toBe(2);
    expect(after.editor.board.getState().notice?.text).toMatch(/^2 changes made before the page reloaded were kept/);
    // Drawn at once on the board from before, though nothing was acknowledged.
    expect(after.editor.board.getState().elements.get(EL1)?.shape).toMatchObject({ x: 300, y: 300 });
    after.editor.create(rect(5, 5)); // made after the reload: it waits behind them
    after.setConnected(true);
    after.editor.connectionLive();
    for (let i = 0; i < 3; i++) await after.flush();
    const sent = after.calls.map((c) => (c.request as { requestId: string }).requestId);
    expect(sent.slice(0, 2)).toEqual(made);
    expect(sent).toHaveLength(3);
    expect(keeper.ops).toEqual([]);
  });

  test('K3: a kept edit made stale meanwhile is refused as today (conflict), dropped with the edits built on it, and the person is told', async () => {
    const keeper = memoryKeeper();
    const before = await reloaded(keeper, false);
    before.editor.update([{ id: EL1, shape: rect(300, 300) }]);
    before.editor.update([{ id: EL1, shape: rect(400, 400) }]); // built on the first
    await vi.advanceTimersByTimeAsync(0);
    before.editor.stop();

    const after = await reloaded(keeper, true);
    after.answerUpdatesWith({ ok: false, error: { code: 'conflict', message: refusalText.conflict } });
    after.editor.connectionLive();
    await after.flush();
    await after.flush();
    expect(after.calls.map((c) => c.kind)).toEqual(['update']);
    expect(after.editor.board.getState().unsynced).toBe(0);
    expect(after.editor.board.getState().notice?.text).toBe(`2 changes were not saved. ${refusalText.conflict}`);
    // The confirmed element stands; the keeper forgets the refused edits.
    expect(after.editor.board.getState().elements.get(EL1)?.shape).toMatchObject({ x: 100, y: 100 });
    expect(keeper.ops).toEqual([]);
  });

  test('K4: nothing is sent or written before the kept edits are back (they would be overwritten or overtaken)', async () => {
    const keeper = memoryKeeper();
    const before = await reloaded(keeper, false);
    before.editor.create(rect(1, 1));
    await vi.advanceTimersByTimeAsync(0);
    before.editor.stop();
    let release: () => void = () => {};
    const slow: EditKeeper = { load: () => new Promise((resolve) => (release = () => resolve(keeper.ops))), save: (ops) => keeper.save(ops) };
    const t = fakeTransport();
    const editor = new BoardEditor(ALICE_SELF, t.transport, slow);
    editor.stateChanged(withRect());
    editor.create(rect(9, 9));
    editor.connectionLive();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.calls).toEqual([]);
    expect(keeper.ops).toHaveLength(1);
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.calls.map((c) => (c.request as { shape: { x: number } }).shape.x)).toEqual([1]);
    await t.flush();
    await t.flush();
    expect(t.calls.map((c) => (c.request as { shape: { x: number } }).shape.x)).toEqual([1, 9]);
  });

  test('K5: a keeper that cannot write leaves the edits in the tab only, and says so (`kept` false)', async () => {
    const { editor } = await reloaded(memoryKeeper(true), false);
    editor.create(rect(1, 1));
    await vi.advanceTimersByTimeAsync(0);
    expect(editor.board.getState()).toMatchObject({ unsynced: 1, kept: false });
  });
});
