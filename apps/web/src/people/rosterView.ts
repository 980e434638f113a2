import { i18n } from '../i18n/i18n.ts';
import type { RosterEntry, RosterState } from '../sync/roster.ts';

/**
 * What the roster panel shows of the roster: pure, so the rules are tested as tables.
 * - RV1 the teacher is always first, whatever the search, filter or order;
 * - RV2 a search matches names case- and accent-insensitively, anywhere in the name;
 * - RV3 a state filter keeps only students in that state;
 * - RV4 "by state" orders present, reconnecting, gone, signed out, removed, then by name;
 *   "by name" orders by name alone;
 * - RV6 a student not here says why, from how they last left: "Connection lost" only when their
 *   presence lapsed; "Lesson ended" after an end (also once it is reopened),
 *   "Not here yet" for someone who never connected;
 * - RV5 the heading's count says who it counts: students here (present or reconnecting) and,
 *   apart, the teachers here ("30 students + teacher here", never a bare "31 here").
 */
export type RosterSort = 'state' | 'name';

export const ROSTER_STATES: readonly RosterState[] = ['live', 'reconnecting', 'gone', 'signed_out', 'removed'];

const stateOrder: Record<RosterState, number> = { live: 0, reconnecting: 1, gone: 2, signed_out: 3, removed: 4 };

/** Students per state (the teacher is not counted: the counts are about the class). */
export function countByState(roster: readonly RosterEntry[]): Record<RosterState, number> {
  const counts: Record<RosterState, number> = { live: 0, reconnecting: 0, gone: 0, signed_out: 0, removed: 0 };
  for (const e of roster) if (e.role === 'student') counts[e.state] += 1;
  return counts;
}

/** The words for a roster row's state (RV6). */
export function stateWords(entry: Pick<RosterEntry, 'state' | 'departure'>): string {
  switch (entry.state) {
    case 'live':
      return i18n._('roster.state.live');
    case 'reconnecting':
      return i18n._('roster.state.reconnecting');
    case 'signed_out':
      return i18n._('roster.state.signed_out');
    case 'removed':
      return i18n._('roster.state.removed');
    case 'gone':
      if (entry.departure === null) return i18n._('roster.notYet');
      if (entry.departure === 'lesson_ended') return i18n._('roster.state.lessonEnded');
      if (entry.departure === 'server') return i18n._('roster.state.disconnected');
      return i18n._('roster.state.gone');
  }
}

/** Who is here, in words that say who is counted (RV5). */
export function hereText(roster: readonly RosterEntry[]): string {
  const here = (e: RosterEntry) => e.state === 'live' || e.state === 'reconnecting';
  const students = roster.filter((e) => e.role === 'student' && here(e)).length;
  const teachers = roster.filter((e) => e.role === 'teacher' && here(e)).length;
  if (teachers === 0) return i18n._('roster.hereStudents', { students });
  if (teachers === 1) return i18n._('roster.hereStudentsTeacher', { students });
  return i18n._('roster.hereStudentsTeachers', { students, teachers });
}

const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLocaleLowerCase();

export function viewRoster(
  roster: readonly RosterEntry[],
  options: { query: string; sort: RosterSort; state: RosterState | null },
): RosterEntry[] {
  const query = fold(options.query.trim());
  const teachers = roster.filter((e) => e.role === 'teacher');
  const students = roster.filter(
    (e) => e.role === 'student' && (options.state === null || e.state === options.state) && (query === '' || fold(e.displayName).includes(query)),
  );
  const byName = (a: RosterEntry, b: RosterEntry) => a.displayName.localeCompare(b.displayName) || a.userId.localeCompare(b.userId);
  students.sort(options.sort === 'name' ? byName : (a, b) => stateOrder[a.state] - stateOrder[b.state] || byName(a, b));
  return [...teachers, ...students];
}
