import type { Departure, EditPolicy, Element, Member, Paper, Poll, Presence, RoomEvent, RoomInfo, RoomSnapshot } from '@wb/protocol';

/**
 * The room as this client knows it, built only from the server's snapshot and revisioned events.
 * Immutable: every change returns a new object (collections not touched are shared), so
 * subscribers can compare references.
 */
export interface RoomState {
  readonly room: RoomInfo;
  /** The last room revision applied; events at or below it are history (I1). */
  readonly revision: number;
  readonly members: ReadonlyMap<string, Member>;
  /** Live presence leases by session id. Absence means the session is not present. */
  readonly presence: ReadonlyMap<string, Presence>;
  /** Each member's last known way of leaving, by user id. */
  readonly departures: ReadonlyMap<string, Departure['reason']>;
  /** Live elements by id, each with the version of its last accepted change and its drag lock. */
  readonly elements: ReadonlyMap<string, Element>;
  /**
   * Deleted element ids and the version they were deleted at. A deletion is final, so a late or
   * duplicated create or update for one of these never brings it back (I1). Bounded (I10): the
   * oldest are forgotten first, by which time the revision check covers them.
   */
  readonly tombstones: ReadonlyMap<string, number>;
  /** The lesson's latest quick poll as the class knows it (counts, no names), or null. */
  readonly poll?: Poll | null;
  /** A private board's flag (`board.flagged` in its log), or null; the lesson's own is always null. */
  readonly flag?: { flag: 'done' | 'help' | null; flaggedAt: string | null };
}

/** Tombstones remembered per room (I10); a snapshot never sends deleted elements anyway. */
export const MAX_TOMBSTONES = 10_000;

/**
 * The state a snapshot describes. Tombstones are not in a snapshot, so the ones this client
 * already knows are carried over from `previous`: a deletion stays a deletion.
 */
export function stateFromSnapshot(snapshot: RoomSnapshot, previous: RoomState | null = null): RoomState {
  const tombstones = previous?.tombstones ?? new Map<string, number>();
  return {
    room: snapshot.room,
    revision: snapshot.revision,
    members: new Map(snapshot.members.map((m) => [m.userId, m])),
    presence: new Map(snapshot.presence.map((p) => [p.sessionId, p])),
    departures: new Map(snapshot.departures.map((d) => [d.userId, d.reason])),
    elements: new Map(snapshot.elements.filter((e) => !tombstones.has(e.id)).map((e) => [e.id, e])),
    tombstones,
    poll: snapshot.poll ?? null,
  };
}

/**
 * The state as a snapshot at its revision, with the tombstones it knows (a snapshot carries none):
 * what this device keeps of a board between reloads (offline/boardPicture.ts). `stateFromSnapshot`
 * reads it back to the same state.
 */
export function snapshotOf(state: RoomState): { snapshot: RoomSnapshot; tombstones: Array<[string, number]> } {
  return {
    snapshot: {
      room: state.room,
      revision: state.revision,
      members: [...state.members.values()],
      presence: [...state.presence.values()],
      departures: [...state.departures].map(([userId, reason]) => ({ userId, reason })),
      elements: [...state.elements.values()],
    },
    tombstones: [...state.tombstones],
  };
}

/**
 * What a board is in its lesson, for a board that is not the lesson's own (a student's private
 * board): its id and its edit policy. Everything else about the people and the rules is the
 * lesson's.
 */
export interface BoardFrame {
  readonly boardId: string;
  readonly editPolicy: EditPolicy;
  /** A page's own paper (docs/boards.md "Pages"); absent: the lesson's. */
  readonly paper?: Paper;
}

/**
 * A private board's state, framed by its lesson: the board's own revision, elements and tombstones
 * (its log), the lesson's members, presence and departures (who is here, who may draw, whose
 * cursor is live), and the lesson's room info under the board's id and edit policy. So every rule
 * of the engine and the editor (I1, locks, live ink, rights) reads a private board as it reads the
 * class board. Shares the lesson's collections: no copy per board.
 */
export function framedByLesson(board: RoomState, lesson: RoomState, frame: BoardFrame): RoomState {
  const room = boardRoom(lesson.room, frame);
  if (board.room === room && board.members === lesson.members && board.presence === lesson.presence && board.departures === lesson.departures) return board;
  return { ...board, room, members: lesson.members, presence: lesson.presence, departures: lesson.departures };
}

