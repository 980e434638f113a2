import { readFileSync } from 'node:fs';
import { compileMessageOrThrow, type CompiledMessage } from '@lingui/message-utils/compileMessage';
import { describe, expect, test } from 'vitest';
import { LOCALES, SOURCE_LOCALE } from '../src/i18n/locale.ts';

/**
 * The catalogs keep their word: every language has every message English has (and nothing
 * English lacks), each message is valid ICU MessageFormat, uses the same arguments and the same
 * rich-text tags as English, and its plural forms are ones the language has. English is the
 * source of the ids (a component cannot name an id English lacks: lingui.d.ts types them).
 */
const catalog = (locale: string): Record<string, string> =>
  JSON.parse(readFileSync(new URL(`../src/i18n/locales/${locale}.json`, import.meta.url), 'utf8')) as Record<string, string>;

const english = catalog(SOURCE_LOCALE);
const others = LOCALES.filter((l) => l !== SOURCE_LOCALE);

interface Shape {
  args: Set<string>;
  tags: string[];
  plurals: { arg: string; categories: string[] }[];
}

/** The arguments, tags and plural forms a compiled message uses. */
function shapeOf(message: string): Shape {
  const shape: Shape = { args: new Set(), tags: [], plurals: [] };
  const walk = (tokens: CompiledMessage) => {
    for (const token of tokens) {
      if (typeof token === 'string') {
        for (const tag of token.matchAll(/<\/?(\d+)\/?>/g)) shape.tags.push(tag[0]);
        continue;
      }
      const [name, type, format] = token;
      shape.args.add(name);
      if ((type === 'plural' || type === 'select' || type === 'selectordinal') && format && typeof format === 'object') {
        const choices = Object.entries(format as Record<string, unknown>).filter(([key]) => key !== 'offset');
        if (type === 'plural') shape.plurals.push({ arg: name, categories: choices.map(([key]) => key) });
        for (const [, branch] of choices) if (Array.isArray(branch)) walk(branch as CompiledMessage);
      }
    }
  };
  walk(compileMessageOrThrow(message));
  shape.tags.sort();
  return shape;
}

describe('catalogs', () => {
  test('English has messages, each valid ICU', () => {
    expect(Object.keys(english).length).toBeGreaterThan(100);
    for (const [id, message] of Object.entries(english)) expect(() => shapeOf(message), id).not.toThrow();
  });

  describe.each(others)('%s', (locale) => {
    const messages = catalog(locale);

    test('has every message English has, and no other', () => {
      expect(Object.keys(english).filter((id) => !(id in messages)), 'missing').toEqual([]);
      expect(Object.keys(messages).filter((id) => !(id in english)), 'not in English').toEqual([]);
    });

    test('every message is valid ICU, with English’s arguments and tags', () => {
      for (const [id, message] of Object.entries(messages)) {
        let shape: Shape | undefined;
        expect(() => (shape = shapeOf(message)), `${locale} ${id}: ICU syntax`).not.toThrow();
        const source = shapeOf(english[id] ?? '');
        expect([...shape!.args].sort(), `${locale} ${id}: arguments`).toEqual([...source.args].sort());
        expect(shape!.tags, `${locale} ${id}: tags`).toEqual(source.tags);
      }
    });

    test('plural forms are the language’s own, each with "other"', () => {
      const known = new Set(new Intl.PluralRules(locale).resolvedOptions().pluralCategories);
      for (const [id, message] of Object.entries(messages)) {
        for (const plural of shapeOf(message).plurals) {
          const exact = (c: string) => /^=\d+$/.test(c);
          expect(plural.categories.filter((c) => !known.has(c as Intl.LDMLPluralRule) && !exact(c)), `${locale} ${id}`).toEqual([]);
          expect(plural.categories, `${locale} ${id}`).toContain('other');
        }
      }
    });
  });
});
