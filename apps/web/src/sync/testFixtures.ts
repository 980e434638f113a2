import type { CursorBatch, Member, Presence, RoomEvent, RoomSnapshot, SyncMessage } from '@wb/protocol';

// Fixed ids so failures read the same every run.
export const ROOM_ID = '00000000-0000-4000-8000-000000000001';
export const TEACHER = '00000000-0000-4000-8000-0000000000a1';
export const ALICE = '00000000-0000-4000-8000-0000000000a2';
export const BOB = '00000000-0000-4000-8000-0000000000a3';
export const TEACHER_S = '00000000-0000-4000-8000-0000000000b1';
export const ALICE_S = '00000000-0000-4000-8000-0000000000b2';
export const ALICE_S2 = '00000000-0000-4000-8000-0000000000b4';
export const BOB_S = '00000000-0000-4000-8000-0000000000b3';

export function member(userId: string, displayName: string, role: Member['role'] = 'student'): Member {
  return { userId, displayName, role, status: 'active' };
}

export function presence(sessionId: string, userId: string, revision = 1, connected = true): Presence {
  return { sessionId, userId, revision, connected };
}

/** Teacher, Alice and Bob all present at revision 10. */
export function snapshot(overrides: Partial<RoomSnapshot> = {}): RoomSnapshot {
  return {
    room: { id: ROOM_ID, code: 'ABC234', title: 'Fractions', status: 'open' },
    revision: 10,
    members: [member(TEACHER, 'Ms Teacher', 'teacher'), member(ALICE, 'Alice'), member(BOB, 'Bob')],
    presence: [presence(TEACHER_S, TEACHER), presence(ALICE_S, ALICE), presence(BOB_S, BOB)],
    departures: [],
    ...overrides,
  };
}

export function snapshotSync(overrides: Partial<RoomSnapshot> = {}): SyncMessage {
  return { kind: 'snapshot', snapshot: snapshot(overrides) };
}

type Payloads = { [K in RoomEvent['kind']]: Extract<RoomEvent, { kind: K }>['payload'] };

export function event<K extends RoomEvent['kind']>(revision: number, kind: K, payload: Payloads[K], eventId = `ev-${revision}`): RoomEvent {
  // The cast joins a generic kind with its payload, which TypeScript cannot correlate on its own.
  return { roomId: ROOM_ID, revision, eventId, kind, payload } as RoomEvent;
}

export const expired = (revision: number, sessionId: string, userId: string, leaseRevision = 1): RoomEvent =>
  event(revision, 'presence.expired', { sessionId, userId, revision: leaseRevision });
export const opened = (revision: number, sessionId: string, userId: string, leaseRevision = 1): RoomEvent =>
  event(revision, 'presence.opened', { sessionId, userId, revision: leaseRevision });
export const closed = (revision: number, sessionId: string, userId: string): RoomEvent =>
  event(revision, 'session.closed', { sessionId, userId, reason: 'signed_out' });
export const revoked = (revision: number, userId: string): RoomEvent =>
  event(revision, 'member.revoked', { userId, by: TEACHER, reason: null });
export const joined = (revision: number, userId: string, name: string): RoomEvent =>
  event(revision, 'member.joined', member(userId, name));

export function cursors(...entries: Array<[sessionId: string, userId: string, x: number, y: number]>): CursorBatch {
  return { cursors: entries.map(([sessionId, userId, x, y]) => ({ sessionId, userId, x, y })) };
}