/** The lesson's room info as a board's (memoised per lesson room, so an unchanged frame keeps its identity). */
const framedRooms = new WeakMap<RoomInfo, Map<string, RoomInfo>>();
function boardRoom(lesson: RoomInfo, frame: BoardFrame): RoomInfo {
  let byFrame = framedRooms.get(lesson);
  if (!byFrame) framedRooms.set(lesson, (byFrame = new Map()));
  const key = `${frame.boardId}:${frame.editPolicy}:${frame.paper ?? ''}`;
  let room = byFrame.get(key);
  if (!room) {
    const settings = { ...lesson.settings, editPolicy: frame.editPolicy, ...(frame.paper ? { paper: frame.paper } : {}) };
    byFrame.set(key, (room = { ...lesson, id: frame.boardId, settings }));
  }
  return room;
}

/** A board's snapshot as the engine reads snapshots: its elements at its revision, framed by the lesson as it is now. */
export function boardSnapshot(snapshot: { revision: number; elements: Element[] }, lesson: RoomState, frame: BoardFrame): RoomSnapshot {
  return {
    room: boardRoom(lesson.room, frame),
    revision: snapshot.revision,
    members: [...lesson.members.values()],
    presence: [...lesson.presence.values()],
    departures: [...lesson.departures].map(([userId, reason]) => ({ userId, reason })),
    elements: snapshot.elements,
    poll: null,
  };
}

/** Session ids whose presence a given event ends: their cursors must go with it. */
export function sessionsEndedBy(state: RoomState | null, event: RoomEvent): string[] {
  switch (event.kind) {
    case 'presence.expired':
    case 'session.closed':
      return [event.payload.sessionId];
    case 'member.revoked': {
      if (!state) return [];
      return [...state.presence.values()].filter((p) => p.userId === event.payload.userId).map((p) => p.sessionId);
    }
    case 'member.joined':
    case 'member.restored':
    case 'member.pending':
    case 'member.admitted':
    case 'member.denied':
    case 'member.withdrawn':
    case 'room.updated':
    case 'presence.opened':
    case 'element.created':
    case 'element.updated':
    case 'element.deleted':
    case 'lock.granted':
    case 'lock.released':
    case 'element.restored':
    case 'member.pen':
    case 'member.hand':
    case 'activity.updated':
    case 'poll.updated':
    case 'board.flagged':
    case 'pages.updated':
      return [];
  }
}

/** Element ids an event changes (its drag preview, if any, must be re-judged against it). */
export function elementTouchedBy(event: RoomEvent): string | null {
  switch (event.kind) {
    case 'element.created':
    case 'element.updated':
    case 'element.restored':
      return event.payload.element.id;
    case 'element.deleted':
    case 'lock.granted':
    case 'lock.released':
      return event.payload.elementId;
    default:
      return null;
  }
}

/**
 * Applies one event that is exactly the next revision. Ordering and deduplication are the
 * engine's job; this function only knows what each kind of event means.
 */
