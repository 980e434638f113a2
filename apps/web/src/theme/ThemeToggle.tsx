import { useEffect, useState } from 'react';
import { chooseTheme, effectiveTheme, systemTheme, type ThemeChoice } from './theme.ts';
import { useT } from '../i18n/useT.ts';

/**
 * A switch between the light and the dark theme. It starts from the system's setting and follows
 * it until pressed; pressing it back to the system's theme forgets the choice.
 */
export function ThemeToggle({ className = 'button button-secondary' }: { className?: string }) {
  const [theme, setTheme] = useState<ThemeChoice>(effectiveTheme);
  const t = useT();

  useEffect(() => {
    const query = matchMedia('(prefers-color-scheme: dark)');
    const follow = () => setTheme(effectiveTheme());
    query.addEventListener('change', follow);
    return () => query.removeEventListener('change', follow);
  }, []);

  const toggle = () => {
    const next: ThemeChoice = theme === 'dark' ? 'light' : 'dark';
    chooseTheme(next === systemTheme() ? null : next);
    setTheme(next);
  };

  return (
    <button type="button" className={className} aria-pressed={theme === 'dark'} onClick={toggle} data-testid="theme-toggle"
      title={t('theme.toggleTitle')}>
      {t('theme.dark')}
    </button>
  );
}
