import type { Element, ElementShape } from '@wb/protocol';

/** What an element is called in a tile's description, singular and plural. */
const NAMES: Record<ElementShape['kind'], readonly [string, string]> = {
  pen: ['stroke', 'strokes'],
  text: ['text', 'texts'],
  sticky: ['sticky note', 'sticky notes'],
  rect: ['shape', 'shapes'],
  ellipse: ['shape', 'shapes'],
  line: ['line', 'lines'],
  arrow: ['arrow', 'arrows'],
  image: ['image', 'images'],
  equation: ['equation', 'equations'],
};
const COMMENT = ['comment', 'comments'] as const;

/**
 * What a grid tile shows, in words, for its accessible name ("Ana's board, 3 strokes, 1 comment"):
 * the canvas it is drawn on says nothing to a screen reader. The owner's elements are named by
 * kind (a copy of the class board at the start is the owner's too); anyone else's (the teacher's
 * strokes and texts) are comments. Kinds in the order they first appear in `elements`.
 */
export function tileDescription(ownerName: string, ownerUserId: string, elements: Iterable<Element>): string {
  // By singular name: a rectangle and an ellipse are both shapes.
  const counts = new Map<string, { plural: string; n: number }>();
  for (const e of elements) {
    const [one, many] = e.createdBy === ownerUserId ? NAMES[e.shape.kind] : COMMENT;
    const count = counts.get(one);
    if (count) count.n++;
    else counts.set(one, { plural: many, n: 1 });
  }
  const parts = [...counts].map(([one, { plural, n }]) => `${n} ${n === 1 ? one : plural}`);
  return `${ownerName}'s board, ${parts.length === 0 ? 'empty' : parts.join(', ')}`;
}
