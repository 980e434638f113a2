import type { RoomEvent } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { boardHash } from './boardHash.ts';
import { deriveRoster } from './roster.ts';
import { snapshotOf } from './roomState.ts';
import { SyncEngine, type SyncLimits } from './syncEngine.ts';
import {
  ALICE,
  ALICE_S,
  BOB,
  BOB_S,
  TEACHER,
  TEACHER_S,
  EL1,
  closed,
  created,
  cursors,
  deleted,
  element,
  event,
  expired,
  joined,
  opened,
  revoked,
  snapshot,
  snapshotSync,
} from './testFixtures.ts';

const CAROL = '00000000-0000-4000-8000-0000000000a4';
const CAROL_S = '00000000-0000-4000-8000-0000000000b5';

/** An engine seen from the teacher's tab, with every resync request recorded. */
function setup(limits: Partial<SyncLimits> = {}) {
  const requests: Array<number | undefined> = [];
  const engine = new SyncEngine({ requestSync: (rev) => requests.push(rev) }, TEACHER_S, limits);
  return { engine, requests };
}

/** A teacher's engine that has connected and applied the revision-10 snapshot. */
function live(limits: Partial<SyncLimits> = {}) {
  const s = setup(limits);
  s.engine.connectionOpened(0);
  s.engine.receiveSync(snapshotSync(), 0);
  return s;
}

const rosterStates = (engine: SyncEngine) =>
  Object.fromEntries(deriveRoster(engine.state ?? fail()).map((e) => [e.displayName, e.state]));
const cursorSessions = (engine: SyncEngine) => [...engine.cursors.keys()].sort();

function fail(): never {
  throw new Error('no state');
}

describe('snapshot and order', () => {
  test('a snapshot makes the engine live at its revision', () => {
    const { engine } = live();
    expect(engine.phase).toBe('live');
    expect(engine.revision).toBe(10);
    expect(rosterStates(engine)).toEqual({ 'Ms Teacher': 'live', Alice: 'live', Bob: 'live' });
  });

  test('events apply in revision order', () => {
    const { engine } = live();
    engine.receiveEvent(joined(11, CAROL, 'Carol'), 1);
    engine.receiveEvent(opened(12, CAROL_S, CAROL), 2);
    expect(engine.revision).toBe(12);
    expect(rosterStates(engine).Carol).toBe('live');
  });

  test('events that arrive before the first sync wait for it, then apply in order', () => {
    const { engine } = setup();
    engine.connectionOpened(0);
    engine.receiveEvent(opened(12, CAROL_S, CAROL), 1);
    engine.receiveEvent(joined(11, CAROL, 'Carol'), 1);
    expect(engine.state).toBeNull();
    engine.receiveSync(snapshotSync(), 2);
    expect(engine.revision).toBe(12);
    expect(engine.phase).toBe('live');
  });
});

describe('I1: no going backwards', () => {
  // Each row: events delivered after the revision-10 snapshot -> expected revision and Bob's state.
  const table: Array<[name: string, events: RoomEvent[], revision: number, bob: string]> = [
    ['a duplicated presence.expired changes nothing', [expired(11, BOB_S, BOB), expired(11, BOB_S, BOB)], 11, 'gone'],
    ['an event id already applied is ignored even under a new revision', [expired(11, BOB_S, BOB), event(12, 'presence.opened', { sessionId: BOB_S, userId: BOB, revision: 2 }, 'ev-11')], 11, 'gone'],
    ['an event at a passed revision is ignored', [expired(11, BOB_S, BOB), opened(10, BOB_S, BOB, 2)], 11, 'gone'],
    ['an event at a revision below the snapshot is ignored', [expired(9, BOB_S, BOB)], 10, 'live'],
    ['a late revocation of a stale revision does not remove', [revoked(7, BOB)], 10, 'live'],
  ];
  test.each(table)('I1: %s', (_name, events, revision, bob) => {
    const { engine } = live();
    events.forEach((e, i) => engine.receiveEvent(e, i));
    expect(engine.revision).toBe(revision);
    expect(rosterStates(engine).Bob).toBe(bob);
  });

  test('I1: an older snapshot never replaces a newer state', () => {
    const { engine, requests } = live();
    engine.receiveEvent(expired(11, BOB_S, BOB), 1);
    const before = boardHash(engine.state ?? fail());
    engine.receiveSync(snapshotSync({ revision: 9 }), 2);
    expect(engine.revision).toBe(11);
    expect(boardHash(engine.state ?? fail())).toBe(before);
    expect(engine.stats.staleSyncs).toBe(1);
    expect(requests).toEqual([]);
  });

  test('I4: the expiry of a superseded lease does not remove the lease that replaced it', () => {
    const { engine } = live();
    engine.receiveEvent(opened(11, BOB_S, BOB, 5), 1);
    engine.receiveEvent(expired(12, BOB_S, BOB, 4), 2);
    expect(engine.revision).toBe(12);
    expect(rosterStates(engine).Bob).toBe('live');
  });
});

