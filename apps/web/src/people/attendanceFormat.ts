import { intervalEndLabel, type AttendanceInterval } from '@wb/protocol';

/** A duration as a teacher reads it: "45 s", "12 min", "1 h 05 min". Rounded down to what it shows. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** A time of day in the viewer's locale and zone; the date is left out (a lesson is one day). */
export function formatClock(iso: string, locale?: string, timeZone?: string): string {
  return new Date(iso).toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit', timeZone });
}

/** How an interval ended, in the report's words. */
export function endingText(interval: Pick<AttendanceInterval, 'endedBy'>): string {
  return intervalEndLabel[interval.endedBy ?? 'open'];
}
