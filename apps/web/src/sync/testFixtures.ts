import type { CursorBatch, DragEntry, Element, ElementShape, Member, Presence, RoomEvent, RoomSnapshot, SyncMessage } from '@wb/protocol';

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
  return { userId, displayName, role, status: 'active', colorIndex: 0, penMuted: false, handRaisedAt: null };
}

export function presence(sessionId: string, userId: string, revision = 1, connected = true): Presence {
  return { sessionId, userId, revision, connected };
}

/** Teacher, Alice and Bob all present at revision 10. */
export function snapshot(overrides: Partial<RoomSnapshot> = {}): RoomSnapshot {
  return {
    room: { id: ROOM_ID, code: 'ABC234', title: 'Fractions', status: 'open', requireApproval: false, settings: { editPolicy: 'own', cursorVisibility: 'everyone', laserAllowed: false, paper: 'dots' } },
    revision: 10,
    members: [member(TEACHER, 'Ms Teacher', 'teacher'), member(ALICE, 'Alice'), member(BOB, 'Bob')],
    presence: [presence(TEACHER_S, TEACHER), presence(ALICE_S, ALICE), presence(BOB_S, BOB)],
    departures: [],
    elements: [],
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

export function cursors(...entries: Array<[sessionId: string, x: number, y: number]>): CursorBatch {
  return { cursors: entries };
}

export const EL1 = '00000000-0000-4000-8000-0000000000e1';
export const EL2 = '00000000-0000-4000-8000-0000000000e2';

export function rect(x = 0, y = 0, w = 100, h = 50): ElementShape {
  return { kind: 'rect', x, y, w, h, stroke: '#1e1e1e', fill: 'transparent', strokeWidth: 2 };
}

export function element(id: string, version = 1, shape: ElementShape = rect(), overrides: Partial<Element> = {}): Element {
  return { id, shape, version, pinned: false, createdBy: ALICE, updatedBy: ALICE, z: 1, lock: null, ...overrides };
}

export const created = (revision: number, el: Element): RoomEvent => event(revision, 'element.created', { element: el });
export const updated = (revision: number, el: Element): RoomEvent => event(revision, 'element.updated', { element: el });
export const deleted = (revision: number, elementId: string, version: number): RoomEvent =>
  event(revision, 'element.deleted', { elementId, version, by: ALICE });
export const granted = (revision: number, elementId: string, generation: number, sessionId = BOB_S, userId = BOB): RoomEvent =>
  event(revision, 'lock.granted', { elementId, generation, sessionId, userId });
export const released = (revision: number, elementId: string, generation: number): RoomEvent =>
  event(revision, 'lock.released', { elementId, generation, reason: 'released' });

export function drags(...entries: Array<[elementId: string, generation: number, sessionId: string, userId: string, x: number, y: number]>): CursorBatch {
  const list: DragEntry[] = entries.map(([elementId, generation, sessionId, userId, x, y]) => ({ elementId, generation, sessionId, userId, x, y }));
  return { cursors: [], drags: list };
}
