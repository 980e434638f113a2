import type { Departure } from '@wb/protocol';
import { expect, test } from 'vitest';
import { stateFromSnapshot } from './roomState.ts';
import { deriveRoster, type RosterState } from './roster.ts';
import { ALICE, ALICE_S, ALICE_S2, TEACHER, TEACHER_S, member, presence, snapshot } from './testFixtures.ts';

type Row = [
  name: string,
  sessions: Array<[sessionId: string, connected: boolean]>,
  departure: Departure['reason'] | null,
  revoked: boolean,
  expected: RosterState,
];

// Alice's roster state from her leases, last departure and membership.
const table: Row[] = [
  ['one connected session is live', [[ALICE_S, true]], null, false, 'live'],
  ['two tabs, one connected, is live (one entry)', [[ALICE_S, false], [ALICE_S2, true]], null, false, 'live'],
  ['a lease without a socket is reconnecting (I7)', [[ALICE_S, false]], null, false, 'reconnecting'],
  ['an expired lease is gone', [], 'lease_expired', false, 'gone'],
  ['signing out is signed_out', [], 'signed_out', false, 'signed_out'],
  ['a revocation is removed', [], 'revoked', true, 'removed'],
  ['revoked membership wins over a lingering lease', [[ALICE_S, true]], null, true, 'removed'],
  ['a later presence wins over an old departure', [[ALICE_S, true]], 'signed_out', false, 'live'],
  ['never connected is gone', [], null, false, 'gone'],
  ['a restored member (revoked departure, active membership) is not removed', [], 'revoked', false, 'gone'],
];

test.each(table)('roster: %s', (_name, sessions, departure, revoked, expected) => {
  const state = stateFromSnapshot(
    snapshot({
      members: [member(TEACHER, 'Teacher', 'teacher'), { ...member(ALICE, 'Alice'), status: revoked ? 'revoked' : 'active' }],
      presence: [presence(TEACHER_S, TEACHER), ...sessions.map(([id, connected]) => presence(id, ALICE, 1, connected))],
      departures: departure ? [{ userId: ALICE, reason: departure }] : [],
    }),
  );
  const roster = deriveRoster(state);
  expect(roster.filter((e) => e.userId === ALICE)).toHaveLength(1);
  expect(roster.find((e) => e.userId === ALICE)?.state).toBe(expected);
  expect(roster[0]?.role).toBe('teacher');
});

test("roster: a raised hand is in the member's row, lowered it is gone", () => {
  const raisedAt = '2030-01-06T08:00:05.000Z';
  const state = stateFromSnapshot(
    snapshot({
      members: [member(TEACHER, 'Teacher', 'teacher'), { ...member(ALICE, 'Alice'), handRaisedAt: raisedAt }],
      presence: [presence(TEACHER_S, TEACHER), presence(ALICE_S, ALICE)],
      departures: [],
    }),
  );
  expect(deriveRoster(state).find((e) => e.userId === ALICE)?.handRaisedAt).toBe(raisedAt);
  expect(deriveRoster(state).find((e) => e.userId === TEACHER)?.handRaisedAt).toBeNull();
});
