import type { RoomEvent, SyncMessage } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { boardHash } from './boardHash.ts';
import { applyRoomEvent, boardSnapshot, stateFromSnapshot, type BoardFrame } from './roomState.ts';
import { SyncEngine, type SyncLimits } from './syncEngine.ts';
import {
  ALICE,
  ALICE_S,
  BOB,
  BOB_S,
  EL1,
  EL2,
  TEACHER,
  TEACHER_S,
  created,
  deleted,
  drags,
  element,
  event,
  expired,
  granted,
  rect,
  released,
  snapshot,
  snapshotSync,
  updated,
} from './testFixtures.ts';

function live(limits: Partial<SyncLimits> = {}) {
  const requests: Array<number | undefined> = [];
  const engine = new SyncEngine({ requestSync: (rev) => requests.push(rev) }, TEACHER_S, limits);
  engine.connectionOpened(0);
  engine.receiveSync(snapshotSync(), 0);
  return { engine, requests };
}

const BOARD = '00000000-0000-4000-8000-0000000000f0';

/**
 * Every board is the same board (issue 37): the rules of what an element event means, of lock
 * generations and of drag previews are proved on the class board and on a private board alike. A
 * private board's engine starts from the board's snapshot framed by its lesson (its people and
 * rules, `boardSnapshot`), and its events carry the board's id; the events below, written once,
 * are addressed to the board as the server sends them. A presence ends in the lesson, and reaches
 * a private board as a new frame (`SyncEngine.reframe`).
 */
interface BoardKind {
  readonly name: string;
  live(): { engine: SyncEngine };
  /** The board's snapshot at `revision`, with no elements (a snapshot never carries deleted ones). */
  snapshotAt(revision: number): SyncMessage;
  /** A session of the lesson expires at lesson revision `revision`. */
  endPresence(engine: SyncEngine, revision: number, sessionId: string, userId: string): void;
}

const frame: BoardFrame = { boardId: BOARD, editPolicy: 'own' };
const lesson = () => stateFromSnapshot(snapshot());
const boardSync = (revision: number): SyncMessage => ({
  kind: 'snapshot',
  snapshot: boardSnapshot({ revision, elements: [] }, lesson(), frame),
});

const BOARD_KINDS: BoardKind[] = [
  {
    name: 'class board',
    live,
    snapshotAt: (revision) => snapshotSync({ revision }),
    endPresence: (engine, revision, sessionId, userId) => engine.receiveEvent(expired(revision, sessionId, userId), revision),
  },
  {
    name: 'private board',
    live: () => {
      const engine = new SyncEngine({ requestSync: () => undefined }, TEACHER_S);
      engine.connectionOpened(0);
      engine.receiveSync(boardSync(10), 0);
      const receive = engine.receiveEvent.bind(engine);
      engine.receiveEvent = (event: RoomEvent, now: number) => receive({ ...event, roomId: BOARD }, now);
      return { engine };
    },
    snapshotAt: boardSync,
    endPresence: (engine, revision, sessionId, userId) => engine.reframe(applyRoomEvent(lesson(), expired(revision, sessionId, userId)), frame),
  },
];

function fail(): never {
  throw new Error('no state');
}

const el = (engine: SyncEngine, id = EL1) => engine.state?.elements.get(id);

