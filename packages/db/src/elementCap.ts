/**
 * The cap on elements per board and the rule that an image element names a picture of its lesson
 * (issue 23, docs/store.md "The element cap").
 *
 * Per board, not per lesson: the class board and each private student board (a room row each)
 * count their own live elements against the same cap. What the cap bounds is a board's snapshot,
 * replay and drawing cost, all per board; and thirty students each drawing on their own board must
 * not be refused because the class board is full (nor fill it). A lesson holds at most
 * (1 + boards) × cap live elements, one board per student and activity.
 *
 * The count is `rooms.live_elements` (migration 0016). It moves in the revision bump of the event
 * that makes an element live or deleted (`appendRoomEvent`, and the batch's one bump), in the same
 * UPDATE of the room row, so it is exact, costs no statement of its own, and two creates racing at
 * cap - 1 are serialised by that row's lock: the second bump re-reads the count and no longer
 * matches. A create whose bump does not match at the cap throws `BoardFull` inside its transaction,
 * so nothing of it is stored; the operation answers `board_full`. A request that makes many
 * elements (an activity's board copies, a batch restore) is refused whole.
 */
import { sql } from 'drizzle-orm';
import type { ElementShape, RoomEventKind } from '@wb/protocol';
import { rows, type Executor } from './sql.ts';

/** The server's limits on elements (config `BOARD_ELEMENTS_MAX`). */
export interface ElementCaps {
  /** Live (not deleted) elements one board may hold. */
  readonly maxPerBoard: number;
}

/** The default cap: 10,000 elements, about 40 minutes of a whole class drawing freely on one board. */
export const DEFAULT_ELEMENT_CAPS: ElementCaps = { maxPerBoard: 10_000 };

/** Thrown inside a transaction whose element would take its board past the cap: rolled back, answered `board_full`. */
export class BoardFull extends Error {
  constructor(
    readonly roomId: string,
    readonly cap: number,
  ) {
    super(`board ${roomId} holds ${cap} live elements, its cap`);
  }
}

/** How an event of this kind moves its board's live element count. */
export function liveDelta(kind: RoomEventKind): -1 | 0 | 1 {
  if (kind === 'element.created' || kind === 'element.restored') return 1;
  if (kind === 'element.deleted') return -1;
  return 0;
}

/** Runs `work`; a `BoardFull` it throws (after its transaction rolled back) becomes the `board_full` decision. */
export async function refusedWhenFull<T>(work: () => Promise<T>): Promise<T | { decision: 'board_full' }> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof BoardFull) return { decision: 'board_full' as const };
    throw error;
  }
}

/** The image hashes among `shapes`, once each. */
export function imageHashes(shapes: Iterable<ElementShape>): string[] {
  const found = new Set<string>();
  for (const shape of shapes) if (shape.kind === 'image') found.add(shape.sha256);
  return [...found];
}

/**
 * Which of `hashes` the lesson of `roomId` does not hold (`lesson_images`): a private board's
 * pictures are its lesson's. One statement, asked only when a request names an image.
 */
export async function imagesNotInLesson(executor: Executor, roomId: string, hashes: readonly string[]): Promise<Set<string>> {
  if (hashes.length === 0) return new Set();
  const held = await rows<{ sha256: string }>(
    executor,
    sql`SELECT l.sha256 FROM rooms b JOIN lesson_images l ON l.room_id = coalesce(b.parent_id, b.id)
        WHERE b.id = ${roomId}::uuid AND l.sha256 = ANY(${`{${hashes.join(',')}}`}::text[])`,
  );
  const known = new Set(held.map((h) => h.sha256));
  return new Set(hashes.filter((h) => !known.has(h)));
}

/**
 * Whether a change to `shape` names a picture the lesson lacks. A change that keeps the image it
 * had (`before`, a move or a resize) asks nothing: the picture was checked when it was placed.
 */
export async function changeNamesUnknownImage(executor: Executor, roomId: string, shape: ElementShape, before: unknown): Promise<boolean> {
  if (shape.kind !== 'image') return false;
  const prior = (typeof before === 'string' ? JSON.parse(before) : before) as { kind?: unknown; sha256?: unknown } | null | undefined;
  if (prior?.kind === 'image' && prior.sha256 === shape.sha256) return false;
  return (await imagesNotInLesson(executor, roomId, [shape.sha256])).size > 0;
}
