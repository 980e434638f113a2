/**
 * The colour theme: the system's (`prefers-color-scheme`) unless the person chose one with the
 * toggle, remembered in this browser. Applied as `data-theme` on <html>; styles.css reads it.
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
  applyTheme(choice);
}

/** Sets `data-theme` for an explicit choice; without one, CSS follows prefers-color-scheme. */
export function applyTheme(choice: ThemeChoice | null = storedTheme()): void {
  if (choice) document.documentElement.dataset.theme = choice;
  else delete document.documentElement.dataset.theme;
}
