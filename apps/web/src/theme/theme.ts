/**
 * The colour theme: the system's (`prefers-color-scheme`) unless the person chose one with the
 * toggle, remembered in this browser. Applied as `data-theme` on <html> (always set, the system's
 * theme included); theme/tokens.css reads it.
 * The board itself stays light in both themes: everyone sees the same ink on the same paper.
 */
export type ThemeChoice = 'light' | 'dark';

const STORAGE_KEY = 'wb.theme';

export function storedTheme(): ThemeChoice | null {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return value === 'light' || value === 'dark' ? value : null;
  } catch {
    return null;
  }
}

export function systemTheme(): ThemeChoice {
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** The theme in effect: the stored choice, else the system's. */
export function effectiveTheme(): ThemeChoice {
  return storedTheme() ?? systemTheme();
}

/** Writes the choice (null: follow the system again) and applies it. */
export function chooseTheme(choice: ThemeChoice | null): void {
  try {
    if (choice) localStorage.setItem(STORAGE_KEY, choice);
    else localStorage.removeItem(STORAGE_KEY);
  } catch {
    // Storage refused (private mode): the choice lasts for this page.
  }
  applyTheme(choice ?? systemTheme());
}

/**
 * Sets `data-theme` on <html> to the theme in effect, always: tokens.css keys the dark values on
 * it alone, so they are written once rather than again under a prefers-color-scheme query.
 */
export function applyTheme(theme: ThemeChoice = effectiveTheme()): void {
  document.documentElement.dataset.theme = theme;
}

/** While nothing is chosen, the page follows the system's setting as it changes (e.g. at dusk). */
export function followSystemTheme(): void {
  if (typeof matchMedia !== 'function') return;
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => applyTheme());
}
