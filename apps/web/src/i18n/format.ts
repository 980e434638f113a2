import { i18n } from './i18n.ts';

/**
 * Dates, times and numbers in the page's language (Intl with the chosen locale, not the browser's
 * default): the attendance report, its CSV, the kept boards' dates. Arabic gets its own digits and
 * separators from Intl; the time zone stays the viewer's.
 */
export function formatDateTime(value: string | number | Date, options: Intl.DateTimeFormatOptions, locale: string = i18n.locale): string {
  return new Intl.DateTimeFormat(locale, options).format(typeof value === 'string' ? new Date(value) : value);
}

export function formatNumber(value: number, options?: Intl.NumberFormatOptions, locale: string = i18n.locale): string {
  return new Intl.NumberFormat(locale, options).format(value);
}