export function applyRoomEvent(state: RoomState, event: RoomEvent): RoomState {
  const next = { ...state, revision: event.revision };
  switch (event.kind) {
    case 'member.joined':
    case 'member.pending': {
      const members = new Map(state.members);
      members.set(event.payload.userId, event.payload);
      return { ...next, members };
    }
    // The lobby: a waiting member holds no lease, so only the membership changes.
    case 'member.admitted':
    case 'member.denied': {
      const member = state.members.get(event.payload.userId);
      if (!member) return next;
      const members = new Map(state.members);
      members.set(member.userId, { ...member, status: event.kind === 'member.admitted' ? 'active' : 'denied' });
      return { ...next, members };
    }
    case 'member.withdrawn': {
      const members = new Map(state.members);
      members.delete(event.payload.userId);
      return { ...next, members };
    }
    case 'presence.opened': {
      const { sessionId, userId, revision } = event.payload;
      const current = state.presence.get(sessionId);
      // A lease token only grows (I4): an open older than the lease we hold is stale news.
      if (current && current.revision > revision) return next;
      const presence = new Map(state.presence);
      presence.set(sessionId, { sessionId, userId, revision, connected: true });
      return { ...next, presence };
    }
    case 'presence.expired': {
      const { sessionId, userId, revision } = event.payload;
      const current = state.presence.get(sessionId);
      // The expiry of a superseded lease must not remove the lease that replaced it (I4).
      if (current && current.revision > revision) return next;
      const presence = new Map(state.presence);
      presence.delete(sessionId);
      const departures = new Map(state.departures);
      departures.set(userId, 'lease_expired');
      return { ...next, presence, departures };
    }
    case 'session.closed': {
      const { sessionId, userId, reason } = event.payload;
      const presence = new Map(state.presence);
      presence.delete(sessionId);
      const departures = new Map(state.departures);
      departures.set(userId, reason);
      return { ...next, presence, departures };
    }
    case 'member.revoked': {
      const { userId } = event.payload;
      const member = state.members.get(userId);
      const members = new Map(state.members);
      if (member) members.set(userId, { ...member, status: 'revoked' });
      const presence = new Map([...state.presence].filter(([, p]) => p.userId !== userId));
      const departures = new Map(state.departures);
      departures.set(userId, 'revoked');
      return { ...next, members, presence, departures };
    }
    case 'room.updated':
      // Renamed, its lesson settings changed, or archived; an archive's session closes arrive as
      // their own events.
      return { ...next, room: event.payload };
    case 'member.pen': {
      const member = state.members.get(event.payload.userId);
      if (!member) return next;
      const members = new Map(state.members);
      members.set(member.userId, { ...member, penMuted: event.payload.muted });
      return { ...next, members };
    }
    case 'member.hand': {
      const member = state.members.get(event.payload.userId);
      if (!member) return next;
      const members = new Map(state.members);
      members.set(member.userId, { ...member, handRaisedAt: event.payload.raisedAt });
      return { ...next, members };
    }
    case 'activity.updated':
      // Activities and private boards (docs/boards.md) are not drawn by this client yet.
      return next;
    case 'poll.updated':
      return { ...next, poll: event.payload };
    case 'board.flagged':
      return { ...next, flag: { flag: event.payload.flag, flaggedAt: event.payload.flaggedAt } };
    case 'pages.updated':
      // The lesson's pages (pages/pagesClient.ts) are kept beside the board's state, not in it.
      return next;
    case 'member.restored': {
      const { userId } = event.payload;
      const member = state.members.get(userId);
      const members = new Map(state.members);
      if (member) members.set(userId, { ...member, status: 'active' });
      // The removal is undone: they are simply not here until they join again.
      const departures = new Map(state.departures);
      if (departures.get(userId) === 'revoked') departures.delete(userId);
      return { ...next, members, departures };
    }
    case 'element.created':
    case 'element.updated': {
      const { element } = event.payload;
      // A deleted element stays deleted (I1): a late create or update cannot resurrect it.
      if (state.tombstones.has(element.id)) return next;
      const current = state.elements.get(element.id);
      // Versions only grow: an update made against an older version is stale news (I1).
      if (current && current.version >= element.version) return next;
      const elements = new Map(state.elements);
      elements.set(element.id, element);
      return { ...next, elements };
    }
    case 'element.deleted': {
      const { elementId, version } = event.payload;
      const elements = new Map(state.elements);
      elements.delete(elementId);
      return { ...next, elements, tombstones: withTombstone(state.tombstones, elementId, version) };
    }
    case 'lock.granted': {
      const { elementId, generation, sessionId, userId } = event.payload;
      const current = state.elements.get(elementId);
      // Generations only grow (I4): a grant older than the lock we know is superseded.
      if (!current || (current.lock && current.lock.generation >= generation)) return next;
      const elements = new Map(state.elements);
      elements.set(elementId, { ...current, lock: { sessionId, userId, generation } });
      return { ...next, elements };
    }
    case 'lock.released': {
      const { elementId, generation } = event.payload;
      const current = state.elements.get(elementId);
      // Only the release of the lock we know ends it; a newer grant stands (I4).
      if (!current?.lock || current.lock.generation !== generation) return next;
      const elements = new Map(state.elements);
      elements.set(elementId, { ...current, lock: null });
      return { ...next, elements };
    }
    case 'element.restored': {
      const { element } = event.payload;
      // The teacher's restore is the one way back from a tombstone, and only to a newer version
      // than the deletion's: a replayed or late restore of an older version changes nothing (I1).
      const deletedAt = state.tombstones.get(element.id);
      const current = state.elements.get(element.id);
      if ((deletedAt !== undefined && deletedAt >= element.version) || (current && current.version >= element.version)) return next;
      const elements = new Map(state.elements);
      elements.set(element.id, element);
      const tombstones = new Map(state.tombstones);
      tombstones.delete(element.id);
      return { ...next, elements, tombstones };
    }
  }
}

function withTombstone(tombstones: ReadonlyMap<string, number>, id: string, version: number): ReadonlyMap<string, number> {
  const next = new Map(tombstones);
  // Not an LRU library: the state is an immutable value (a new Map per event), and tombstones go
  // oldest-deleted first, a rule of the sync engine, not a cache's recency.
  next.delete(id); // re-inserted last, so eviction stays oldest-first
  next.set(id, version);
  if (next.size > MAX_TOMBSTONES) {
    const oldest = next.keys().next();
    if (!oldest.done) next.delete(oldest.value);
  }
  return next;
}

/** A socket opened or closed: ephemeral, so it never moves the revision (I7). */
export function applyConnectivity(state: RoomState, sessionId: string, connected: boolean): RoomState {
  const current = state.presence.get(sessionId);
  if (!current || current.connected === connected) return state;
  const presence = new Map(state.presence);
  presence.set(sessionId, { ...current, connected });
  return { ...state, presence };
}
