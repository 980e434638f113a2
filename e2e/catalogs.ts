import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';

/** The web app's catalogs (apps/web/src/i18n/locales), read as the page reads them. */
export function catalog(locale: 'en' | 'es' | 'ar'): Record<string, string> {
  return JSON.parse(readFileSync(new URL(`../apps/web/src/i18n/locales/${locale}.json`, import.meta.url), 'utf8')) as Record<string, string>;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * What English left on a page in another language would look like: each English message that the
 * other language words differently, as a pattern (its arguments match anything, its rich-text
 * tags are dropped). Messages with plural or select forms, and those with no word outside their
 * arguments ("{name} ({key})"), are left out: they cannot be told from the other language's text.
 */
export function englishPatterns(other: Record<string, string>): { id: string; pattern: RegExp }[] {
  const english = catalog('en');
  const patterns: { id: string; pattern: RegExp }[] = [];
  for (const [id, message] of Object.entries(english)) {
    if (other[id] === message) continue;
    if (/\{\w+, (plural|select|selectordinal),/.test(message)) continue;
    const text = message.replace(/<\/?\d+>/g, '').replace(/''/g, "'");
    if (!/\p{L}/u.test(text.replace(/\{\w+\}/g, ''))) continue;
    const source = text
      .split(/(\{\w+\})/)
      .map((part) => (/^\{\w+\}$/.test(part) ? '.+?' : escape(part)))
      .join('');
    patterns.push({ id, pattern: new RegExp(`^${source}$`, 's') });
  }
  return patterns;
}

/**
 * Every string a person reads or hears on the page now: each rendered element's text (up to a
 * paragraph's length: a message is never longer), the names and hints screen readers and
 * tooltips give (aria-label, title, placeholder, alt, aria-roledescription) and the tab's title.
 * Visually hidden text (screen-reader help) counts; elements not rendered (display: none) do not.
 */
export async function pageStrings(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found = new Set<string>();
    const add = (value: string | null | undefined) => {
      const text = value?.replace(/\s+/g, ' ').trim();
      if (text) found.add(text);
    };
    add(document.title);
    for (const element of Array.from(document.body.querySelectorAll<HTMLElement>('*'))) {
      if (element.closest('[hidden]') || !element.checkVisibility({ visibilityProperty: true } as CheckVisibilityOptions)) continue;
      for (const name of ['aria-label', 'title', 'placeholder', 'alt', 'aria-roledescription', 'aria-description']) add(element.getAttribute(name));
      if (element instanceof SVGElement && element.closest('[data-testid="board"]')) continue; // the board's own content
      const text = element.innerText;
      if (text !== undefined && text.length <= 400) add(text);
      for (const node of Array.from(element.childNodes)) if (node.nodeType === Node.TEXT_NODE) add(node.textContent);
    }
    return [...found];
  });
}

/** The strings on the page that are English the other language words differently, with their ids. */
export async function englishLeftOn(page: Page, other: Record<string, string>): Promise<string[]> {
  const patterns = englishPatterns(other);
  const strings = await pageStrings(page);
  return strings.flatMap((text) => patterns.filter((p) => p.pattern.test(text)).map((p) => `${p.id}: "${text}"`));
}