describe.each(BOARD_KINDS)('on the $name', (kind) => {
  describe('elements: what each event means', () => {
    // Each row: events after the revision-10 snapshot -> EL1's version and x (null: absent).
    const table: Array<[name: string, events: RoomEvent[], version: number | null, x: number | null]> = [
      ['a create adds the element', [created(11, element(EL1, 1, rect(5)))], 1, 5],
      ['an update with a newer version replaces it', [created(11, element(EL1, 1)), updated(12, element(EL1, 2, rect(40)))], 2, 40],
      ['I1: an update with an older version is stale news', [created(11, element(EL1, 3, rect(7))), updated(12, element(EL1, 2, rect(40)))], 3, 7],
      ['I1: an update with the same version changes nothing', [created(11, element(EL1, 2, rect(7))), updated(12, element(EL1, 2, rect(40)))], 2, 7],
      ['a delete removes it', [created(11, element(EL1)), deleted(12, EL1, 2)], null, null],
      ['I1: a late update never resurrects a deleted element', [created(11, element(EL1)), deleted(12, EL1, 2), updated(13, element(EL1, 3, rect(9)))], null, null],
      ['I1: a late create never resurrects a deleted element', [created(11, element(EL1)), deleted(12, EL1, 2), created(13, element(EL1, 1))], null, null],
      ['I1: a duplicated create (same event id) is applied once', [created(11, element(EL1, 1, rect(1))), created(11, element(EL1, 1, rect(1)))], 1, 1],
    ];
    test.each(table)('%s', (_name, events, version, x) => {
      const { engine } = kind.live();
      events.forEach((e, i) => engine.receiveEvent(e, i));
      const e = el(engine);
      expect(e?.version ?? null).toBe(version);
      expect(e?.shape.x ?? null).toBe(x);
    });

    test('I1: an event ahead of the next revision waits for the missing one, then both apply in order', () => {
      const { engine } = kind.live();
      engine.receiveEvent(updated(12, element(EL1, 2, rect(40))), 0);
      expect(el(engine)).toBeUndefined();
      engine.receiveEvent(created(11, element(EL1, 1, rect(5))), 1);
      expect(el(engine)).toMatchObject({ version: 2, shape: { x: 40 } });
      expect(engine.revision).toBe(12);
    });

    test('I1: tombstones survive a snapshot, which never carries deleted elements', () => {
      const { engine } = kind.live();
      engine.receiveEvent(created(11, element(EL1)), 0);
      engine.receiveEvent(deleted(12, EL1, 2), 0);
      engine.receiveSync(kind.snapshotAt(12), 1);
      engine.receiveEvent(updated(13, element(EL1, 3)), 2);
      expect(el(engine)).toBeUndefined();
      expect(engine.state?.tombstones.has(EL1)).toBe(true);
    });

    test('I1: only the teacher\'s restore brings a deleted element back, and only at a newer version', () => {
      const { engine } = kind.live();
      engine.receiveEvent(created(11, element(EL1, 1)), 0);
      engine.receiveEvent(deleted(12, EL1, 2), 0);
      // A late update of the deleted element does nothing; a restore at version 3 brings it back.
      engine.receiveEvent(updated(13, element(EL1, 2)), 0);
      expect(el(engine)).toBeUndefined();
      engine.receiveEvent(event(14, 'element.restored', { element: element(EL1, 3) }), 0);
      expect(el(engine)?.version).toBe(3);
      expect(engine.state?.tombstones.has(EL1)).toBe(false);
      // A replayed restore of an older version changes nothing.
      engine.receiveEvent(event(15, 'element.restored', { element: element(EL1, 2) }), 0);
      expect(el(engine)?.version).toBe(3);
    });
  });

  describe('I4: lock generations only grow', () => {
    // Each row: lock events on EL1 (created at 11) -> the lock generation left (null: free).
    const table: Array<[name: string, events: RoomEvent[], generation: number | null]> = [
      ['a grant locks the element', [granted(12, EL1, 1)], 1],
      ['a release of the current generation frees it', [granted(12, EL1, 1), released(13, EL1, 1)], null],
      ['a release of a former generation leaves the newer grant standing', [granted(12, EL1, 1), granted(13, EL1, 2, ALICE_S, ALICE), released(14, EL1, 1)], 2],
      ['a grant older than the current lock is ignored', [granted(12, EL1, 5), granted(13, EL1, 4, ALICE_S, ALICE)], 5],
    ];
    test.each(table)('%s', (_name, events, generation) => {
      const { engine } = kind.live();
      engine.receiveEvent(created(11, element(EL1)), 0);
      events.forEach((e, i) => engine.receiveEvent(e, i));
      expect(el(engine)?.lock?.generation ?? null).toBe(generation);
    });
  });

  describe('drag previews (I1, I4)', () => {
    function locked() {
      const s = kind.live();
      s.engine.receiveEvent(created(11, element(EL1)), 0);
      s.engine.receiveEvent(granted(12, EL1, 3), 0);
      return s;
    }

    test('a drag under the current generation from the holder moves the preview', () => {
      const { engine } = locked();
      engine.receiveCursors(drags([EL1, 3, BOB_S, BOB, 50, 60]), 1);
      expect(engine.drags.get(EL1)).toMatchObject({ x: 50, y: 60, userId: BOB });
    });

    // Each row: a drag packet on EL1 locked by Bob at generation 3 that must not move it.
    const ignored: Array<[name: string, entry: [string, number, string, string, number, number]]> = [
      ["I4: a former holder's late packet (older generation)", [EL1, 2, BOB_S, BOB, 9, 9]],
      ['I4: a generation not granted yet', [EL1, 4, BOB_S, BOB, 9, 9]],
      ['a session that does not hold the lock', [EL1, 3, ALICE_S, ALICE, 9, 9]],
      ['an element nobody holds', [EL2, 1, BOB_S, BOB, 9, 9]],
    ];
    test.each(ignored)('ignored: %s', (_name, entry) => {
      const { engine } = locked();
      engine.receiveCursors(drags(entry), 1);
      expect(engine.drags.size).toBe(0);
      expect(engine.stats.ignoredDrags).toBe(1);
    });

    test('I1: after the release a late drag packet of that generation does not move the element', () => {
      const { engine } = locked();
      engine.receiveCursors(drags([EL1, 3, BOB_S, BOB, 50, 60]), 1);
      engine.receiveEvent(updated(13, element(EL1, 2, rect(50, 60), { lock: { sessionId: BOB_S, userId: BOB, generation: 3 } })), 2);
      expect(engine.drags.size).toBe(0); // the committed position is the truth now
      engine.receiveEvent(released(14, EL1, 3), 3);
      engine.receiveCursors(drags([EL1, 3, BOB_S, BOB, 70, 80]), 4);
      expect(engine.drags.size).toBe(0);
      expect(el(engine)?.shape).toMatchObject({ x: 50, y: 60 });
    });

    test("a preview ends when the holder's presence ends", () => {
      const { engine } = locked();
      engine.receiveCursors(drags([EL1, 3, BOB_S, BOB, 50, 60]), 1);
      kind.endPresence(engine, 13, BOB_S, BOB);
      expect(engine.drags.size).toBe(0);
    });

    test('our own drag echoed back by the server is not a preview', () => {
      const { engine } = kind.live();
      engine.receiveEvent(created(11, element(EL1)), 0);
      engine.receiveEvent(granted(12, EL1, 1, TEACHER_S, TEACHER), 0);
      engine.receiveCursors(drags([EL1, 1, TEACHER_S, TEACHER, 5, 5]), 1);
      expect(engine.drags.size).toBe(0);
    });
  });
});

