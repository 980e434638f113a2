/**
 * The attendance report, folded from the append-only attendance facts alone (I6). Presence leases
 * and sessions may be wiped (a database crash empties the UNLOGGED lease table; an operator may
 * prune sessions) and the report does not change: it never reads them. Member names and roles
 * come from the durable membership directory, which the caller passes in.
 *
 * `buildAttendanceReport` is pure (no clock, no database): `generatedAt` is given, so the same
 * facts always give the same report, and the rules are tested as tables.
 */
import type { AttendanceInterval, AttendanceGap, IntervalEnd, StudentAttendance, Member } from '@wb/protocol';
import type { AttendanceKind } from './schema.ts';

/** The part of an attendance row the report reads. */
export interface AttendanceFactInput {
  userId: string;
  sessionId: string | null;
  kind: AttendanceKind;
  at: Date;
}

const opens: ReadonlySet<AttendanceKind> = new Set(['joined', 'reconnected']);
const endings: Readonly<Record<Exclude<AttendanceKind, 'joined' | 'reconnected'>, IntervalEnd>> = {
  signed_out: 'signed_out',
  lease_expired: 'lease_expired',
  membership_revoked: 'membership_revoked',
  session_closed: 'session_closed',
  lesson_ended: 'lesson_ended',
};

interface OpenSpan {
  start: Date;
  end: Date | null;
  endedBy: IntervalEnd | null;
}

/**
 * Folds facts (in the order they were appended) into one entry per student of `members`, sorted by
 * name. Rules, each a row of the table tests:
 * - `joined` / `reconnected` opens an interval for its session; a second open while one is already
 *   open keeps the first (the lease table was lost in a crash and the client reopened: no evidence
 *   the student left);
 * - `signed_out`, `lease_expired`, `membership_revoked`, `session_closed` close the session's open
 *   interval at that fact's time, naming how; without an open interval (a sign-out after the
 *   connection was already lost) they add nothing;
 * - a `membership_revoked` without a session closes every open interval of that member;
 * - an interval still open is measured up to `generatedAt`;
 * - connected time is the union of the member's intervals (two tabs at once count once), and gaps
 *   are the holes in that union between first join and last seen.
 * Facts of teachers and of users missing from the directory are left out: the report is about
 * students.
 */
export function buildAttendanceReport(
  facts: readonly AttendanceFactInput[],
  members: readonly Member[],
  generatedAt: Date,
): StudentAttendance[] {
  // Alphabetical, as a class list reads; the user id breaks ties between namesakes.
  const students = members
    .filter((m) => m.role === 'student')
    .sort((a, b) => a.displayName.localeCompare(b.displayName, 'en') || a.userId.localeCompare(b.userId));
  const spansBySession = new Map<string, { userId: string; spans: OpenSpan[] }>();
  const openOf = (sessionId: string): OpenSpan | undefined => {
    const spans = spansBySession.get(sessionId)?.spans;
    const last = spans?.[spans.length - 1];
    return last && last.end === null ? last : undefined;
  };

  for (const fact of facts) {
    if (opens.has(fact.kind)) {
      if (fact.sessionId === null || openOf(fact.sessionId)) continue;
      const entry = spansBySession.get(fact.sessionId) ?? { userId: fact.userId, spans: [] };
      entry.spans.push({ start: fact.at, end: null, endedBy: null });
      spansBySession.set(fact.sessionId, entry);
      continue;
    }
    const endedBy = endings[fact.kind as keyof typeof endings];
    const closing =
      fact.sessionId !== null
        ? [openOf(fact.sessionId)]
        : [...spansBySession.entries()]
            .filter(([, entry]) => entry.userId === fact.userId)
            .map(([sessionId]) => openOf(sessionId));
    for (const span of closing) {
      if (!span) continue;
      // A clock that went backwards between two facts must not make a negative interval.
      span.end = fact.at < span.start ? span.start : fact.at;
      span.endedBy = endedBy;
    }
  }

  return students.map((member) => {
    const sessions = [...spansBySession.entries()]
      .filter(([, entry]) => entry.userId === member.userId)
      .map(([sessionId, entry]) => ({ sessionId, intervals: entry.spans.map((s) => toInterval(s, generatedAt)) }));
    const spans = sessions
      .flatMap((s) => s.intervals)
      .map((i) => ({ from: Date.parse(i.start), to: Date.parse(i.start) + i.durationMs }))
      .sort((a, b) => a.from - b.from);
    const merged: { from: number; to: number }[] = [];
    for (const span of spans) {
      const last = merged[merged.length - 1];
      if (last && span.from <= last.to) last.to = Math.max(last.to, span.to);
      else merged.push({ ...span });
    }
    const gaps: AttendanceGap[] = [];
    for (let i = 1; i < merged.length; i++) {
      const from = merged[i - 1]!.to;
      const to = merged[i]!.from;
      gaps.push({ from: iso(from), to: iso(to), durationMs: to - from });
    }
    const first = merged[0];
    const last = merged[merged.length - 1];
    return {
      userId: member.userId,
      displayName: member.displayName,
      membership: member.status,
      firstJoin: first ? iso(first.from) : null,
      lastSeen: last ? iso(last.to) : null,
      connectedNow: sessions.some((s) => s.intervals.some((i) => i.end === null)),
      connectedMs: merged.reduce((sum, span) => sum + (span.to - span.from), 0),
      sessions,
      gaps,
    };
  });
}

const iso = (ms: number) => new Date(ms).toISOString();

function toInterval(span: OpenSpan, generatedAt: Date): AttendanceInterval {
  const until = span.end ?? generatedAt;
  return {
    start: span.start.toISOString(),
    end: span.end ? span.end.toISOString() : null,
    endedBy: span.endedBy,
    durationMs: Math.max(0, until.getTime() - span.start.getTime()),
  };
}
