import { MAX_LIVE_INK_POINTS, type InkEntry, type InkPoint } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { DRAWING_TIMEOUT_MS, ENDED_TIMEOUT_MS, LiveInk, MAX_LIVE_STROKES } from './liveInk.ts';
import { SyncEngine } from './syncEngine.ts';
import { ALICE, ALICE_S, BOB, BOB_S, TEACHER, TEACHER_S, closed, created, deleted, element, event, snapshot, snapshotSync } from './testFixtures.ts';

const STROKE = '00000000-0000-4000-8000-00000000f001';
const STROKE2 = '00000000-0000-4000-8000-00000000f002';

const pts = (...xs: number[]): InkPoint[] => xs.map((x) => [x, x, 0.5]);
function entry(from: number, points: InkPoint[], fields: Partial<InkEntry> = {}): InkEntry {
  return { strokeId: STROKE, sessionId: ALICE_S, from, points, stroke: '#1e1e1e', strokeWidth: 3, ...fields };
}
const xs = (ink: LiveInk, id = STROKE) => ink.strokes.get(id)?.points.map(([x]) => x);

describe('live strokes (liveInk.ts)', () => {
  test('LI1: a stroke grows by the points past those held; an overlap is not drawn twice; a gap is bridged', () => {
    const ink = new LiveInk();
    expect(ink.receive(entry(0, pts(0, 1)), ALICE, 0)).toBe(true);
    expect(ink.receive(entry(1, pts(1, 2, 3)), ALICE, 1)).toBe(true);
    expect(xs(ink)).toEqual([0, 1, 2, 3]);
    expect(ink.receive(entry(2, pts(2, 3)), ALICE, 2)).toBe(false);
    ink.receive(entry(9, pts(9)), ALICE, 3); // packets 4-8 were dropped on the way
    expect(xs(ink)).toEqual([0, 1, 2, 3, 9]);
  });

  test('LI1: a stroke holds at most MAX_LIVE_INK_POINTS', () => {
    const ink = new LiveInk();
    ink.receive(entry(0, Array.from({ length: MAX_LIVE_INK_POINTS - 1 }, (_, i) => [i, 0, 0.5] as InkPoint)), ALICE, 0);
    ink.receive(entry(MAX_LIVE_INK_POINTS - 1, pts(1, 2, 3)), ALICE, 1);
    expect(ink.strokes.get(STROKE)?.points).toHaveLength(MAX_LIVE_INK_POINTS);
  });

  test('LI2: once finished (its element arrived) a late entry never brings the stroke back', () => {
    const ink = new LiveInk();
    ink.receive(entry(0, pts(0)), ALICE, 0);
    expect(ink.finish(STROKE)).toBe(true);
    expect(ink.receive(entry(1, pts(1), { end: 'up' }), ALICE, 1)).toBe(false);
    expect(ink.strokes.size).toBe(0);
  });

  test("LI2: another session's entry naming a stroke id does not join someone else's stroke", () => {
    const ink = new LiveInk();
    ink.receive(entry(0, pts(0)), ALICE, 0);
    expect(ink.receive(entry(1, pts(5), { sessionId: BOB_S }), BOB, 1)).toBe(false);
    expect(xs(ink)).toEqual([0]);
  });

  test('LI4: a stroke with no new point times out; after pointer-up it waits longer for its element; a cancel ends it at once', () => {
    const ink = new LiveInk();
    ink.receive(entry(0, pts(0)), ALICE, 0);
    ink.receive(entry(0, pts(0), { strokeId: STROKE2, end: 'up' }), ALICE, 0);
    expect(ink.expire(DRAWING_TIMEOUT_MS - 1)).toBe(false);
    expect(ink.expire(DRAWING_TIMEOUT_MS)).toBe(true);
    expect([...ink.strokes.keys()]).toEqual([STROKE2]);
    expect(ink.expire(ENDED_TIMEOUT_MS)).toBe(true);
    expect(ink.strokes.size).toBe(0);

    const other = new LiveInk();
    other.receive(entry(0, pts(0)), ALICE, 0);
    expect(other.receive(entry(1, [], { end: 'cancel' }), ALICE, 1)).toBe(true);
    expect(other.strokes.size).toBe(0);
  });

  test('LI5: at most MAX_LIVE_STROKES at once, the stalest dropped first', () => {
    const ink = new LiveInk();
    const id = (i: number) => `00000000-0000-4000-8000-${i.toString().padStart(12, '0')}`;
    for (let i = 0; i <= MAX_LIVE_STROKES; i++) ink.receive(entry(0, pts(i), { strokeId: id(i) }), ALICE, i);
    expect(ink.strokes.size).toBe(MAX_LIVE_STROKES);
    expect(ink.strokes.has(id(0))).toBe(false);
    expect(ink.strokes.has(id(MAX_LIVE_STROKES))).toBe(true);
  });
});

