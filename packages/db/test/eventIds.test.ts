/**
 * The event-id formats (eventIds.ts; docs/protocol.md, "Event ids"). I1 needs an id that is the same
 * for the same fact however often it is written, and different for any two facts.
 */
import fc from 'fast-check';
import type { RoomEventKind } from '@wb/protocol';
import { describe, expect, it } from 'vitest';
import { attendanceFactId, eventId, type EventKey } from '../src/eventIds.ts';

const ROOM = '00000000-0000-4000-8000-00000000000a';
const OTHER_ROOM = '00000000-0000-4000-8000-00000000000b';
const USER = '00000000-0000-4000-8000-000000000001';
const SESSION = '00000000-0000-4000-8000-000000000002';
const ELEMENT = '00000000-0000-4000-8000-000000000003';
const RENAME = '00000000-0000-4000-8000-000000000004';

/** The ids of docs/protocol.md, one per kind; the compiler refuses the table when a kind is missing. */
const documented: { [K in RoomEventKind]: { key: EventKey<K>; id: string } } = {
  'member.joined': { key: { userId: USER, occurrence: 1 }, id: `member.joined:${USER}:1` },
  'member.pending': { key: { userId: USER, occurrence: RENAME }, id: `member.pending:${USER}:${RENAME}` },
  'presence.opened': { key: { sessionId: SESSION, leaseRevision: 42 }, id: `presence.opened:${SESSION}:42` },
  'presence.expired': { key: { sessionId: SESSION, leaseRevision: 42 }, id: `presence.expired:${SESSION}:42` },
  'session.closed': { key: { sessionId: SESSION }, id: `session.closed:${SESSION}` },
  'member.revoked': { key: { userId: USER, nth: 2 }, id: `member.revoked:${USER}:2` },
  'member.restored': { key: { userId: USER, roomRevision: 17 }, id: `member.restored:${USER}:17` },
  'member.admitted': { key: { userId: USER }, id: `member.admitted:${USER}` },
  'member.denied': { key: { userId: USER }, id: `member.denied:${USER}` },
  'member.withdrawn': { key: { userId: USER }, id: `member.withdrawn:${USER}` },
  'room.updated': { key: { roomRevision: 17 }, id: `room.updated:${ROOM}:17` },
  'element.created': { key: { elementId: ELEMENT }, id: `element.created:${ROOM}:${ELEMENT}` },
  'element.updated': { key: { elementId: ELEMENT, version: 3 }, id: `element.updated:${ROOM}:${ELEMENT}:3` },
  'element.deleted': { key: { elementId: ELEMENT, version: 3 }, id: `element.deleted:${ROOM}:${ELEMENT}:3` },
  'lock.granted': { key: { elementId: ELEMENT, generation: 5 }, id: `lock.granted:${ROOM}:${ELEMENT}:5` },
  'lock.released': { key: { elementId: ELEMENT, generation: 5 }, id: `lock.released:${ROOM}:${ELEMENT}:5` },
  'element.restored': { key: { elementId: ELEMENT, version: 3 }, id: `element.restored:${ROOM}:${ELEMENT}:3` },
  'member.pen': { key: { userId: USER, occurrence: ELEMENT }, id: `member.pen:${USER}:${ELEMENT}` },
  'member.hand': { key: { userId: USER, occurrence: ELEMENT }, id: `member.hand:${USER}:${ELEMENT}` },
  'activity.updated': { key: { activityId: ELEMENT, roomRevision: 17 }, id: `activity.updated:${ROOM}:${ELEMENT}:17` },
  'poll.updated': { key: { pollId: ELEMENT, occurrence: RENAME }, id: `poll.updated:${ROOM}:${ELEMENT}:${RENAME}` },
  'board.flagged': { key: { occurrence: RENAME }, id: `board.flagged:${ROOM}:${RENAME}` },
  'pages.updated': { key: { roomRevision: 21 }, id: `pages.updated:${ROOM}:21` },
};
const kinds = Object.keys(documented) as RoomEventKind[];


/** What a key is made of, so one draw gives every kind a key. */
interface Material {
  user: string;
  session: string;
  element: string;
  occurrence: 1 | string;
  n: number;
}

