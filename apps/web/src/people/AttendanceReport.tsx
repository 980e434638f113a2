import { ATTENDANCE_CSV_COLUMNS, type AttendanceCsvWords, type AttendanceReport as Report, type StudentAttendance } from '@wb/protocol';
import { useCallback, useEffect, useRef, useState } from 'react';
import { downloadAttendanceCsv, downloadServerCsv, getAttendanceReport, type ReportSource } from '../api/teacherApi.ts';
import { endingText, formatClock, formatDuration } from './attendanceFormat.ts';
import './teacher.css';
import './AttendanceReport.css';
import { i18n } from '../i18n/i18n.ts';
import { formatNumber } from '../i18n/format.ts';
import { errorMessage } from '../i18n/errors.ts';
import { Trans } from '@lingui/react';
import { useT } from '../i18n/useT.ts';

/** The CSV's header row and `ended` words in the page's language (codes, ids and instants stay as they are). */
function csvWords(): AttendanceCsvWords {
  return {
    columns: Object.fromEntries(ATTENDANCE_CSV_COLUMNS.map((column) => [column, i18n._(`csv.${column}`)])) as AttendanceCsvWords['columns'],
    ended: (end) => i18n._(`attendance.end.${end}`),
    neverConnected: i18n._('attendance.neverConnected'),
  };
}

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
  const t = useT();

  const refresh = useCallback(() => {
    setLoad({ status: 'loading' });
    getAttendanceReport(source).then(
      (report) => setLoad({ status: 'loaded', report }),
      (error: unknown) => setLoad({ status: 'failed', message: errorMessage(error, 'attendance.loadFailed') }),
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
      if (what === 'polls.csv') await downloadServerCsv(source, what);
      else await downloadAttendanceCsv(source, csvWords());
    } catch (error) {
      setDownloadError(errorMessage(error, 'attendance.downloadFailed'));
    }
  };

  return (
    <dialog ref={ref} className="dialog attendance-dialog" aria-labelledby="attendance-title" onCancel={onClose} data-testid="attendance-report">
      <div className="attendance-head">
        <h2 id="attendance-title">
          {t('lesson.attendance')}
          {load.status === 'loaded' && <span className="muted"> · {load.report.room.title}</span>}
        </h2>
        <div className="actions">
          <button type="button" className="button button-secondary" onClick={refresh}>
            {t('attendance.refresh')}
          </button>
          <button type="button" className="button button-primary" onClick={() => void download()}>
            {t('attendance.downloadCsv')}
          </button>
          {load.status === 'loaded' && (load.report.polls?.length ?? 0) > 0 && (
            <button type="button" className="button button-secondary" onClick={() => void download('polls.csv')}>
              {t('attendance.pollsCsv')}
            </button>
          )}
          <button type="button" className="button button-secondary" onClick={onClose}>
            {t('action.close')}
          </button>
        </div>
      </div>
      <p className="attendance-note">
        {t('attendance.note')}
      </p>
      {downloadError && (
        <p className="form-error" role="alert">
          {downloadError}
        </p>
      )}
      {load.status === 'loading' && <p className="muted">{t('common.loading')}</p>}
      {load.status === 'failed' && (
        <p className="form-error" role="alert">
          {load.message}
        </p>
      )}
      {load.status === 'loaded' &&
        (load.report.students.length === 0 ? (
          <p className="muted">{t('attendance.noStudents')}</p>
        ) : (
          <>
            <ReportSummary students={load.report.students} />
            {/* Summary first, one line per student; the intervals and gaps open under it. */}
            <ul className="attendance-list" aria-label={t('attendance.students')}>
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
      <Trans id="attendance.summary" values={{ count: students.length, now, withGaps, removed }} components={{ 0: <strong /> }} />
    </p>
  );
}

function StudentRow({ student }: { student: StudentAttendance }) {
  const intervals = student.sessions.flatMap((s) => s.intervals).sort((a, b) => a.start.localeCompare(b.start));
  const t = useT();
  return (
    <li data-testid="attendance-row">
      <details className="attendance-student">
        <summary>
          <span className="attendance-who">
            {/* Names are text, never markup. */}
            <span className="attendance-name">{student.displayName}</span>
            {student.membership === 'revoked' && <span className="muted"> {t('attendance.removed')}</span>}
            {student.membership === 'pending' && <span className="muted"> {t('attendance.pending')}</span>}
            {student.membership === 'denied' && <span className="muted"> {t('attendance.denied')}</span>}
          </span>
          <span className="attendance-fact"><span className="attendance-key">{t('attendance.connected')}</span> {formatDuration(student.connectedMs)}</span>
          <span className="attendance-fact"><span className="attendance-key">{t('attendance.firstJoin')}</span> {student.firstJoin ? formatClock(student.firstJoin) : '—'}</span>
          <span className="attendance-fact">
            <span className="attendance-key">{t('attendance.lastSeen')}</span> {student.connectedNow ? t('attendance.now') : student.lastSeen ? formatClock(student.lastSeen) : '—'}
          </span>
          <span className="attendance-fact"><span className="attendance-key">{t('attendance.gaps')}</span> {formatNumber(student.gaps.length)}</span>
        </summary>
        <div className="attendance-details">
          <h3 className="attendance-key">{t('attendance.intervals')}</h3>
          {intervals.length === 0 ? (
            <p className="muted">{t('attendance.neverConnected')}</p>
          ) : (
            <ul className="attendance-intervals">
              {intervals.map((interval) => (
                <li key={interval.start} className={`ended-${interval.endedBy ?? 'open'}`}>
                  {formatClock(interval.start)}–{interval.end ? formatClock(interval.end) : t('attendance.now')} · {endingText(interval)}
                </li>
              ))}
            </ul>
          )}
          {student.gaps.length > 0 && (
            <>
              <h3 className="attendance-key">{t('attendance.gaps')}</h3>
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
