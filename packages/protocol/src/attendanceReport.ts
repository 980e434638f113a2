/**
 * The teacher's attendance report (`GET /api/rooms/:code/attendance/report`), computed by the
 * server only from the append-only attendance facts (DESIGN.md I6). One schema, used by the
 * server to shape it, the web app to read it and the tests to check it.
 */
import { z } from 'zod';
import { MembershipStatus, RoomInfo } from './schemas.ts';
import { Poll, PollAnswer } from './checks.ts';

const UserId = z.uuid();
const SessionId = z.uuid();

/** An ISO 8601 instant decided by the database clock (I2). */
const Instant = z.iso.datetime({ offset: true });
/** A non-negative duration in milliseconds. */
const DurationMs = z.number().int().min(0);

/**
 * How a connected interval ended. Each is a different kind of evidence:
 * `lease_expired` means the browser stopped renewing its presence (a closed lid, lost network,
 * a crashed tab), not that the student chose to leave.
 */
export const IntervalEnd = z.enum(['signed_out', 'lease_expired', 'membership_revoked', 'session_closed', 'lesson_ended']);
export type IntervalEnd = z.infer<typeof IntervalEnd>;

/** The words the report uses for each ending, shared by the page and the CSV export. */
export const intervalEndLabel: Record<IntervalEnd | 'open', string> = {
  signed_out: 'signed out',
  lease_expired: 'connection lost',
  membership_revoked: 'removed',
  session_closed: 'closed by server',
  lesson_ended: 'lesson ended',
  open: 'still connected',
};

export const AttendanceInterval = z.object({
  /** When the session's presence lease opened (a join or a reconnect). */
  start: Instant,
  /** When the ending fact was recorded; null while the interval is still open. */
  end: Instant.nullable(),
  /** Null while open. */
  endedBy: IntervalEnd.nullable(),
  /** `end - start`, or `generatedAt - start` while open. */
  durationMs: DurationMs,
});
export type AttendanceInterval = z.infer<typeof AttendanceInterval>;

export const AttendanceSession = z.object({
  sessionId: SessionId,
  intervals: z.array(AttendanceInterval),
});
export type AttendanceSession = z.infer<typeof AttendanceSession>;

/** A stretch between a student's first join and last seen when none of their sessions was connected. */
export const AttendanceGap = z.object({ from: Instant, to: Instant, durationMs: DurationMs });
export type AttendanceGap = z.infer<typeof AttendanceGap>;

export const StudentAttendance = z.object({
  userId: UserId,
  /** Rendered as text, never as markup; neutralised against formula injection in the CSV. */
  displayName: z.string(),
  membership: MembershipStatus,
  /** Null for a member who never connected. */
  firstJoin: Instant.nullable(),
  /** The end of the latest interval, or `generatedAt` while one is open. */
  lastSeen: Instant.nullable(),
  connectedNow: z.boolean(),
  /** Time covered by at least one of the student's intervals (two tabs at once count once). */
  connectedMs: DurationMs,
  sessions: z.array(AttendanceSession),
  gaps: z.array(AttendanceGap),
});
export type StudentAttendance = z.infer<typeof StudentAttendance>;

export const AttendanceReport = z.object({
  room: RoomInfo,
  /** The database time the report was computed at; open intervals are measured up to it. */
  generatedAt: Instant,
  students: z.array(StudentAttendance),
  /**
   * The lesson's quick polls, oldest first, each with its results (shown or not) and every answer
   * with who gave it: kept with the lesson for its teacher. Absent from reports made before polls.
   */
  polls: z.array(z.object({ poll: Poll, answers: z.array(PollAnswer) })).optional(),
});
export type AttendanceReport = z.infer<typeof AttendanceReport>;
