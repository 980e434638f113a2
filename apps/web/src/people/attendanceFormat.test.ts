import { describe, expect, test } from 'vitest';
import { endingText, formatClock, formatDuration } from './attendanceFormat.ts';

describe('attendance formatting', () => {
  test.each([
    [0, '0 s'],
    [999, '0 s'],
    [45_000, '45 s'],
    [60_000, '1 min'],
    [12 * 60_000 + 59_000, '12 min'],
    [3_600_000, '1 h 00 min'],
    [3_600_000 + 5 * 60_000, '1 h 05 min'],
    [-5, '0 s'],
  ])('formatDuration(%i) is %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  test('a clock time is shown in the viewer’s zone', () => {
    expect(formatClock('2031-03-01T09:05:00.000Z', 'en-GB', 'UTC')).toBe('09:05');
  });

  test.each([
    ['signed_out', 'signed out'],
    ['lease_expired', 'connection lost'],
    ['membership_revoked', 'removed'],
    ['session_closed', 'closed by server'],
    [null, 'still connected'],
  ] as const)('an interval ended by %s reads "%s"', (endedBy, text) => {
    expect(endingText({ endedBy })).toBe(text);
  });
});