describe('the class board\'s lesson', () => {
  test('the lesson\'s edit policy follows room.updated, a muted pen follows member.pen', () => {
    const { engine } = live();
    const room = engine.state!.room;
    engine.receiveEvent(event(11, 'room.updated', { ...room, settings: { ...room.settings, editPolicy: 'look' } }), 0);
    expect(engine.state?.room.settings.editPolicy).toBe('look');
    engine.receiveEvent(event(12, 'member.pen', { userId: ALICE, muted: true, by: TEACHER }), 0);
    expect(engine.state?.members.get(ALICE)?.penMuted).toBe(true);
  });
});

describe('a lost last event (lease prompt carries the room revision)', () => {
  test('behind the room with nothing held: hold gapHoldMs, then resync from our revision', () => {
    const { engine, requests } = live({ gapHoldMs: 1_000 });
    engine.receiveRoomRevision(11, 100);
    engine.tick(1_099);
    expect(requests).toEqual([]);
    engine.tick(1_100);
    expect(requests).toEqual([10]);
    expect(engine.stats.lostTailResyncs).toBe(1);
  });

  test('the event arriving within the hold cancels the resync', () => {
    const { engine, requests } = live({ gapHoldMs: 1_000 });
    engine.receiveRoomRevision(11, 100);
    engine.receiveEvent(created(11, element(EL1)), 500);
    engine.tick(2_000);
    expect(requests).toEqual([]);
  });

  test('at or past the room revision nothing happens', () => {
    const { engine, requests } = live({ gapHoldMs: 1 });
    engine.receiveRoomRevision(10, 0);
    engine.receiveRoomRevision(3, 0);
    engine.tick(5_000);
    expect(requests).toEqual([]);
  });
});

describe('board hash', () => {
  test('the same elements from events and from a snapshot hash the same, whatever the key order', () => {
    const { engine } = live();
    engine.receiveEvent(created(11, element(EL2, 1, rect(1, 2))), 0);
    engine.receiveEvent(created(12, element(EL1, 1, rect(3, 4))), 0);
    const reordered = { lock: null, z: 1, createdBy: ALICE, updatedBy: ALICE, pinned: false, version: 1, shape: { ...rect(1, 2) }, id: EL2 };
    const fromSnapshot = stateFromSnapshot(snapshot({ revision: 12, elements: [element(EL1, 1, rect(3, 4)), reordered] }));
    expect(boardHash(engine.state ?? fail())).toBe(boardHash(fromSnapshot));
  });

  test('a different element version changes the hash', () => {
    const a = stateFromSnapshot(snapshot({ elements: [element(EL1, 1)] }));
    const b = applyRoomEvent(a, updated(11, element(EL1, 2)));
    expect(boardHash(a)).not.toBe(boardHash(b));
  });
});
