const NAME_STORAGE = 'wb.displayName';

/** The last name typed on this browser, to prefill the next form (a convenience, not identity). */
export function rememberedName(): string {
  try {
    return localStorage.getItem(NAME_STORAGE) ?? '';
  } catch {
    return '';
  }
}

export function rememberName(name: string): void {
  try {
    localStorage.setItem(NAME_STORAGE, name);
  } catch {
    // Prefill is optional.
  }
}