describe('gaps: hold briefly, then resync, never guess', () => {
  test('an out-of-order event is held until the missing one arrives', () => {
    const { engine, requests } = live();
    engine.receiveEvent(expired(12, BOB_S, BOB), 1);
    expect(engine.revision).toBe(10);
    engine.receiveEvent(joined(11, CAROL, 'Carol'), 2);
    expect(engine.revision).toBe(12);
    engine.tick(10_000);
    expect(requests).toEqual([]);
    expect(engine.phase).toBe('live');
  });

  test('a gap that does not fill within gapHoldMs asks for a replay from the last applied revision', () => {
    const { engine, requests } = live({ gapHoldMs: 1_000 });
    engine.receiveEvent(expired(12, BOB_S, BOB), 100);
    engine.tick(1_099);
    expect(requests).toEqual([]);
    engine.tick(1_100);
    expect(requests).toEqual([10]);
    expect(engine.phase).toBe('resyncing');
    expect(engine.revision).toBe(10);
  });

  test('the resync reply is applied, and held events after it still apply in order', () => {
    const { engine } = live({ gapHoldMs: 1_000 });
    engine.receiveEvent(expired(13, BOB_S, BOB), 0);
    engine.tick(1_000);
    engine.receiveSync({ kind: 'replay', fromRevision: 10, events: [joined(11, CAROL, 'Carol'), opened(12, CAROL_S, CAROL)] }, 1_001);
    expect(engine.phase).toBe('live');
    expect(engine.revision).toBe(13);
    expect(rosterStates(engine)).toMatchObject({ Carol: 'live', Bob: 'gone' });
  });

  test('holding more than maxHeldEvents resyncs at once (I10)', () => {
    const { engine, requests } = live({ maxHeldEvents: 3 });
    for (let r = 12; r <= 15; r++) engine.receiveEvent(joined(r, `00000000-0000-4000-8000-0000000001${r}`, `S${r}`), 0);
    expect(requests).toEqual([10]);
    expect(engine.phase).toBe('resyncing');
  });

  test('a replay that starts after our revision cannot bridge: a snapshot is demanded', () => {
    const { engine, requests } = live({ gapHoldMs: 1 });
    engine.receiveEvent(expired(14, BOB_S, BOB), 0);
    engine.tick(1);
    engine.receiveSync({ kind: 'replay', fromRevision: 12, events: [joined(13, CAROL, 'Carol')] }, 2);
    expect(requests).toEqual([10, undefined]);
    expect(engine.phase).toBe('resyncing');
    engine.receiveSync(snapshotSync({ revision: 14, presence: [] }), 3);
    expect(engine.phase).toBe('live');
    expect(engine.revision).toBe(14);
  });

  test('a replay with a hole in it is not trusted: a snapshot is demanded', () => {
    const { engine, requests } = live({ gapHoldMs: 1 });
    engine.receiveEvent(expired(14, BOB_S, BOB), 0);
    engine.tick(1);
    engine.receiveSync({ kind: 'replay', fromRevision: 10, events: [joined(11, CAROL, 'Carol'), expired(13, BOB_S, BOB)] }, 2);
    expect(requests).toEqual([10, undefined]);
    expect(engine.revision).toBe(11);
    expect(engine.phase).toBe('resyncing');
  });

  test('a lost sync reply is asked for again after syncTimeoutMs', () => {
    const { engine, requests } = live({ gapHoldMs: 1, syncTimeoutMs: 5_000 });
    engine.receiveEvent(expired(12, BOB_S, BOB), 0);
    engine.tick(1);
    engine.tick(5_000);
    expect(requests).toEqual([10]);
    engine.tick(5_001);
    expect(requests).toEqual([10, 10]);
  });
});

