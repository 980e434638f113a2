import { setupI18n, type Messages } from '@lingui/core';
import { messages as englishMessages } from './locales/en.json?lingui';
import { directionOf, initialLocale, SOURCE_LOCALE, storeLocale, type Locale } from './locale.ts';

/**
 * The page's one Lingui instance. English is compiled into the first bundle (it is also every
 * catalog's fallback); the other catalogs are compiled at build time by @lingui/vite-plugin and
 * fetched on demand, each its own chunk. Components read messages through `useLingui()` (they
 * re-render when the language changes); plain modules call `i18n._` when they build a text.
 */
export const i18n = setupI18n({ locale: SOURCE_LOCALE, messages: { [SOURCE_LOCALE]: englishMessages } });

const loaders: Record<Exclude<Locale, 'en'>, () => Promise<{ messages: Messages }>> = {
  es: () => import('./locales/es.json?lingui'),
  ar: () => import('./locales/ar.json?lingui'),
};

/** `<html lang dir>`: what screen readers, fonts, hyphenation and the mirrored layout follow. */
export function applyDocumentLocale(locale: Locale): void {
  document.documentElement.lang = locale;
  document.documentElement.dir = directionOf(locale);
}

const loaded = new Set<Locale>([SOURCE_LOCALE]);

async function load(locale: Locale): Promise<void> {
  if (locale === 'en' || loaded.has(locale)) return;
  const { messages } = await loaders[locale]();
  i18n.load(locale, messages);
  loaded.add(locale);
}

/** Loads a language's catalog if needed and makes it the page's. */
export async function activateLocale(locale: Locale): Promise<void> {
  await load(locale);
  i18n.activate(locale);
  applyDocumentLocale(locale);
}

/** The menu's switcher: the choice is remembered, then applied. */
export async function chooseLocale(locale: Locale): Promise<void> {
  storeLocale(locale);
  await activateLocale(locale);
}

/**
 * Before the first render: the browser's or the remembered language. A catalog that cannot be
 * fetched (offline on first visit) leaves the page in English rather than blank.
 */
export async function startLocale(): Promise<void> {
  try {
    await activateLocale(initialLocale());
  } catch {
    await activateLocale(SOURCE_LOCALE);
  }
}

export function currentLocale(): Locale {
  return i18n.locale as Locale;
}
