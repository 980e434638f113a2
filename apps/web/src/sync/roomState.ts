import type { Departure, Member, Presence, RoomEvent, RoomInfo, RoomSnapshot } from '@wb/protocol';

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
}

export function stateFromSnapshot(snapshot: RoomSnapshot): RoomState {
  return {
    room: snapshot.room,
    revision: snapshot.revision,
    members: new Map(snapshot.members.map((m) => [m.userId, m])),
    presence: new Map(snapshot.presence.map((p) => [p.sessionId, p])),
    departures: new Map(snapshot.departures.map((d) => [d.userId, d.reason])),
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
    case 'presence.opened':
      return [];
  }
}

/**
 * Applies one event that is exactly the next revision. Ordering and deduplication are the
 * engine's job; this function only knows what each kind of event means.
 */
export function applyRoomEvent(state: RoomState, event: RoomEvent): RoomState {
  const next = { ...state, revision: event.revision };
  switch (event.kind) {
    case 'member.joined': {
      const members = new Map(state.members);
      members.set(event.payload.userId, event.payload);
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
  }
}

/** A socket opened or closed: ephemeral, so it never moves the revision (I7). */
export function applyConnectivity(state: RoomState, sessionId: string, connected: boolean): RoomState {
  const current = state.presence.get(sessionId);
  if (!current || current.connected === connected) return state;
  const presence = new Map(state.presence);
  presence.set(sessionId, { ...current, connected });
  return { ...state, presence };
}
