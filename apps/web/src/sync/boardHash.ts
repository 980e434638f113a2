import type { RoomState } from './roomState.ts';
import { deriveRoster } from './roster.ts';

/**
 * A stable serialization of the durable room state, for comparing screens (e2e) and tests.
 *
 * Left out on purpose, because two correct clients may legitimately differ on them:
 * - the revision (a screen that is one event behind is compared again, not declared different);
 * - lease revisions (renewals bump them without a room event, so a snapshot carries newer ones
 *   than a client that followed events);
 * - socket connectivity (ephemeral signals, I7): live and reconnecting both count as present;
 * - tombstones (a snapshot does not carry them: a client that saw a deletion and one that joined
 *   after it show the same board).
 * Every collection is sorted by its id and every object's keys are sorted, so neither arrival
 * order nor the order a server wrote an object's fields in can change the text.
 */
export function serializeBoard(state: RoomState): string {
  const members = [...state.members.values()]
    .map((m) => [m.userId, m.displayName, m.role, m.status] as const)
    .sort((a, b) => compare(a[0], b[0]));
  const sessions = [...state.presence.values()]
    .map((p) => [p.sessionId, p.userId] as const)
    .sort((a, b) => compare(a[0], b[0]));
  const roster = deriveRoster(state)
    .map((e) => [e.userId, e.state === 'reconnecting' ? 'live' : e.state] as const)
    .sort((a, b) => compare(a[0], b[0]));
  const elements = [...state.elements.values()]
    .sort((a, b) => compare(a.id, b.id))
    .map((e) => sortKeys({ ...e }));
  const { id, code, title, status } = state.room;
  return JSON.stringify({ room: [id, code, title, status], members, sessions, roster, elements, settings: state.room.settings });
}

/** A copy of a JSON value with every object's keys in sorted order (arrays keep their order). */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).sort(([a], [b]) => compare(a, b));
  return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
}

/** cyrb53: a fast 53-bit string hash; collisions only matter for a debug comparison. */
export function hashString(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
}

export function boardHash(state: RoomState): string {
  return hashString(serializeBoard(state));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
