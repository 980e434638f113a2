/**
 * Which language the page speaks: the one chosen in the menu (remembered in this browser), else the
 * first of the browser's languages we have, else English. Pure decisions plus the one storage key;
 * the catalogs themselves are loaded by i18n.ts.
 */
export const LOCALES = ['en', 'es', 'ar'] as const;
export type Locale = (typeof LOCALES)[number];

export const SOURCE_LOCALE: Locale = 'en';

/** Each language's name in itself: a switcher is read by someone who may not read the current one. */
export const LOCALE_NAMES: Readonly<Record<Locale, string>> = {
  en: 'English',
  es: 'Español',
  ar: 'العربية',
};

/** The languages written right to left. */
const RTL: ReadonlySet<Locale> = new Set<Locale>(['ar']);

export function directionOf(locale: Locale): 'ltr' | 'rtl' {
  return RTL.has(locale) ? 'rtl' : 'ltr';
}

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/** The first of `wanted` (BCP 47 tags, most preferred first) we have: `es-MX` matches `es`. */
export function matchLocale(wanted: readonly string[]): Locale | null {
  for (const tag of wanted) {
    const language = tag.toLowerCase().split(/[-_]/)[0];
    if (isLocale(language)) return language;
  }
  return null;
}

const STORAGE_KEY = 'wb.locale';
/** The choice for this page when the browser refuses storage (private mode, a locked-down tablet). */
let unstoredChoice: Locale | null = null;

export function storedLocale(): Locale | null {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    if (isLocale(value)) return value;
  } catch {
    // Storage refused: fall back to this page's memory.
  }
  return unstoredChoice;
}

export function storeLocale(locale: Locale): void {
  unstoredChoice = locale;
  try {
    localStorage.setItem(STORAGE_KEY, locale);
  } catch {
    // Storage refused: the choice lasts for this page.
  }
}

/** The language in effect at start: the stored choice, the browser's languages, English. */
export function initialLocale(): Locale {
  const browser = typeof navigator === 'undefined' ? [] : navigator.languages?.length ? navigator.languages : [navigator.language];
  return storedLocale() ?? matchLocale(browser) ?? SOURCE_LOCALE;
}
