import type { Element, ElementShape } from '@wb/protocol';
import type { MessageId } from '@lingui/core';
import { i18n } from '../i18n/i18n.ts';

/** How many of a kind a tile's description names (a plural message each): a rectangle and an ellipse are both shapes. */
const COUNTS: Record<ElementShape['kind'], MessageId> = {
  pen: 'tile.strokes',
  text: 'tile.texts',
  sticky: 'tile.notes',
  rect: 'tile.shapes',
  ellipse: 'tile.shapes',
  line: 'tile.lines',
  arrow: 'tile.arrows',
  image: 'tile.images',
  equation: 'tile.equations',
};
const COMMENTS: MessageId = 'tile.comments';

/**
 * What a grid tile shows, in words, for its accessible name ("Ana's board, 3 strokes, 1 comment"):
 * the canvas it is drawn on says nothing to a screen reader. The owner's elements are named by
 * kind (a copy of the class board at the start is the owner's too); anyone else's (the teacher's
 * strokes and texts) are comments. Kinds in the order they first appear in `elements`.
 */
export function tileDescription(ownerName: string, ownerUserId: string, elements: Iterable<Element>): string {
  const counts = new Map<MessageId, number>();
  for (const e of elements) {
    const id = e.createdBy === ownerUserId ? COUNTS[e.shape.kind] : COMMENTS;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  const parts = [...counts].map(([id, count]) => i18n._(id, { count }));
  const contents = parts.length === 0 ? i18n._('tile.empty') : new Intl.ListFormat(i18n.locale, { style: 'short', type: 'unit' }).format(parts);
  return i18n._('tile.description', { name: ownerName, contents });
}
