import type { Element, ElementLock } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { overlayMarkup } from './overlayMarkup.ts';

const SELF = 'session-self';

const rect = (id: string, x: number, extra: Partial<Element> = {}): Element => ({
  id,
  shape: { kind: 'rect', x, y: 100, w: 40, h: 30, stroke: '#000000', fill: 'transparent', strokeWidth: 2 },
  z: 0,
  version: 1,
  lock: null,
  pinned: false,
  createdBy: 'u1', updatedBy: 'u1',
  ...extra,
});

const lock = (sessionId: string): ElementLock => ({ sessionId, userId: `user-of-${sessionId}`, generation: 1 });
const onScreen = { x: -1_000, y: -1_000, w: 3_000, h: 3_000 };
const names = (userId: string) => (userId === 'user-of-other' ? 'Ana <3' : 'Someone');

function markup(elements: Element[], options: { selection?: string[]; previews?: Map<string, { x: number; y: number }>; culled?: typeof onScreen; zoom?: number } = {}) {
  return overlayMarkup(
    new Map(elements.map((e) => [e.id, e])),
    new Set(options.selection ?? []),
    options.previews ?? new Map(),
    options.culled ?? onScreen,
    options.zoom ?? 1,
    SELF,
    names,
  );
}

const testIds = (html: string) => [...html.matchAll(/data-testid="([^"]+)" data-element-id="([^"]+)"/g)].map((m) => `${m[1]}:${m[2]}`);

describe('overlayMarkup: lock outlines, the selection and pin marks', () => {
  test('an element locked by someone else is outlined with their escaped name; our own lock is not', () => {
    const html = markup([rect('theirs', 0, { lock: lock('other') }), rect('ours', 100, { lock: lock(SELF) })]);
    expect(testIds(html)).toEqual(['lock-outline:theirs']);
    expect(html).toContain('>Ana &lt;3</text>');
  });

  test('the selection has a dashed outline; a pinned element a mark; an element with neither nothing', () => {
    const html = markup([rect('sel', 0), rect('pin', 100, { pinned: true }), rect('plain', 200)], { selection: ['sel'] });
    expect(testIds(html)).toEqual(['selection-outline:sel', 'pin-mark:pin']);
  });

  test('an element locked by someone else and selected shows the lock outline, not the selection', () => {
    expect(testIds(markup([rect('a', 0, { lock: lock('other') })], { selection: ['a'] }))).toEqual(['lock-outline:a']);
  });

  test('an outline of an element outside the drawn area is left out, unless the element is being dragged', () => {
    const far = rect('far', 10_000);
    expect(markup([far], { selection: ['far'] })).toBe('');
    expect(testIds(markup([far], { selection: ['far'], previews: new Map([['far', { x: 0, y: 100 }]]) }))).toEqual(['selection-outline:far']);
  });

  test('a dragged element is outlined where the drag shows it', () => {
    const html = markup([rect('a', 0)], { selection: ['a'], previews: new Map([['a', { x: 50, y: 120 }]]) });
    // The outline is 6 px outside the shape's bounds, moved by the drag's offset (50, 20).
    expect(html).toContain('x="44" y="114"');
  });

  test('outlines keep their screen size at the zoom drawn for', () => {
    expect(markup([rect('a', 0)], { selection: ['a'], zoom: 2 })).toContain('stroke-width="0.75"');
    expect(markup([rect('a', 0)], { selection: ['a'], zoom: 0.5 })).toContain('stroke-width="3"');
  });
});
