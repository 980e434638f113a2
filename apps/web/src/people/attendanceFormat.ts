import type { AttendanceInterval } from '@wb/protocol';
import { formatDateTime } from '../i18n/format.ts';
import { i18n } from '../i18n/i18n.ts';

/** A duration as a teacher reads it: "45 s", "12 min", "1 h 05 min". Rounded down to what it shows. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return i18n._('duration.seconds', { n: seconds });
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return i18n._('duration.minutes', { n: minutes });
  const hours = Math.floor(minutes / 60);
  return i18n._('duration.hours', { h: hours, mm: String(minutes % 60).padStart(2, '0') });
}

/** A time of day in the page's language and the viewer's zone; the date is left out (a lesson is one day). */
export function formatClock(iso: string, locale: string = i18n.locale, timeZone?: string): string {
  return formatDateTime(iso, { hour: '2-digit', minute: '2-digit', timeZone }, locale);
}

/** How an interval ended, in the report's words. */
export function endingText(interval: Pick<AttendanceInterval, 'endedBy'>): string {
  return i18n._(`attendance.end.${interval.endedBy ?? 'open'}`);
}
