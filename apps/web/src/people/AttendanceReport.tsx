import type { AttendanceReport as Report, StudentAttendance } from '@wb/protocol';
import { useCallback, useEffect, useRef, useState } from 'react';
import { downloadAttendanceCsv, getAttendanceReport, type ReportSource } from '../api/teacherApi.ts';
import { endingText, formatClock, formatDuration } from './attendanceFormat.ts';
import './teacher.css';

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

  const download = async () => {
    setDownloadError(null);
    try {
      await downloadAttendanceCsv(source);
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
          <button type="button" className="button button-primary" onClick={download}>
            Download CSV
          </button>
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
          <table className="attendance-table">
            <thead>
              <tr>
                <th scope="col">Student</th>
                <th scope="col">First join</th>
                <th scope="col">Last seen</th>
                <th scope="col">Connected</th>
                <th scope="col">Intervals</th>
                <th scope="col">Gaps</th>
              </tr>
            </thead>
            <tbody>
              {load.report.students.map((student) => (
                <StudentRow key={student.userId} student={student} />
              ))}
            </tbody>
          </table>
        ))}
    </dialog>
  );
}

function StudentRow({ student }: { student: StudentAttendance }) {
  const intervals = student.sessions.flatMap((s) => s.intervals).sort((a, b) => a.start.localeCompare(b.start));
  return (
    <tr data-testid="attendance-row">
      <th scope="row">
        {/* Names are text, never markup. */}
        <span className="attendance-name">{student.displayName}</span>
        {student.membership === 'revoked' && <span className="muted"> (removed)</span>}
        {student.membership === 'pending' && <span className="muted"> (waiting to be let in)</span>}
        {student.membership === 'denied' && <span className="muted"> (declined)</span>}
      </th>
      <td>{student.firstJoin ? formatClock(student.firstJoin) : '—'}</td>
      <td>{student.connectedNow ? 'now' : student.lastSeen ? formatClock(student.lastSeen) : '—'}</td>
      <td>{formatDuration(student.connectedMs)}</td>
      <td>
        {intervals.length === 0 ? (
          <span className="muted">never connected</span>
        ) : (
          <ul className="attendance-intervals">
            {intervals.map((interval) => (
              <li key={interval.start} className={`ended-${interval.endedBy ?? 'open'}`}>
                {formatClock(interval.start)}–{interval.end ? formatClock(interval.end) : 'now'} · {endingText(interval)}
              </li>
            ))}
          </ul>
        )}
      </td>
      <td>
        {student.gaps.length === 0
          ? '—'
          : student.gaps.map((gap) => (
              <div key={gap.from}>
                {formatClock(gap.from)}–{formatClock(gap.to)} ({formatDuration(gap.durationMs)})
              </div>
            ))}
      </td>
    </tr>
  );
}