describe('I10: bounded reconciliation buffer', () => {
  test('on overflow cursor packets are dropped first and durable events are kept', () => {
    const { engine, requests } = setup({ maxBufferedPackets: 3 });
    engine.connectionOpened(0);
    engine.receiveCursors(cursors([ALICE_S, 1, 1]), 0);
    engine.receiveEvent(joined(11, CAROL, 'Carol'), 0);
    engine.receiveCursors(cursors([ALICE_S, 2, 2]), 0);
    engine.receiveEvent(opened(12, CAROL_S, CAROL), 0); // full: the oldest cursor packet goes
    engine.receiveCursors(cursors([BOB_S, 3, 3]), 0); // full: the other cursor packet goes
    expect(engine.stats.droppedCursorPackets).toBe(2);
    engine.receiveSync(snapshotSync(), 1);
    expect(engine.revision).toBe(12);
    expect(requests).toEqual([]);
    expect(cursorSessions(engine)).toEqual([BOB_S]);
  });

  test('a durable event overflow forces a fresh snapshot; older syncs do not end reconciliation', () => {
    const { engine, requests } = setup({ maxBufferedPackets: 2 });
    engine.connectionOpened(0);
    engine.receiveEvent(joined(11, CAROL, 'Carol'), 0);
    engine.receiveEvent(opened(12, CAROL_S, CAROL), 0);
    engine.receiveEvent(expired(13, BOB_S, BOB), 0);
    expect(engine.stats.durableOverflows).toBe(1);
    expect(requests).toEqual([undefined]);
    // The connect-time sync (revision 10) lands first: applied, but reconciliation is not over.
    engine.receiveSync(snapshotSync(), 1);
    expect(engine.phase).toBe('resyncing');
    engine.receiveSync(
      snapshotSync({ revision: 13, presence: [{ sessionId: TEACHER_S, userId: TEACHER, revision: 1, connected: true }] }),
      2,
    );
    expect(engine.phase).toBe('live');
    expect(engine.revision).toBe(13);
  });
});

describe('cursors', () => {
  test('cursors render only after the snapshot is applied', () => {
    const { engine } = setup();
    engine.connectionOpened(0);
    engine.receiveCursors(cursors([ALICE_S, 5, 6]), 0);
    expect(cursorSessions(engine)).toEqual([]);
    engine.receiveSync(snapshotSync(), 1);
    expect(engine.cursors.get(ALICE_S)).toMatchObject({ x: 5, y: 6, userId: ALICE });
  });

  test('a cursor of our own session is never drawn', () => {
    const { engine } = live();
    engine.receiveCursors(cursors([TEACHER_S, 1, 1]), 0);
    expect(cursorSessions(engine)).toEqual([]);
  });

  // Each row: the ending event for Bob, then a late cursor packet from Bob: the cursor stays gone.
  const endings: Array<[name: string, ending: RoomEvent]> = [
    ['presence expires', expired(11, BOB_S, BOB)],
    ['session closes', closed(11, BOB_S, BOB)],
    ['member is revoked', revoked(11, BOB)],
  ];
  test.each(endings)('a cursor hides the moment its owner %s and a late packet never revives it', (_name, ending) => {
    const { engine } = live();
    engine.receiveCursors(cursors([BOB_S, 1, 1], [ALICE_S, 2, 2]), 0);
    expect(cursorSessions(engine)).toEqual([ALICE_S, BOB_S].sort());
    engine.receiveEvent(ending, 1);
    expect(cursorSessions(engine)).toEqual([ALICE_S]);
    engine.receiveCursors(cursors([BOB_S, 9, 9]), 2);
    expect(cursorSessions(engine)).toEqual([ALICE_S]);
    expect(engine.stats.ignoredCursors).toBe(1);
  });

  test('I1: a duplicated presence.expired hides the cursor once and changes nothing after', () => {
    const { engine } = live();
    engine.receiveCursors(cursors([BOB_S, 1, 1]), 0);
    engine.receiveEvent(expired(11, BOB_S, BOB), 1);
    const hash = boardHash(engine.state ?? fail());
    engine.receiveEvent(expired(11, BOB_S, BOB), 2);
    expect(boardHash(engine.state ?? fail())).toBe(hash);
    expect(engine.stats.ignoredDuplicate).toBe(1);
    expect(cursorSessions(engine)).toEqual([]);
  });

  test('an ending held behind a gap hides the cursor at once, before it can be applied', () => {
    const { engine } = live();
    engine.receiveCursors(cursors([BOB_S, 1, 1]), 0);
    engine.receiveEvent(expired(12, BOB_S, BOB), 1); // revision 11 missing: held
    expect(engine.revision).toBe(10);
    expect(cursorSessions(engine)).toEqual([]);
    engine.receiveCursors(cursors([BOB_S, 3, 3]), 2);
    expect(cursorSessions(engine)).toEqual([]);
  });

  test('a revocation while a cursor packet is in flight: the late packet is ignored', () => {
    const { engine } = live();
    engine.receiveEvent(revoked(11, ALICE), 0);
    engine.receiveCursors(cursors([ALICE_S, 4, 4]), 1);
    expect(cursorSessions(engine)).toEqual([]);
    expect(rosterStates(engine).Alice).toBe('removed');
  });

  test('I7: a closed socket hides the cursor but the roster shows reconnecting, not gone', () => {
    const { engine } = live();
    engine.receiveCursors(cursors([BOB_S, 1, 1]), 0);
    engine.receivePresenceSignal({ sessionId: BOB_S, connected: false });
    expect(cursorSessions(engine)).toEqual([]);
    expect(rosterStates(engine).Bob).toBe('reconnecting');
    engine.receiveCursors(cursors([BOB_S, 2, 2]), 1);
    expect(cursorSessions(engine)).toEqual([]);
    engine.receivePresenceSignal({ sessionId: BOB_S, connected: true });
    engine.receiveCursors(cursors([BOB_S, 3, 3]), 2);
    expect(engine.cursors.get(BOB_S)).toMatchObject({ x: 3, y: 3 });
  });

  test('a session that opens again after expiring gets its cursor back through the new presence', () => {
    const { engine } = live();
    engine.receiveEvent(expired(11, BOB_S, BOB, 1), 0);
    engine.receiveEvent(opened(12, BOB_S, BOB, 2), 1);
    engine.receiveCursors(cursors([BOB_S, 7, 7]), 2);
    expect(cursorSessions(engine)).toEqual([BOB_S]);
  });

  test('cursors are cleared when the socket closes and hidden until the next sync', () => {
    const { engine } = live();
    engine.receiveCursors(cursors([BOB_S, 1, 1]), 0);
    engine.connectionClosed();
    expect(cursorSessions(engine)).toEqual([]);
    engine.connectionOpened(1);
    engine.receiveCursors(cursors([BOB_S, 2, 2]), 1);
    expect(cursorSessions(engine)).toEqual([]);
    engine.receiveSync({ kind: 'replay', fromRevision: 10, events: [] }, 2);
    expect(cursorSessions(engine)).toEqual([BOB_S]);
  });
});

