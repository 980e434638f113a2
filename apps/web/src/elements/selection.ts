/**
 * Selection geometry, pure: which elements a marquee takes, the box around a selection, and how a
 * shift-click changes it. The editor and the tool input call these; the tests read as tables.
 */
import type { Element, ElementShape } from '@wb/protocol';
import { rotatedBounds, unionBounds, type Bounds, type Point } from './geometry.ts';

/** Arrow keys nudge the selection by this many board units; with shift by the larger step. */
export const NUDGE_STEP = 1;
export const NUDGE_STEP_SHIFT = 10;

/** The rectangle between a marquee's two corners, whichever way it was dragged. */
export function marqueeRect(a: Point, b: Point): Bounds {
  return { x: Math.min(a.x, b.x), y: Math.min(a.y, b.y), w: Math.abs(b.x - a.x), h: Math.abs(b.y - a.y) };
}

/**
 * The elements a marquee selects: those whose geometric bounds lie wholly inside it (as in most
 * drawing tools: a box drawn around things takes them, one that only grazes an element does not).
 * A line's bounds are its segment's, so a horizontal line (zero height) can be boxed; a turned
 * box's are its turned corners'.
 */
export function elementsInMarquee(ordered: readonly Element[], rect: Bounds): Element[] {
  return ordered.filter((e) => {
    const b = rotatedBounds(e.shape);
    return b.x >= rect.x && b.y >= rect.y && b.x + b.w <= rect.x + rect.w && b.y + b.h <= rect.y + rect.h;
  });
}

/** The box drawn around a selection (with drag previews applied), or null when nothing is selected. */
export function selectionBounds(
  elements: ReadonlyMap<string, Element>,
  selection: ReadonlySet<string>,
  previews: ReadonlyMap<string, Point & { readonly shape?: ElementShape }> = new Map(),
): Bounds | null {
  const boxes: Bounds[] = [];
  for (const id of selection) {
    const e = elements.get(id);
    if (!e) continue;
    const p = previews.get(id);
    if (p?.shape) {
      boxes.push(rotatedBounds(p.shape));
      continue;
    }
    const b = rotatedBounds(e.shape);
    boxes.push(p ? { ...b, x: b.x + p.x - e.shape.x, y: b.y + p.y - e.shape.y } : b);
  }
  return unionBounds(boxes);
}

/** Shift-click: adds the element when it is not selected, removes it when it is. */
export function toggled(selection: ReadonlySet<string>, id: string): Set<string> {
  const next = new Set(selection);
  if (next.has(id)) next.delete(id);
  else next.add(id);
  return next;
}

/** The nudge an arrow key asks for, in board units, or null for any other key. */
export function nudgeFor(key: string, shift: boolean): Point | null {
  const step = shift ? NUDGE_STEP_SHIFT : NUDGE_STEP;
  switch (key) {
    case 'ArrowLeft':
      return { x: -step, y: 0 };
    case 'ArrowRight':
      return { x: step, y: 0 };
    case 'ArrowUp':
      return { x: 0, y: -step };
    case 'ArrowDown':
      return { x: 0, y: step };
    default:
      return null;
  }
}
