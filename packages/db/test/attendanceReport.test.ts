/**
 * The report's folding rules as a table: facts in, one student's entry out. Pure: no database,
 * no clock; `generatedAt` is given.
 */
import type { Member } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { buildAttendanceReport, type AttendanceFactInput } from '../src/attendanceReport.ts';

const ANA = '00000000-0000-4000-8000-00000000000a';
const BO = '00000000-0000-4000-8000-00000000000b';
const TEACHER = '00000000-0000-4000-8000-00000000000f';
const S1 = '10000000-0000-4000-8000-000000000001';
const S2 = '10000000-0000-4000-8000-000000000002';

const members: Member[] = [
  { userId: TEACHER, displayName: 'Ms Rivera', role: 'teacher', status: 'active', colorIndex: 0, penMuted: false, handRaisedAt: null },
  { userId: BO, displayName: 'Bo', role: 'student', status: 'revoked', colorIndex: 1, penMuted: false, handRaisedAt: null },
  { userId: ANA, displayName: 'Ana', role: 'student', status: 'active', colorIndex: 2, penMuted: false, handRaisedAt: null },
];

/** Minutes after 09:00 on a fixed day, so the table reads in minutes. */
const at = (minute: number) => new Date(Date.UTC(2031, 2, 1, 9, minute));
const iso = (minute: number) => at(minute).toISOString();
const MIN = 60_000;

type Row = [minute: number, kind: AttendanceFactInput['kind'], sessionId: string | null, userId?: string];
const facts = (rows: Row[]): AttendanceFactInput[] =>
  rows.map(([minute, kind, sessionId, userId]) => ({ userId: userId ?? ANA, sessionId, kind, at: at(minute) }));

const GENERATED = 60;
const ana = (rows: Row[]) => {
  const report = buildAttendanceReport(facts(rows), members, at(GENERATED));
  return report.find((s) => s.userId === ANA)!;
};

describe('attendance report rules', () => {
  const table: {
    rule: string;
    rows: Row[];
    intervals: [start: number, end: number | null, endedBy: string | null][];
    connectedMinutes: number;
    gaps?: [number, number][];
    firstJoin?: number | null;
    lastSeen?: number | null;
  }[] = [
    {
      rule: 'a join then a sign-out is one interval ended by signed_out',
      rows: [[0, 'joined', S1], [30, 'signed_out', S1]],
      intervals: [[0, 30, 'signed_out']],
      connectedMinutes: 30,
      firstJoin: 0,
      lastSeen: 30,
    },
    {
      rule: 'a lost connection and a reconnect are two intervals with a gap between them',
      rows: [[0, 'joined', S1], [10, 'lease_expired', S1], [25, 'reconnected', S1], [40, 'signed_out', S1]],
      intervals: [[0, 10, 'lease_expired'], [25, 40, 'signed_out']],
      connectedMinutes: 25,
      gaps: [[10, 25]],
    },
    {
      rule: 'an interval still open is measured up to generatedAt and last seen is generatedAt',
      rows: [[20, 'joined', S1]],
      intervals: [[20, null, null]],
      connectedMinutes: 40,
      lastSeen: GENERATED,
    },
    {
      rule: 'revocation ends the interval as membership_revoked',
      rows: [[0, 'joined', S1], [5, 'membership_revoked', S1]],
      intervals: [[0, 5, 'membership_revoked']],
      connectedMinutes: 5,
    },
    {
      rule: 'a server close ends the interval as session_closed',
      rows: [[0, 'joined', S1], [7, 'session_closed', S1]],
      intervals: [[0, 7, 'session_closed']],
      connectedMinutes: 7,
    },
    {
      rule: 'a sign-out after the connection was already lost adds nothing: the interval ended at the loss',
      rows: [[0, 'joined', S1], [10, 'lease_expired', S1], [12, 'signed_out', S1]],
      intervals: [[0, 10, 'lease_expired']],
      connectedMinutes: 10,
    },
    {
      rule: 'two tabs at once count once in connected time and leave no gap',
      rows: [[0, 'joined', S1], [5, 'joined', S2], [20, 'signed_out', S1], [30, 'lease_expired', S2]],
      intervals: [[0, 20, 'signed_out'], [5, 30, 'lease_expired']],
      connectedMinutes: 30,
      gaps: [],
    },
    {
      rule: 'a second open while one is open keeps the first (a crash lost the lease table, not the student)',
      rows: [[0, 'joined', S1], [15, 'reconnected', S1], [30, 'signed_out', S1]],
      intervals: [[0, 30, 'signed_out']],
      connectedMinutes: 30,
    },
    {
      rule: 'a revocation without a session closes every open interval of that member',
      rows: [[0, 'joined', S1], [3, 'joined', S2], [9, 'membership_revoked', null]],
      intervals: [[0, 9, 'membership_revoked'], [3, 9, 'membership_revoked']],
      connectedMinutes: 9,
    },
    {
      rule: 'a member who never connected has no first join, no last seen and no time',
      rows: [],
      intervals: [],
      connectedMinutes: 0,
      firstJoin: null,
      lastSeen: null,
    },
    {
      rule: 'another student’s facts never touch this one',
      rows: [[0, 'joined', S1], [1, 'joined', S2, BO], [2, 'lease_expired', S2, BO]],
      intervals: [[0, null, null]],
      connectedMinutes: 60,
    },
  ];

  for (const row of table) {
    test(row.rule, () => {
      const entry = ana(row.rows);
      const intervals = entry.sessions.flatMap((s) => s.intervals);
      expect(intervals.map((i) => [i.start, i.end, i.endedBy])).toEqual(
        row.intervals.map(([start, end, endedBy]) => [iso(start), end === null ? null : iso(end), endedBy]),
      );
      expect(entry.connectedMs).toBe(row.connectedMinutes * MIN);
      if (row.gaps) {
        expect(entry.gaps.map((g) => [g.from, g.to, g.durationMs])).toEqual(
          row.gaps.map(([from, to]) => [iso(from), iso(to), (to - from) * MIN]),
        );
      }
      if (row.firstJoin !== undefined) expect(entry.firstJoin).toBe(row.firstJoin === null ? null : iso(row.firstJoin));
      if (row.lastSeen !== undefined) expect(entry.lastSeen).toBe(row.lastSeen === null ? null : iso(row.lastSeen));
      expect(entry.connectedNow).toBe(intervals.some((i) => i.end === null));
    });
  }

  test('only students are reported, sorted by name, with their membership status', () => {
    const report = buildAttendanceReport(facts([[0, 'joined', S1, TEACHER]]), members, at(GENERATED));
    expect(report.map((s) => [s.displayName, s.membership])).toEqual([
      ['Ana', 'active'],
      ['Bo', 'revoked'],
    ]);
  });

  test('intervals are grouped by session, in the order sessions first appeared', () => {
    const entry = ana([[0, 'joined', S2], [1, 'joined', S1], [2, 'signed_out', S2]]);
    expect(entry.sessions.map((s) => s.sessionId)).toEqual([S2, S1]);
  });
});
