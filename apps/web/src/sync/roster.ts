import type { Departure, Role } from '@wb/protocol';
import type { RoomState } from './roomState.ts';

/**
 * What the roster shows for a member. Derived from durable state, never stored:
 * - live: at least one of the user's sessions holds a lease and has a socket open;
 * - reconnecting: a lease is held but no socket is open (a close is a signal, not a decision: I7);
 * - gone: no lease, and the last one expired (or the user never connected);
 * - signed_out: left on purpose;
 * - removed: revoked by the teacher.
 */
export type RosterState = 'live' | 'reconnecting' | 'gone' | 'signed_out' | 'removed';

export interface RosterEntry {
  readonly userId: string;
  readonly displayName: string;
  readonly role: Role;
  /** The member's palette index, assigned by the server (`memberColor`). */
  readonly colorIndex: number;
  readonly state: RosterState;
  /** How many of the user's sessions (tabs, devices) hold a lease. */
  readonly sessions: number;
  /** The member's last way of leaving, if any; null for someone who never connected. */
  readonly departure: Departure['reason'] | null;
  /** When the member raised their hand (the server's time), or null: shown in their row. */
  readonly handRaisedAt: string | null;
}

const stateOrder: Record<RosterState, number> = { live: 0, reconnecting: 1, gone: 2, signed_out: 3, removed: 4 };

/** A student in the lobby, as the teacher's waiting list shows them. */
export interface LobbyEntry {
  readonly userId: string;
  readonly displayName: string;
  /** `pending`: waiting now; `denied`: declined earlier (the teacher may still let them in). */
  readonly status: 'pending' | 'denied';
}

/** The room's lobby: waiting students first, then declined ones, each by name. */
export function deriveLobby(state: RoomState): LobbyEntry[] {
  const entries: LobbyEntry[] = [];
  for (const m of state.members.values()) {
    if (m.status === 'pending' || m.status === 'denied') entries.push({ userId: m.userId, displayName: m.displayName, status: m.status });
  }
  return entries.sort(
    (a, b) =>
      (a.status === b.status ? 0 : a.status === 'pending' ? -1 : 1) ||
      a.displayName.localeCompare(b.displayName) ||
      a.userId.localeCompare(b.userId),
  );
}

/**
 * One entry per member, however many tabs they have open: teacher first, then present, then by
 * name. Members in the lobby (waiting or declined) are not in the lesson and not listed here.
 */
export function deriveRoster(state: RoomState): RosterEntry[] {
  const sessionsByUser = new Map<string, { total: number; connected: number }>();
  for (const p of state.presence.values()) {
    const counts = sessionsByUser.get(p.userId) ?? { total: 0, connected: 0 };
    counts.total += 1;
    if (p.connected) counts.connected += 1;
    sessionsByUser.set(p.userId, counts);
  }
  const entries: RosterEntry[] = [];
  for (const member of state.members.values()) {
    if (member.status === 'pending' || member.status === 'denied') continue;
    const counts = sessionsByUser.get(member.userId);
    // A snapshot names a member's last attendance fact; a revocation since undone (restored) is
    // no longer how they left, so an active member is never shown as removed.
    const recorded = state.departures.get(member.userId) ?? null;
    const departure = recorded === 'revoked' && member.status === 'active' ? null : recorded;
    entries.push({
      userId: member.userId,
      displayName: member.displayName,
      role: member.role,
      colorIndex: member.colorIndex,
      state: rosterStateOf(member.status === 'revoked', counts, departure ?? undefined),
      sessions: counts?.total ?? 0,
      departure,
      handRaisedAt: member.handRaisedAt ?? null,
    });
  }
  return entries.sort(
    (a, b) =>
      (a.role === b.role ? 0 : a.role === 'teacher' ? -1 : 1) ||
      stateOrder[a.state] - stateOrder[b.state] ||
      a.displayName.localeCompare(b.displayName) ||
      a.userId.localeCompare(b.userId),
  );
}

function rosterStateOf(
  revoked: boolean,
  counts: { total: number; connected: number } | undefined,
  departure: string | undefined,
): RosterState {
  if (revoked) return 'removed';
  if (counts && counts.total > 0) return counts.connected > 0 ? 'live' : 'reconnecting';
  switch (departure) {
    case 'signed_out':
      return 'signed_out';
    case 'revoked':
      return 'removed';
    default:
      // lease_expired, a server-side end, or never connected: not here, for no chosen reason.
      return 'gone';
  }
}
