import { expect, test } from 'vitest';
import type { RosterEntry, RosterState } from '../sync/roster.ts';
import { countByState, hereText, stateWords, viewRoster } from './rosterView.ts';

const entry = (displayName: string, state: RosterState, role: RosterEntry['role'] = 'student'): RosterEntry => ({
  userId: `id-${displayName}`,
  displayName,
  role,
  colorIndex: 0,
  state,
  sessions: state === 'live' ? 1 : 0,
  departure: null,
  handRaisedAt: null,
});

const roster = [
  entry('Zoé', 'live'),
  entry('Ms Rivera', 'live', 'teacher'),
  entry('ana', 'gone'),
  entry('Bo', 'removed'),
  entry('Cy', 'reconnecting'),
  entry('Dee', 'live'),
];
const names = (entries: RosterEntry[]) => entries.map((e) => e.displayName);

test.each([
  ['RV4 by state: present first, then reconnecting, gone, removed; teacher first (RV1)', { query: '', sort: 'state', state: null }, ['Ms Rivera', 'Dee', 'Zoé', 'Cy', 'ana', 'Bo']],
  ['RV4 by name alone', { query: '', sort: 'name', state: null }, ['Ms Rivera', 'ana', 'Bo', 'Cy', 'Dee', 'Zoé']],
  ['RV2 search ignores case and accents; RV1 the teacher stays', { query: 'ZOE', sort: 'state', state: null }, ['Ms Rivera', 'Zoé']],
  ['RV3 a state filter keeps only that state', { query: '', sort: 'name', state: 'live' }, ['Ms Rivera', 'Dee', 'Zoé']],
  ['RV2 + RV3 together, nothing matches but the teacher', { query: 'x', sort: 'name', state: 'removed' }, ['Ms Rivera']],
] as const)('%s', (_name, options, expected) => {
  expect(names(viewRoster(roster, options))).toEqual(expected);
});

test('counts are per state and leave the teacher out', () => {
  expect(countByState(roster)).toEqual({ live: 2, reconnecting: 1, gone: 1, signed_out: 0, removed: 1 });
});

test.each([
  ['RV5 the class and its teacher, counted apart', roster, '3 students + teacher here'],
  ['RV5 one student, no teacher here', [entry('Dee', 'live'), entry('Ms Rivera', 'gone', 'teacher')], '1 student here'],
  ['RV5 nobody but the teacher', [entry('Ms Rivera', 'live', 'teacher'), entry('ana', 'gone')], '0 students + teacher here'],
  ['RV5 two teachers', [entry('Ms Rivera', 'live', 'teacher'), entry('Mr Lee', 'reconnecting', 'teacher'), entry('Dee', 'live')], '1 student + 2 teachers here'],
] as const)('%s', (_name, list, expected) => {
  expect(hereText(list)).toBe(expected);
});

test.each([
  ['RV6 a lapsed presence is a lost connection', 'gone', 'lease_expired', 'Connection lost'],
  ['RV6 left when the lesson ended (and after it is reopened)', 'gone', 'lesson_ended', 'Lesson ended'],
  ['RV6 closed by the server', 'gone', 'server', 'Disconnected'],
  ['RV6 never connected', 'gone', null, 'Not here yet'],
  ['RV6 here', 'live', null, 'Here'],
  ['RV6 signed out', 'signed_out', 'signed_out', 'Signed out'],
] as const)('%s', (_name, state, departure, expected) => {
  expect(stateWords({ state, departure })).toBe(expected);
});
