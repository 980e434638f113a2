/**
 * I14, identical work is shared: a lesson room's sync answer depends only on the room and the
 * revision asked from, so the members asking for the same thing cost one database read, and a
 * flooder asking from 0 again and again costs none while the room has not moved. I1: a cached
 * answer is never served once this node has published a newer event in the room. Authorisation is
 * still per request: an ended (revoked) session is refused even when the answer is cached.
 * A fake store counts the reads; time is the test's.
 */
import type { EventsAfter } from '@wb/db';
import { ClientEvent, ErrorCode, type RoomEvent, type RoomSnapshot } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { Refusal } from '../src/realtime/requests.ts';
import type { SocketSession } from '../src/realtime/socketSession.ts';
import { SYNC_REUSE_MS, SyncService, syncHandlers } from '../src/realtime/syncHandlers.ts';

const ROOM = '00000000-0000-4000-8000-000000000001';

const event = (revision: number): RoomEvent =>
  ({ roomId: ROOM, revision, eventId: `element:e${revision}:1`, kind: 'element.deleted', payload: { elementId: `e${revision}` } }) as unknown as RoomEvent;

/** A room whose log holds every event from 1 to `revision`; reads resolve when the test says. */
function fakeRoom(initialRevision: number) {
  let revision = initialRevision;
  const reads: { from: number }[] = [];
  let gate: Promise<void> = Promise.resolve();
  const store = {
    eventsAfter: async (_roomId: string, after: number, limit: number): Promise<EventsAfter> => {
      reads.push({ from: after });
      await gate;
      if (after > revision) return { kind: 'ahead', revision };
      if (revision - after > limit) return { kind: 'pruned', revision };
      return { kind: 'replay', revision, events: Array.from({ length: revision - after }, (_, i) => event(after + i + 1)) };
    },
    loadRoomSnapshot: async (): Promise<RoomSnapshot | null> => {
      reads.push({ from: -1 });
      await gate;
      return { revision, elements: [], members: [], presence: [], departures: [] } as unknown as RoomSnapshot;
    },
  };
  const published = { latest: undefined as number | undefined };
  const publisher = { latestRevision: () => published.latest };
  return {
    store,
    publisher,
    reads,
    /** A new event committed and published on this node. */
    publish: () => {
      revision++;
      published.latest = revision;
    },
    hold: () => {
      let release = () => {};
      gate = new Promise((done) => (release = done));
      return release;
    },
  };
}

describe('shared sync answers (I14)', () => {
  test('I14: 50 members asking for the same revision cost one database read', async () => {
    const room = fakeRoom(300);
    let now = 0;
    const sync = new SyncService(room.store, room.publisher, () => now);
    const release = room.hold();
    const asks = Array.from({ length: 50 }, (_, i) => sync.request(ROOM, `user-${i}`, 0));
    release();
    const answers = await Promise.all(asks);
    expect(room.reads).toHaveLength(1);
    for (const answer of answers) {
      expect(answer.kind).toBe('replay');
      if (answer.kind === 'replay') expect(answer.events.map((e) => e.revision)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    }
    // Asked again within the reuse window from 0, from the room's revision, or from between: no read.
    now += SYNC_REUSE_MS / 2;
    const later = await Promise.all([sync.request(ROOM, 'user-a', 0), sync.request(ROOM, 'user-b', 300), sync.request(ROOM, 'user-c', 250)]);
    expect(room.reads).toHaveLength(1);
    expect(later.map((a) => (a.kind === 'replay' ? [a.fromRevision, a.events.length, a.events[0]?.revision ?? null] : null))).toEqual([
      [0, 300, 1],
      [300, 0, null],
      [250, 50, 251],
    ]);
  });

  test('I14: a flooder asking from 0 again and again costs one read per reuse window while the room has not moved, window after window', async () => {
    const room = fakeRoom(300);
    let now = 0;
    const sync = new SyncService(room.store, room.publisher, () => now);
    for (let i = 0; i < 600; i++) {
      // 600 asks from 600 members (each within its own budget), 5 ms apart: 3 s in all, and the
      // honest members at the room's revision asking meanwhile.
      await sync.request(ROOM, `tab-${i}`, 0);
      if (i % 20 === 0) await sync.request(ROOM, `honest-${i}`, 300);
      now += 5;
    }
    expect(room.reads.length).toBeLessThanOrEqual(Math.ceil(3_000 / SYNC_REUSE_MS) + 1);
  });

  test('I1: once this node publishes a newer event in the room, the cached answer is not served: the next ask reads again', async () => {
    const room = fakeRoom(300);
    const now = 0;
    const sync = new SyncService(room.store, room.publisher, () => now);
    await sync.request(ROOM, 'a', 0);
    room.publish();
    const answer = await sync.request(ROOM, 'b', 300);
    expect(room.reads).toHaveLength(2);
    expect(answer.kind === 'replay' ? answer.events.map((e) => e.revision) : null).toEqual([301]);
    // A snapshot too: never older than a published revision.
    const first = await sync.build(ROOM, undefined);
    room.publish();
    const second = await sync.build(ROOM, undefined);
    expect(first.kind === 'snapshot' && second.kind === 'snapshot' ? [first.snapshot.revision, second.snapshot.revision] : null).toEqual([301, 302]);
  });
});

describe('authorisation stays per request (I14 does not bypass it)', () => {
  const sessionOf = (userId: string) => {
    let state: SocketSession['presence'] = { status: 'live', revision: 1 };
    const session = {
      roomId: ROOM,
      userId,
      get presence() {
        return state;
      },
    } as unknown as SocketSession;
    return { session, revoke: () => (state = { status: 'ended', reason: ErrorCode.MEMBERSHIP_REVOKED }) };
  };
  const refusalOf = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => (error instanceof Refusal ? error.error.code : String(error)));

  test('a revoked member is refused membership_revoked even when the answer is cached', async () => {
    const room = fakeRoom(300);
    const sync = new SyncService(room.store, room.publisher, () => 0);
    const handle = syncHandlers(sync)[ClientEvent.SYNC_REQUEST];
    const honest = sessionOf('honest');
    const revoked = sessionOf('revoked');
    // The answer is cached by the honest member's ask.
    expect((await handle(honest.session, { lastRevision: 0 })).sync.kind).toBe('replay');
    revoked.revoke();
    expect(await refusalOf(handle(revoked.session, { lastRevision: 0 }))).toBe(ErrorCode.MEMBERSHIP_REVOKED);
    expect(room.reads).toHaveLength(1);
  });

  test('a member revoked while their answer is being read is refused, not sent the room', async () => {
    const room = fakeRoom(300);
    const sync = new SyncService(room.store, room.publisher, () => 0);
    const handle = syncHandlers(sync)[ClientEvent.SYNC_REQUEST];
    const member = sessionOf('member');
    const release = room.hold();
    const asked = refusalOf(handle(member.session, { lastRevision: 0 }));
    member.revoke();
    release();
    expect(await asked).toBe(ErrorCode.MEMBERSHIP_REVOKED);
  });
});
