import type { Element } from '@wb/protocol';
import { rotatedBounds, type Bounds } from '../elements/geometry.ts';
import type { Viewport } from './viewport.ts';
import type { MessageId } from '@lingui/core';
import { i18n } from '../i18n/i18n.ts';

/**
 * Keyboard access to the board's elements: the reading order Tab walks, the next element from the
 * selection, the pan that brings an element into view, and the words a screen reader says for one.
 * Pure: Board.tsx and ElementList.tsx wire it to keys and the DOM.
 */

/** Elements whose tops differ by less than this (board units) read as one row, left to right. */
export const ROW_TOLERANCE = 20;

/** Bounds per shape object (shapes are immutable): a pen stroke's points are walked once, not on every edit. */
const boundsCache = new WeakMap<Element['shape'], Bounds>();
function boundsOf(shape: Element['shape']): Bounds {
  let b = boundsCache.get(shape);
  if (!b) {
    b = rotatedBounds(shape);
    boundsCache.set(shape, b);
  }
  return b;
}

/** Reading order: top to bottom, then left to right within a row; ties by id so the order is stable. */
export function readingOrder(elements: Iterable<Element>): Element[] {
  const placed = [...elements].map((el) => ({ el, b: boundsOf(el.shape) }));
  placed.sort((a, b) => a.b.y - b.b.y || a.b.x - b.b.x);
  // Rows: a run of elements whose tops are within ROW_TOLERANCE of the row's first one.
  const rows: (typeof placed)[] = [];
  for (const item of placed) {
    const row = rows[rows.length - 1];
    if (row && item.b.y - row[0]!.b.y < ROW_TOLERANCE) row.push(item);
    else rows.push([item]);
  }
  return rows.flatMap((row) => row.sort((a, b) => a.b.x - b.b.x || (a.el.id < b.el.id ? -1 : a.el.id > b.el.id ? 1 : 0)).map((p) => p.el));
}

/**
 * The element Tab (forward) or Shift+Tab (back) selects next: after (before) the selected one
 * furthest along that way; from no selection, the first (last). Null past either end, so focus
 * can leave the board (no keyboard trap).
 */
export function stepSelection(order: readonly Element[], selection: ReadonlySet<string>, forward: boolean): Element | null {
  if (order.length === 0) return null;
  const at = order.map((el, i) => (selection.has(el.id) ? i : -1)).filter((i) => i >= 0);
  if (at.length === 0) return forward ? order[0]! : order[order.length - 1]!;
  const next = forward ? Math.max(...at) + 1 : Math.min(...at) - 1;
  return order[next] ?? null;
}

/** Screen pixels kept between an element brought into view and the edge of the board. */
export const REVEAL_MARGIN_PX = 48;

/**
 * The view that shows `b` (board units) on a screen of `size`: unchanged when it is already fully
 * visible, else panned (zoom kept) to centre it.
 */
export function revealBounds(vp: Viewport, b: Bounds, size: { width: number; height: number }, margin = REVEAL_MARGIN_PX): Viewport {
  const left = b.x * vp.zoom + vp.x;
  const top = b.y * vp.zoom + vp.y;
  const right = (b.x + b.w) * vp.zoom + vp.x;
  const bottom = (b.y + b.h) * vp.zoom + vp.y;
  if (left >= margin && top >= margin && right <= size.width - margin && bottom <= size.height - margin) return vp;
  const cx = (b.x + b.w / 2) * vp.zoom;
  const cy = (b.y + b.h / 2) * vp.zoom;
  return { zoom: vp.zoom, x: size.width / 2 - cx, y: size.height / 2 - cy };
}

const KIND_NAMES: Record<Element['shape']['kind'], MessageId> = {
  rect: 'kind.rect',
  ellipse: 'kind.ellipse',
  line: 'kind.line',
  arrow: 'kind.arrow',
  pen: 'kind.pen',
  text: 'kind.text',
  sticky: 'kind.sticky',
  image: 'kind.image',
  equation: 'kind.equation',
};

/** Text longer than this is cut (with an ellipsis) in an element's name. */
export const NAME_TEXT_MAX = 40;

/** What a screen reader says for an element: "Rectangle by Ana", "Text: 'Question 1' by Ms Rivera". */
export function describeElement(el: Element, nameOf: (userId: string) => string): string {
  const kind = i18n._(KIND_NAMES[el.shape.kind]);
  const shape = el.shape;
  let named = kind;
  if (shape.kind === 'text' || shape.kind === 'sticky') {
    const text = shape.text.replace(/\s+/g, ' ').trim();
    const cut = text.length > NAME_TEXT_MAX ? `${text.slice(0, NAME_TEXT_MAX - 1)}…` : text;
    named = cut ? i18n._('element.quoted', { kind, text: cut }) : i18n._('element.empty', { kind });
  } else if (shape.kind === 'equation') {
    const source = shape.latex.length > NAME_TEXT_MAX ? `${shape.latex.slice(0, NAME_TEXT_MAX - 1)}…` : shape.latex;
    named = i18n._('element.equation', { kind, source });
  }
  return i18n._(el.pinned ? 'element.byPinned' : 'element.by', { what: named, name: nameOf(el.createdBy) });
}

/** The live announcement for a selection: "Selected: Rectangle by Ana, 3 of 12". Empty when nothing is selected. */
export function announceSelection(order: readonly Element[], selection: ReadonlySet<string>, nameOf: (userId: string) => string): string {
  if (selection.size === 0) return '';
  const index = order.findIndex((el) => selection.has(el.id));
  if (selection.size > 1) return i18n._('selection.many', { count: selection.size, total: order.length });
  const el = order[index];
  return el ? i18n._('selection.one', { what: describeElement(el, nameOf), index: index + 1, total: order.length }) : '';
}

/** How many elements the accessible list names; past this it says how many more there are. */
export const ELEMENT_LIST_CAP = 200;