const keyFrom: { [K in RoomEventKind]: (m: Material) => EventKey<K> } = {
  'member.joined': (m) => ({ userId: m.user, occurrence: m.occurrence }),
  'member.pending': (m) => ({ userId: m.user, occurrence: m.occurrence }),
  'presence.opened': (m) => ({ sessionId: m.session, leaseRevision: m.n }),
  'presence.expired': (m) => ({ sessionId: m.session, leaseRevision: m.n }),
  'session.closed': (m) => ({ sessionId: m.session }),
  'member.revoked': (m) => ({ userId: m.user, nth: m.n }),
  'member.restored': (m) => ({ userId: m.user, roomRevision: m.n }),
  'member.admitted': (m) => ({ userId: m.user }),
  'member.denied': (m) => ({ userId: m.user }),
  'member.withdrawn': (m) => ({ userId: m.user }),
  'room.updated': (m) => ({ roomRevision: m.n }),
  'element.created': (m) => ({ elementId: m.element }),
  'element.updated': (m) => ({ elementId: m.element, version: m.n }),
  'element.deleted': (m) => ({ elementId: m.element, version: m.n }),
  'lock.granted': (m) => ({ elementId: m.element, generation: m.n }),
  'lock.released': (m) => ({ elementId: m.element, generation: m.n }),
  'element.restored': (m) => ({ elementId: m.element, version: m.n }),
  'member.pen': (m) => ({ userId: m.user, occurrence: String(m.occurrence) }),
  'member.hand': (m) => ({ userId: m.user, occurrence: String(m.occurrence) }),
  'activity.updated': (m) => ({ activityId: m.element, roomRevision: m.n }),
  'poll.updated': (m) => ({ pollId: m.element, occurrence: String(m.occurrence) }),
  'board.flagged': (m) => ({ occurrence: String(m.occurrence) }),
  'pages.updated': (m) => ({ roomRevision: m.n }),
};
const idFrom = <K extends RoomEventKind>(kind: K, roomId: string, m: Material) => eventId(kind, roomId, keyFrom[kind](m));

// A small pool of ids, so that draws often share a user, a session or an element.
const uuid = fc.constantFrom(USER, SESSION, ELEMENT, RENAME, ROOM, OTHER_ROOM);
const material: fc.Arbitrary<Material> = fc.record({
  user: uuid,
  session: uuid,
  element: uuid,
  occurrence: fc.oneof(fc.constant(1 as const), uuid),
  n: fc.integer({ min: 1, max: 4 }),
});
const room = fc.constantFrom(ROOM, OTHER_ROOM);

describe('event ids (I1)', () => {
  it('one format per kind: <kind>:<key>, exactly as docs/protocol.md lists it', () => {
    for (const kind of kinds) expect(eventId(kind, ROOM, documented[kind].key), kind).toBe(documented[kind].id);
  });

  it('I1: the same fact gets the same id, however often it is built', () => {
    fc.assert(
      fc.property(fc.constantFrom(...kinds), room, material, (kind, roomId, m) => {
        expect(idFrom(kind, roomId, m)).toBe(idFrom(kind, roomId, { ...m }));
      }),
    );
  });

  it('I1: ids of different kinds never meet, even built from the same ids and numbers', () => {
    fc.assert(
      fc.property(room, material, (roomId, m) => {
        const ids = kinds.map((kind) => idFrom(kind, roomId, m));
        expect(new Set(ids).size).toBe(kinds.length);
        ids.forEach((id, i) => expect(id.startsWith(`${kinds[i]}:`)).toBe(true));
      }),
    );
  });

  it('I1: within a kind, two facts share an id only when their keys are equal', () => {
    // Half the time the second fact is the first again, so equal keys are drawn as often as not.
    const twoFacts = fc
      .tuple(fc.constantFrom(...kinds), room, material)
      .chain(([kind, roomId, a]) => fc.tuple(fc.constant(kind), fc.constant(roomId), fc.constant(a), fc.oneof(fc.constant(a), material)));
    fc.assert(
      fc.property(twoFacts, ([kind, roomId, a, b]) => {
        const sameKey = JSON.stringify(keyFrom[kind](a)) === JSON.stringify(keyFrom[kind](b));
        expect(idFrom(kind, roomId, a) === idFrom(kind, roomId, b)).toBe(sameKey);
      }),
      { numRuns: 1_000 },
    );
  });

  it('I1: element, lock and room events name their room (element ids are chosen by clients, unique per room only)', () => {
    const roomScoped: RoomEventKind[] = [
      'room.updated',
      'element.created',
      'element.updated',
      'element.deleted',
      'lock.granted',
      'lock.released',
      'element.restored',
      'activity.updated',
      'poll.updated',
      'board.flagged',
      'pages.updated',
    ];
    for (const kind of kinds) {
      const here = eventId(kind, ROOM, documented[kind].key);
      const there = eventId(kind, OTHER_ROOM, documented[kind].key);
      // Session and user ids are the server's UUIDs, unique across rooms already.
      expect(here === there, kind).toBe(!roomScoped.includes(kind));
    }
  });

  it('an attendance fact takes its room event id, with the session when the event covers several', () => {
    const revoked = eventId('member.revoked', ROOM, { userId: USER, nth: 1 });
    expect(attendanceFactId(revoked, null)).toBe(revoked);
    expect(attendanceFactId(revoked, SESSION)).toBe(`${revoked}:${SESSION}`);
  });
});