describe('live ink in the sync engine', () => {
  function live() {
    const engine = new SyncEngine({ requestSync: () => {} }, TEACHER_S);
    engine.connectionOpened(0);
    engine.receiveSync(snapshotSync(), 0);
    return engine;
  }
  const pen = (id: string) => element(id, 1, { kind: 'pen', x: 0, y: 0, points: [[0, 0, 0.5], [1, 1, 0.5]], stroke: '#1e1e1e', strokeWidth: 3 });

  test('LI2: the durable element replaces the live stroke in the same change, and late ink of it is ignored', () => {
    const engine = live();
    const changes: string[][] = [];
    engine.subscribe((c) => changes.push([...c].sort()));
    engine.receiveCursors({ cursors: [], ink: [entry(0, pts(0, 1))] }, 1);
    expect(engine.ink.has(STROKE)).toBe(true);
    engine.receiveEvent(created(11, pen(STROKE)), 2);
    expect(engine.ink.has(STROKE)).toBe(false);
    expect(engine.state?.elements.has(STROKE)).toBe(true);
    expect(changes.at(-1)).toEqual(['ink', 'state']);
    engine.receiveCursors({ cursors: [], ink: [entry(2, pts(2), { end: 'up' })] }, 3);
    expect(engine.ink.size).toBe(0);
    expect(engine.stats.ignoredInk).toBe(1);
  });

  test('LI3: a stroke abandoned mid-air goes with its drawer: socket closed, session ended, or expired', () => {
    const engine = live();
    engine.receiveCursors({ cursors: [], ink: [entry(0, pts(0)), entry(0, pts(0), { strokeId: STROKE2, sessionId: BOB_S })] }, 1);
    expect(engine.ink.size).toBe(2);
    engine.receivePresenceSignal({ sessionId: ALICE_S, connected: false });
    expect([...engine.ink.keys()]).toEqual([STROKE2]);
    engine.receiveEvent(closed(11, BOB_S, BOB), 2);
    expect(engine.ink.size).toBe(0);
  });

  test("ink is drawn only for a connected presence, never one's own, and a stroke already deleted is not revived", () => {
    const engine = live();
    engine.receiveEvent(created(11, pen(STROKE2)), 1);
    engine.receiveEvent(deleted(12, STROKE2, 2), 1);
    engine.receiveCursors(
      {
        cursors: [],
        ink: [
          entry(0, pts(0), { sessionId: TEACHER_S, strokeId: '00000000-0000-4000-8000-00000000f003' }),
          entry(0, pts(0), { sessionId: '00000000-0000-4000-8000-0000000000ff', strokeId: '00000000-0000-4000-8000-00000000f004' }),
          entry(0, pts(0), { strokeId: STROKE2 }),
        ],
      },
      2,
    );
    expect(engine.ink.size).toBe(0);
  });

  test("a look-only lesson ends students' live strokes, not the teacher's; a reconnect ends them all", () => {
    const engine = new SyncEngine({ requestSync: () => {} }, BOB_S);
    engine.connectionOpened(0);
    engine.receiveSync(snapshotSync(), 0);
    engine.receiveCursors({ cursors: [], ink: [entry(0, pts(0)), entry(0, pts(0), { strokeId: STROKE2, sessionId: TEACHER_S })] }, 1);
    const room = snapshot().room;
    engine.receiveEvent(event(11, 'room.updated', { ...room, settings: { ...room.settings, editPolicy: 'look' } }), 2);
    expect([...engine.ink.keys()]).toEqual([STROKE2]);
    engine.connectionClosed();
    expect(engine.ink.size).toBe(0);
  });

  test("a muted pen ends that student's live stroke only", () => {
    const engine = new SyncEngine({ requestSync: () => {} }, BOB_S);
    engine.connectionOpened(0);
    engine.receiveSync(snapshotSync(), 0);
    engine.receiveCursors({ cursors: [], ink: [entry(0, pts(0)), entry(0, pts(0), { strokeId: STROKE2, sessionId: TEACHER_S })] }, 1);
    engine.receiveEvent(event(11, 'member.pen', { userId: ALICE, muted: true, by: TEACHER }), 2);
    expect([...engine.ink.keys()]).toEqual([STROKE2]);
  });

  test('LI4: the engine tick times out an abandoned stroke', () => {
    const engine = live();
    engine.receiveCursors({ cursors: [], ink: [entry(0, pts(0))] }, 1_000);
    engine.tick(1_000 + DRAWING_TIMEOUT_MS);
    expect(engine.ink.size).toBe(0);
  });
});
