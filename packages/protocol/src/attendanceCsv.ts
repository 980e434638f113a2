import { intervalEndLabel, type AttendanceReport, type IntervalEnd } from './attendanceReport.ts';

/** The polls CSV's columns, in order (documented in docs/protocol.md). */
export const POLLS_CSV_COLUMNS = ['poll_id', 'question', 'kind', 'opened_at', 'status', 'student', 'user_id', 'answer'] as const;

/** The CSV export's columns, in order (documented in docs/protocol.md). */
export const ATTENDANCE_CSV_COLUMNS = [
  'student',
  'user_id',
  'membership',
  'session_id',
  'interval_start',
  'interval_end',
  'ended_by',
  'ended',
  'duration_seconds',
] as const;
export type AttendanceCsvColumn = (typeof ATTENDANCE_CSV_COLUMNS)[number];

/**
 * The words of a CSV export: the header row and the human `ended` column. The server's
 * `report.csv` (for scripts, docs/protocol.md) uses the column ids and English; the teacher's
 * "Download CSV" passes the page's language. Codes (`membership`, `ended_by`), ids, ISO instants
 * and the seconds stay the same in every language, so a spreadsheet reads any of them alike.
 */
export interface AttendanceCsvWords {
  readonly columns: Readonly<Record<AttendanceCsvColumn, string>>;
  readonly ended: (end: IntervalEnd | 'open') => string;
  readonly neverConnected: string;
}

export const ATTENDANCE_CSV_IDS: AttendanceCsvWords = {
  columns: Object.fromEntries(ATTENDANCE_CSV_COLUMNS.map((c) => [c, c])) as Record<AttendanceCsvColumn, string>,
  ended: (end) => intervalEndLabel[end],
  neverConnected: 'never connected',
};

/**
 * A spreadsheet treats a cell starting with one of these as a formula (`=HYPERLINK(...)` in a
 * student's name would run when the teacher opens the file). Tab and CR are on OWASP's list too.
 */
const formulaStart = /^[=+\-@\t\r]/;

/** One CSV field: neutralised against formula injection, then quoted per RFC 4180 when needed. */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && formulaStart.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The report as CSV, one row per connected interval. A student who never connected still gets
 * one row, with empty interval fields and `ended` = "never connected", so a school's script sees
 * every member. Lines end with CRLF (RFC 4180).
 */
export function attendanceCsv(report: AttendanceReport, words: AttendanceCsvWords = ATTENDANCE_CSV_IDS): string {
  const lines = [ATTENDANCE_CSV_COLUMNS.map((c) => csvField(words.columns[c])).join(',')];
  for (const student of report.students) {
    const who = [student.displayName, student.userId, student.membership];
    const intervals = student.sessions.flatMap((s) => s.intervals.map((interval) => ({ sessionId: s.sessionId, interval })));
    if (intervals.length === 0) {
      lines.push([...who, null, null, null, null, words.neverConnected, 0].map(csvField).join(','));
      continue;
    }
    for (const { sessionId, interval } of intervals) {
      lines.push(
        [
          ...who,
          sessionId,
          interval.start,
          interval.end,
          interval.endedBy,
          words.ended(interval.endedBy ?? 'open'),
          Math.round(interval.durationMs / 1000),
        ]
          .map(csvField)
          .join(','),
      );
    }
  }
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * The lesson's polls as CSV: one row per poll and student (a student who did not answer has an
 * empty `answer`), the answer as its choice's label or the typed text. Lines end with CRLF.
 */
export function pollsCsv(report: AttendanceReport): string {
  const lines: string[] = [POLLS_CSV_COLUMNS.join(',')];
  for (const { poll, answers } of report.polls ?? []) {
    const byUser = new Map(answers.map((a) => [a.userId, a]));
    for (const student of report.students) {
      const answer = byUser.get(student.userId);
      const said = answer ? (answer.text ?? poll.choices[answer.choice ?? -1] ?? null) : null;
      lines.push([poll.id, poll.question, poll.kind, poll.openedAt, poll.status, student.displayName, student.userId, said].map(csvField).join(','));
    }
  }
  return `${lines.join('\r\n')}\r\n`;
}
