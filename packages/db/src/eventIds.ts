/**
 * Event ids: the key every room event is deduplicated by (I1). `room_events.event_id` is unique, so
 * appending an id a second time rolls its transaction back (`AlreadyApplied`), and clients ignore
 * an id they have applied. So an id must come out the same for the same fact however often it is
 * attempted, and differ between any two facts, in any room.
 *
 * One format per kind, `<kind>:<key>`, built only here. The key is what makes the fact unique:
 *   - a transition a subject goes through once names the subject (`session.closed:<sessionId>`);
 *   - one that recurs also names a token that only grows: the lease revision, the element version,
 *     the lock generation, the count of the member's revocations;
 *   - one with no token of its own names the room revision it is appended at (`roomRevision`),
 *     which the caller knows exactly because it holds the room row's lock.
 * Session, user and room ids are the server's own UUIDs. Element ids are chosen by clients and are
 * unique only within a room (the elements table's key is (room, id)), so element and lock event
 * ids name the room too. No part contains `:`, so a different key never spells the same id.
 */
import type { RoomEventKind } from '@wb/protocol';

/** The first event of a membership (`1`), or a rename while it lasts (a fresh UUID each time). */
type MemberOccurrence = { userId: string; occurrence: 1 | string };

/** What names one event of each kind, besides its kind and its room. */
export interface EventKeys {
  'member.joined': MemberOccurrence;
  'member.pending': MemberOccurrence;
  'presence.opened': { sessionId: string; leaseRevision: number };
  'presence.expired': { sessionId: string; leaseRevision: number };
  'session.closed': { sessionId: string };
  /** `nth`: one more than the member's revocation facts in attendance, so each revocation's is greater. */
  'member.revoked': { userId: string; nth: number };
  'member.restored': { userId: string; roomRevision: number };
  'member.admitted': { userId: string };
  'member.denied': { userId: string };
  'member.withdrawn': { userId: string };
  'room.updated': { roomRevision: number };
  'element.created': { elementId: string };
  'element.updated': { elementId: string; version: number };
  'element.deleted': { elementId: string; version: number };
  'element.restored': { elementId: string; version: number };
  'lock.granted': { elementId: string; generation: number };
  'lock.released': { elementId: string; generation: number };
  /** Each change of a pen is its own fact (the conditional write refuses a repeat): a fresh UUID. */
  'member.pen': { userId: string; occurrence: string };
  /** Each raise or lower of a hand is its own fact: a fresh UUID. */
  'member.hand': { userId: string; occurrence: string };
  /** Each change of an activity (status, shown boards) is named by the lesson revision it lands at. */
  'activity.updated': { activityId: string; roomRevision: number };
  /** Each change of a poll (opened, answered, closed, shown) is its own fact: a fresh UUID. */
  'poll.updated': { pollId: string; occurrence: string };
  /** Each raise or clear of a board's flag is its own fact (the conditional write refuses a repeat): a fresh UUID. */
  'board.flagged': { occurrence: string };
  /** Each change of the lesson's pages (list, teacher's page, pacing) is named by the lesson revision it lands at. */
  'pages.updated': { roomRevision: number };
}

export type EventKey<K extends RoomEventKind> = EventKeys[K];

type KeyParts = readonly (string | number)[];

/** The key's parts in id order. Total over the protocol's kinds: a new kind needs its format here. */
const keyParts: { [K in RoomEventKind]: (key: EventKeys[K], roomId: string) => KeyParts } = {
  'member.joined': (k) => [k.userId, k.occurrence],
  'member.pending': (k) => [k.userId, k.occurrence],
  'presence.opened': (k) => [k.sessionId, k.leaseRevision],
  'presence.expired': (k) => [k.sessionId, k.leaseRevision],
  'session.closed': (k) => [k.sessionId],
  'member.revoked': (k) => [k.userId, k.nth],
  'member.restored': (k) => [k.userId, k.roomRevision],
  'member.admitted': (k) => [k.userId],
  'member.denied': (k) => [k.userId],
  'member.withdrawn': (k) => [k.userId],
  'room.updated': (k, roomId) => [roomId, k.roomRevision],
  'element.created': (k, roomId) => [roomId, k.elementId],
  'element.updated': (k, roomId) => [roomId, k.elementId, k.version],
  'element.deleted': (k, roomId) => [roomId, k.elementId, k.version],
  'element.restored': (k, roomId) => [roomId, k.elementId, k.version],
  'lock.granted': (k, roomId) => [roomId, k.elementId, k.generation],
  'lock.released': (k, roomId) => [roomId, k.elementId, k.generation],
  'member.pen': (k) => [k.userId, k.occurrence],
  'member.hand': (k) => [k.userId, k.occurrence],
  'activity.updated': (k, roomId) => [roomId, k.activityId, k.roomRevision],
  'poll.updated': (k, roomId) => [roomId, k.pollId, k.occurrence],
  'board.flagged': (k, roomId) => [roomId, k.occurrence],
  'pages.updated': (k, roomId) => [roomId, k.roomRevision],
};

/** The id of the event of `kind` in room `roomId` named by `key`: `<kind>:<key parts joined by ':'>`. */
export function eventId<K extends RoomEventKind>(kind: K, roomId: string, key: EventKey<K>): string {
  return [kind, ...keyParts[kind](key, roomId)].join(':');
}

/**
 * The id of an attendance fact: the id of the room event that records it, with the session added
 * when one event stands for a fact of each of several sessions (a revocation closes them all).
 */
export function attendanceFactId(roomEventId: string, sessionId: string | null): string {
  return sessionId === null ? roomEventId : `${roomEventId}:${sessionId}`;
}
