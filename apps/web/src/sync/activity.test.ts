import { expect, test } from 'vitest';
import { ActivityTracker } from './activity.ts';

const A = 'user-a';
const B = 'user-b';

// Each row: events on a 60 s idle clock -> who is idle at `now`.
const table: Array<[name: string, run: (t: ActivityTracker) => void, now: number, idle: string[]]> = [
  ['a user who just arrived is not idle', (t) => t.notePresent([A], 0), 59_999, []],
  ['a user who never moves is idle a minute after arriving', (t) => t.notePresent([A], 0), 60_000, [A]],
  ['a cursor packet resets the clock', (t) => { t.notePresent([A], 0); t.noteActivity(A, 30_000); }, 60_000, []],
  ['an older stamp never moves the clock back', (t) => { t.notePresent([A], 0); t.noteActivity(A, 50_000); t.noteActivity(A, 10_000); }, 100_000, []],
  ['someone who left is forgotten', (t) => { t.notePresent([A, B], 0); t.notePresent([B], 1); }, 60_000, [B]],
];
test.each(table)('%s', (_name, run, now, idle) => {
  const t = new ActivityTracker(60_000);
  run(t);
  expect([...t.idleUsers(now)].sort()).toEqual(idle);
});