describe('convergence', () => {
  test('a client that followed events and one that took a snapshot have the same board hash', () => {
    const { engine: follower } = live();
    const events = [joined(11, CAROL, 'Carol'), opened(12, CAROL_S, CAROL), expired(13, BOB_S, BOB), revoked(14, ALICE)];
    // Delivered shuffled and duplicated: order and duplicates must not matter.
    for (const e of [events[1], events[0], events[3], events[0], events[2], events[1]]) if (e) follower.receiveEvent(e, 0);
    const { engine: late } = setup();
    late.connectionOpened(0);
    late.receiveSync(
      {
        kind: 'snapshot',
        snapshot: snapshot({
          revision: 14,
          members: [...snapshot().members.map((m) => (m.userId === ALICE ? { ...m, status: 'revoked' as const } : m)), { userId: CAROL, displayName: 'Carol', role: 'student', status: 'active', colorIndex: 3, penMuted: false, handRaisedAt: null }],
          // Lease revisions moved on with renewals; the hash must not care.
          presence: [
            { sessionId: TEACHER_S, userId: TEACHER, revision: 40, connected: true },
            { sessionId: CAROL_S, userId: CAROL, revision: 7, connected: true },
          ],
          departures: [
            { userId: BOB, reason: 'lease_expired' },
            { userId: ALICE, reason: 'revoked' },
          ],
        }),
      },
      0,
    );
    expect(follower.revision).toBe(14);
    expect(boardHash(follower.state ?? fail())).toBe(boardHash(late.state ?? fail()));
  });
});

describe('a board kept on this device (offline/boardPicture.ts)', () => {
  test('restored after a reload: shown while no socket is up, named on connect, a newer sync replaces it', () => {
    const before = live();
    before.engine.receiveEvent(created(11, element(EL1)), 0);
    before.engine.receiveEvent(deleted(12, EL1, 2), 0);
    const kept = snapshotOf(before.engine.state!);

    const { engine, requests } = setup();
    expect(engine.restore(kept)).toBe(true);
    expect(engine.phase).toBe('idle');
    expect(engine.revision).toBe(12);
    // Its tombstones came with it: a late create of the deleted element cannot bring it back (I1).
    expect(engine.state?.tombstones.get(EL1)).toBe(2);
    engine.connectionOpened(0);
    engine.receiveSync({ kind: 'replay', fromRevision: 12, events: [joined(13, CAROL, 'Carol')] }, 0);
    expect(engine.phase).toBe('live');
    expect(engine.revision).toBe(13);
    expect(requests).toEqual([]);
  });

  test('never put over a state already here: the sync that came first is newer', () => {
    const { engine } = live();
    engine.receiveEvent(joined(11, CAROL, 'Carol'), 0);
    const older = snapshotOf(live().engine.state!); // revision 10
    expect(engine.restore(older)).toBe(false);
    expect(engine.revision).toBe(11);
  });
});
