import type { Viewport } from './viewport.ts';

/**
 * This tab's views of the boards it has shown, by board id: a board that comes back on stage (a
 * page gone back to, the class board after an activity) opens where the person left it, and a
 * board whose first view was decided (firstView.ts) is not fitted again. Nothing is stored: a
 * reload starts afresh, and the first view is decided again.
 */

/** At most this many boards' views are kept (a lesson's pages and an activity's boards fit many times over). */
const REMEMBERED_VIEWS = 200;

/** A board's view as it left the stage, and whether its first view was decided. */
export interface RememberedView {
  readonly viewport: Viewport;
  readonly settled: boolean;
}

const remembered = new Map<string, RememberedView>();

export function recallView(boardId: string | undefined): RememberedView | undefined {
  return boardId === undefined ? undefined : remembered.get(boardId);
}

export function rememberView(boardId: string | undefined, view: RememberedView): void {
  if (boardId === undefined) return;
  // Re-inserted last: the least recently left board is the first dropped.
  remembered.delete(boardId);
  remembered.set(boardId, view);
  for (const oldest of remembered.keys()) {
    if (remembered.size <= REMEMBERED_VIEWS) break;
    remembered.delete(oldest);
  }
}
