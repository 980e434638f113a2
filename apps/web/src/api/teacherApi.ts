import { AttendanceReport, ErrorCode, attendanceCsv, type AttendanceCsvWords } from '@wb/protocol';
import { ApiError, call, errorFrom, type Schema } from './roomsApi.ts';

/** `{ ok: true, decision }` of the membership routes; the decision says whether anything changed. */
export interface MembershipReply {
  ok: true;
  decision: string;
}

const MembershipReply: Schema<MembershipReply> = {
  safeParse: (input) =>
    typeof input === 'object' && input !== null && 'ok' in input && input.ok === true && 'decision' in input && typeof input.decision === 'string'
      ? { success: true, data: { ok: true, decision: input.decision } }
      : { success: false },
};

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const memberPath = (code: string, userId: string, action: 'revoke' | 'restore' | 'admit' | 'deny') =>
  `/api/rooms/${encodeURIComponent(code)}/members/${encodeURIComponent(userId)}/${action}`;

/** Removes a student from the lesson (teacher only). The reason is shown to the student. */
export function revokeMember(token: string, code: string, userId: string, reason: string): Promise<MembershipReply> {
  const body = reason.trim() ? { reason: reason.trim() } : {};
  return call(memberPath(code, userId, 'revoke'), { method: 'POST', body: JSON.stringify(body), headers: bearer(token) }, MembershipReply);
}

/** Lets a removed student back in (teacher only); they join again with their link. */
export function restoreMember(token: string, code: string, userId: string): Promise<MembershipReply> {
  return call(memberPath(code, userId, 'restore'), { method: 'POST', body: '{}', headers: bearer(token) }, MembershipReply);
}

/** Lets a student waiting in the lobby (or declined earlier) into the lesson (teacher only). */
export function admitMember(token: string, code: string, userId: string): Promise<MembershipReply> {
  return call(memberPath(code, userId, 'admit'), { method: 'POST', body: '{}', headers: bearer(token) }, MembershipReply);
}

/** Declines a student waiting in the lobby (teacher only). */
export function denyMember(token: string, code: string, userId: string): Promise<MembershipReply> {
  return call(memberPath(code, userId, 'deny'), { method: 'POST', body: '{}', headers: bearer(token) }, MembershipReply);
}

const AdmitAllReply: Schema<{ ok: true; admitted: string[] }> = {
  safeParse: (input) =>
    typeof input === 'object' && input !== null && 'admitted' in input && Array.isArray(input.admitted)
      ? { success: true, data: { ok: true, admitted: input.admitted.filter((id): id is string => typeof id === 'string') } }
      : { success: false },
};

/** Lets every student waiting in the lobby in at once (teacher only). */
export function admitAll(token: string, code: string): Promise<{ ok: true; admitted: string[] }> {
  return call(`/api/rooms/${encodeURIComponent(code)}/lobby/admit-all`, { method: 'POST', body: '{}', headers: bearer(token) }, AdmitAllReply);
}

/** Turns "students wait for approval" on or off for the room (teacher only). */
export function setRequireApproval(token: string, code: string, requireApproval: boolean): Promise<MembershipReply> {
  return call(
    `/api/rooms/${encodeURIComponent(code)}/settings`,
    { method: 'POST', body: JSON.stringify({ requireApproval }), headers: bearer(token) },
    MembershipReply,
  );
}

/**
 * Who asks for a report: the teacher's session in the room (bearer token, while the room is
 * open), or the signed-in account that owns the room (its cookie; also for archived lessons).
 */
export type ReportSource = { kind: 'room'; token: string; code: string } | { kind: 'account'; code: string };

const reportPath = (source: ReportSource, suffix: 'report' | 'report.csv' | 'polls.csv') =>
  source.kind === 'room'
    ? `/api/rooms/${encodeURIComponent(source.code)}/attendance/${suffix}`
    : `/api/teacher/rooms/${encodeURIComponent(source.code)}/attendance/${suffix}`;
const reportHeaders = (source: ReportSource): Record<string, string> => (source.kind === 'room' ? bearer(source.token) : {});

export function getAttendanceReport(source: ReportSource): Promise<AttendanceReport> {
  return call(reportPath(source, 'report'), { method: 'GET', headers: reportHeaders(source) }, AttendanceReport);
}

/**
 * Fetches a file the server makes (the polls' CSV, the lesson's PDFs) with the bearer token, which
 * a plain link cannot carry, or the account's cookie, and hands it to the browser as a download
 * named by the server's content-disposition.
 */
async function downloadServerFile(path: string, source: ReportSource, fallbackName: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(path, { headers: reportHeaders(source) });
  } catch {
    throw new ApiError(0, ErrorCode.UNAVAILABLE, 'Cannot reach the server. Check your connection and try again.');
  }
  if (!response.ok) throw errorFrom(response.status, await response.json().catch(() => null));
  const disposition = response.headers.get('content-disposition') ?? '';
  // The UTF-8 name (RFC 8187) where the server gave one: a lesson's title in its own letters.
  const encoded = /filename\*=UTF-8''([^;]+)/.exec(disposition)?.[1];
  const filename = (encoded && decodeURIComponent(encoded)) || /filename="([^"]+)"/.exec(disposition)?.[1] || fallbackName;
  saveBlob(await response.blob(), filename);
}

export function downloadServerCsv(source: ReportSource, what: 'polls.csv'): Promise<void> {
  return downloadServerFile(reportPath(source, what), source, `polls-${source.code}.csv`);
}

const exportPath = (source: ReportSource, suffix: string) =>
  source.kind === 'room'
    ? `/api/rooms/${encodeURIComponent(source.code)}/export/${suffix}`
    : `/api/teacher/rooms/${encodeURIComponent(source.code)}/export/${suffix}`;

/** The whole lesson as one PDF (a page per board; docs/protocol.md, "PDF export"). */
export function downloadLessonPdf(source: ReportSource): Promise<void> {
  return downloadServerFile(exportPath(source, 'lesson.pdf'), source, `lesson-${source.code}.pdf`);
}

/** One activity's class pack: one PDF, a page per student's board, named on the page. */
export function downloadClassPack(source: ReportSource, activityId: string): Promise<void> {
  return downloadServerFile(exportPath(source, `activities/${encodeURIComponent(activityId)}/class-pack.pdf`), source, `class-pack-${source.code}.pdf`);
}

/**
 * Saves the report as CSV in the teacher's language (`words`: the header row and the `ended`
 * column; packages/protocol/src/attendanceCsv.ts), from a fresh report, named as the server's
 * `report.csv` is (`attendance-<CODE>-<YYYY-MM-DD>.csv`, the report's date).
 */
export async function downloadAttendanceCsv(source: ReportSource, words: AttendanceCsvWords): Promise<void> {
  const report = await getAttendanceReport(source);
  saveBlob(new Blob([attendanceCsv(report, words)], { type: 'text/csv;charset=utf-8' }), `attendance-${source.code}-${report.generatedAt.slice(0, 10)}.csv`);
}

function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked on a later turn: some browsers start reading the blob only after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
