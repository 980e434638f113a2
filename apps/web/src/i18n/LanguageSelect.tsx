import { useState } from 'react';
import { chooseLocale, currentLocale } from './i18n.ts';
import { isLocale, LOCALE_NAMES, LOCALES } from './locale.ts';
import { useT } from './useT.ts';
import './languageSelect.css';

/**
 * The menu's language switcher. Each language is named in itself (whoever needs to switch may not
 * read the current one), and marked with its own `lang` so a screen reader says it right.
 */
export function LanguageSelect() {
  const t = useT();
  const [busy, setBusy] = useState(false);
  return (
    <label className="language-select">
      <span className="language-select-label">{t('language.label')}</span>
      <select
        value={currentLocale()}
        disabled={busy}
        data-testid="language-select"
        onChange={(e) => {
          const locale = e.currentTarget.value;
          if (!isLocale(locale)) return;
          setBusy(true);
          void chooseLocale(locale).finally(() => setBusy(false));
        }}
      >
        {LOCALES.map((locale) => (
          <option key={locale} value={locale} lang={locale}>
            {LOCALE_NAMES[locale]}
          </option>
        ))}
      </select>
    </label>
  );
}
