import type { AttendanceReport } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { ATTENDANCE_CSV_COLUMNS, attendanceCsv, csvField } from '@wb/protocol';

describe('CSV fields', () => {
  test.each([
    ['plain text stays as it is', 'Ana', 'Ana'],
    ['a comma is quoted', 'Lee, Bo', '"Lee, Bo"'],
    ['a double quote is doubled inside quotes', 'Bo "the kid"', '"Bo ""the kid"""'],
    ['a newline is quoted', 'a\nb', '"a\nb"'],
    ['a name starting with = is neutralised against formula injection', '=1+1', "'=1+1"],
    ['a name starting with + is neutralised', '+33 6', "'+33 6"],
    ['a name starting with - is neutralised', '-2+3', "'-2+3"],
    ['a name starting with @ is neutralised', '@SUM(A1)', "'@SUM(A1)"],
    ['neutralised and quoted together', '=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ['a formula character later in the text is harmless', 'Ana=Bo', 'Ana=Bo'],
  ])('%s', (_rule, input, expected) => {
    expect(csvField(input)).toBe(expected);
  });

  test('numbers and empty values are written plainly', () => {
    expect(csvField(0)).toBe('0');
    expect(csvField(null)).toBe('');
  });
});

describe('CSV export', () => {
  const report: AttendanceReport = {
    room: { id: '00000000-0000-4000-8000-000000000001', code: 'ABCDEF', title: 'Lesson', status: 'open', requireApproval: false, settings: { editPolicy: 'own', cursorVisibility: 'teacher', laserAllowed: false, paper: 'dots' } },
    generatedAt: '2031-03-01T10:00:00.000Z',
    students: [
      {
        userId: '00000000-0000-4000-8000-00000000000a',
        displayName: '=cmd',
        membership: 'active',
        firstJoin: '2031-03-01T09:00:00.000Z',
        lastSeen: '2031-03-01T10:00:00.000Z',
        connectedNow: true,
        connectedMs: 50 * 60_000,
        sessions: [
          {
            sessionId: '10000000-0000-4000-8000-000000000001',
            intervals: [
              { start: '2031-03-01T09:00:00.000Z', end: '2031-03-01T09:10:00.000Z', endedBy: 'lease_expired', durationMs: 600_000 },
              { start: '2031-03-01T09:20:00.000Z', end: null, endedBy: null, durationMs: 2_400_000 },
            ],
          },
        ],
        gaps: [{ from: '2031-03-01T09:10:00.000Z', to: '2031-03-01T09:20:00.000Z', durationMs: 600_000 }],
      },
      {
        userId: '00000000-0000-4000-8000-00000000000b',
        displayName: 'Bo',
        membership: 'revoked',
        firstJoin: null,
        lastSeen: null,
        connectedNow: false,
        connectedMs: 0,
        sessions: [],
        gaps: [],
      },
    ],
  };

  test('one row per interval, a row for a student who never connected, CRLF line ends', () => {
    const csv = attendanceCsv(report);
    expect(csv.endsWith('\r\n')).toBe(true);
    const lines = csv.trimEnd().split('\r\n');
    expect(lines).toEqual([
      ATTENDANCE_CSV_COLUMNS.join(','),
      "'=cmd,00000000-0000-4000-8000-00000000000a,active,10000000-0000-4000-8000-000000000001,2031-03-01T09:00:00.000Z,2031-03-01T09:10:00.000Z,lease_expired,connection lost,600",
      "'=cmd,00000000-0000-4000-8000-00000000000a,active,10000000-0000-4000-8000-000000000001,2031-03-01T09:20:00.000Z,,,still connected,2400",
      'Bo,00000000-0000-4000-8000-00000000000b,revoked,,,,,never connected,0',
    ]);
  });
});
