import type { AttendanceReport as Report, StudentAttendance } from '@wb/protocol';
import { useCallback, useEffect, useRef, useState } from 'react';
import { downloadAttendanceCsv, getAttendanceReport, type ReportSource } from '../api/teacherApi.ts';
import { endingText, formatClock, formatDuration } from './attendanceFormat.ts';
import './teacher.css';
import './AttendanceReport.css';

type Load = { status: 'loading' } | { status: 'loaded'; report: Report } | { status: 'failed'; message: string };

interface AttendanceReportProps {
  /** Who reads the report and the CSV: the room's teacher session or the owning account. */
  source: ReportSource;
  onClose: () => void;
}

/**
 * The lesson's attendance, computed by the server from the append-only attendance facts. Opened
 * as a modal over the board; reloads on demand, since it is a record, not a live view.
 */
export function AttendanceReport({ source, onClose }: AttendanceReportProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const [load, setLoad] = useState<Load>({ status: 'loading' });
  const [downloadError, setDownloadError] = useState<string | null>(null);

  const refresh = useCallback(() => {
    setLoad({ status: 'loading' });
    getAttendanceReport(source).then(
      (report) => setLoad({ status: 'loaded', report }),
      (error: unknown) => setLoad({ status: 'failed', message: error instanceof Error ? error.message : 'Could not load the report.' }),
    );
  }, [source]);

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    refresh();
  }, [refresh]);

  const download = async (what: 'report.csv' | 'polls.csv' = 'report.csv') => {
    setDownloadError(null);
    try {
      await downloadAttendanceCsv(source, what);
    } catch (error) {
      setDownloadError(error instanceof Error ? error.message : 'Could not download the CSV.');
    }
  };

  return (
    <dialog ref={ref} className="dialog attendance-dialog" aria-labelledby="attendance-title" onCancel={onClose} data-testid="attendance-report">
      <div className="attendance-head">
        <h2 id="attendance-title">
          Attendance{load.status === 'loaded' && <span className="muted"> · {load.report.room.title}</span>}
        </h2>
        <div className="actions">
          <button type="button" className="button button-secondary" onClick={refresh}>
            Refresh
          </button>
          <button type="button" className="button button-primary" onClick={() => void download()}>
            Download CSV
          </button>
          {load.status === 'loaded' && (load.report.polls?.length ?? 0) > 0 && (
            <button type="button" className="button button-secondary" onClick={() => void download('polls.csv')}>
              Polls (CSV)
            </button>
          )}
          <button type="button" className="button button-secondary" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
      <p className="attendance-note">
        “Connection lost” means the browser stopped renewing its presence (a closed lid, a dropped network, a
        crashed tab). It is evidence the connection ended, not proof the student left.
      </p>
      {downloadError && (
        <p className="form-error" role="alert">
          {downloadError}
        </p>
      )}
      {load.status === 'loading' && <p className="muted">Loading…</p>}
      {load.status === 'failed' && (
        <p className="form-error" role="alert">
          {load.message}
        </p>
      )}
      {load.status === 'loaded' &&
        (load.report.students.length === 0 ? (
          <p className="muted">No students have joined this lesson yet.</p>
        ) : (
          <>
            <ReportSummary students={load.report.students} />
            {/* Summary first, one line per student; the intervals and gaps open under it. */}
            <ul className="attendance-list" aria-label="Students">
              {load.report.students.map((student) => (
                <StudentRow key={student.userId} student={student} />
              ))}
            </ul>
          </>
        ))}
    </dialog>
  );
}

function ReportSummary({ students }: { students: readonly StudentAttendance[] }) {
  const now = students.filter((s) => s.connectedNow).length;
  const removed = students.filter((s) => s.membership === 'revoked').length;
  const withGaps = students.filter((s) => s.gaps.length > 0).length;
  return (
    <p className="attendance-summary" data-testid="attendance-summary">
      <strong>{students.length}</strong> {students.length === 1 ? 'student' : 'students'} · <strong>{now}</strong> connected now ·{' '}
      <strong>{withGaps}</strong> with gaps · <strong>{removed}</strong> removed
    </p>
  );
}

function StudentRow({ student }: { student: StudentAttendance }) {
  const intervals = student.sessions.flatMap((s) => s.intervals).sort((a, b) => a.start.localeCompare(b.start));
  return (
    <li data-testid="attendance-row">
      <details className="attendance-student">
        <summary>
          <span className="attendance-who">
            {/* Names are text, never markup. */}
            <span className="attendance-name">{student.displayName}</span>
            {student.membership === 'revoked' && <span className="muted"> (removed)</span>}
            {student.membership === 'pending' && <span className="muted"> (waiting to be let in)</span>}
            {student.membership === 'denied' && <span className="muted"> (declined)</span>}
          </span>
          <span className="attendance-fact"><span className="attendance-key">Connected</span> {formatDuration(student.connectedMs)}</span>
          <span className="attendance-fact"><span className="attendance-key">First join</span> {student.firstJoin ? formatClock(student.firstJoin) : '—'}</span>
          <span className="attendance-fact">
            <span className="attendance-key">Last seen</span> {student.connectedNow ? 'now' : student.lastSeen ? formatClock(student.lastSeen) : '—'}
          </span>
          <span className="attendance-fact"><span className="attendance-key">Gaps</span> {student.gaps.length}</span>
        </summary>
        <div className="attendance-details">
          <h3 className="attendance-key">Intervals</h3>
          {intervals.length === 0 ? (
            <p className="muted">never connected</p>
          ) : (
            <ul className="attendance-intervals">
              {intervals.map((interval) => (
                <li key={interval.start} className={`ended-${interval.endedBy ?? 'open'}`}>
                  {formatClock(interval.start)}–{interval.end ? formatClock(interval.end) : 'now'} · {endingText(interval)}
                </li>
              ))}
            </ul>
          )}
          {student.gaps.length > 0 && (
            <>
              <h3 className="attendance-key">Gaps</h3>
              <ul className="attendance-intervals">
                {student.gaps.map((gap) => (
                  <li key={gap.from}>
                    {formatClock(gap.from)}–{formatClock(gap.to)} ({formatDuration(gap.durationMs)})
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      </details>
    </li>
  );
}
