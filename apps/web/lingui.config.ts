import { defineConfig } from '@lingui/conf';
import { formatter } from '@lingui/format-json';

/**
 * The catalogs: one JSON file per language, `{ "id": "ICU message" }`, English the source. The
 * Vite plugin (vite.config.ts) compiles a catalog when it is imported, so the page never parses
 * ICU at run time. Language names and the loader are in src/i18n/i18n.ts.
 */
export default defineConfig({
  sourceLocale: 'en',
  locales: ['en', 'es', 'ar'],
  fallbackLocales: { default: 'en' },
  catalogs: [{ path: '<rootDir>/src/i18n/locales/{locale}', include: ['src'] }],
  format: formatter({ style: 'minimal' }),
});
