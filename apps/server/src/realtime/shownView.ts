/**
 * What a classmate receives of a board shown to the class (docs/boards.md, "Shown boards are
 * anonymous"): the board's work under its label and nothing that names whose it is. The owner and
 * the lesson's teachers read the board as it is; every other student reads this view of it, built
 * here on the server from the same events, snapshots and batches, and sent on the board's shown
 * channel (`shownChannel`), never its room channel.
 *
 * Every user id in it (element authors, lock holders, pointers, drags, the board's owner) becomes
 * one id made from the board's id alone, and every session id another, so nothing in the view
 * depends on who drew: a classmate who knows every member's ids and names finds none of them in
 * it. The owner's name becomes the label the teacher chose. Pure functions, no socket.
 */
import { createHash } from 'node:crypto';
import type { BoardInfo, BoardPointers, BoardSnapshot, Element, RoomEvent } from '@wb/protocol';

/** A UUID (version 4 layout) derived from `seed`: the same on every node, revealing nothing of anything but the seed. */
function derivedUuid(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The user id every author and holder on a shown board has in the class's view of it. */
export const shownUserId = (boardId: string) => derivedUuid(`wb:shown-user:${boardId}`);
/** The session id every pointer, stroke and lock on a shown board has in the class's view of it. */
export const shownSessionId = (boardId: string) => derivedUuid(`wb:shown-session:${boardId}`);

function shownElement(boardId: string, element: Element): Element {
  const user = shownUserId(boardId);
  return {
    ...element,
    createdBy: user,
    updatedBy: user,
    lock: element.lock ? { ...element.lock, userId: user, sessionId: shownSessionId(boardId) } : null,
  };
}

/** The board as a classmate knows it: its owner is the board's own id, its name the label. */
export function shownBoardInfo(board: BoardInfo): BoardInfo {
  const { lastDrewMsAgo: _teachersOnly, ...rest } = board;
  return { ...rest, ownerUserId: shownUserId(board.id), ownerName: board.shownLabel ?? 'Shown board' };
}

export function shownSnapshot(snapshot: BoardSnapshot): BoardSnapshot {
  const boardId = snapshot.board.id;
  return { ...snapshot, board: shownBoardInfo(snapshot.board), elements: snapshot.elements.map((e) => shownElement(boardId, e)) };
}

/** A board's event in the class's view; events that carry nobody's id pass unchanged. */
export function shownEvent(event: RoomEvent): RoomEvent {
  const boardId = event.roomId;
  switch (event.kind) {
    case 'element.created':
    case 'element.updated':
    case 'element.restored':
      return { ...event, payload: { ...event.payload, element: shownElement(boardId, event.payload.element) } };
    case 'element.deleted':
      return { ...event, payload: { ...event.payload, by: shownUserId(boardId) } };
    case 'lock.granted':
      return { ...event, payload: { ...event.payload, userId: shownUserId(boardId), sessionId: shownSessionId(boardId) } };
    case 'lock.released':
      return event;
    default:
      // Lesson events never travel a board's channel; should one, it carries nobody here.
      return { ...event, kind: event.kind, payload: redactIds(boardId, event.payload) } as RoomEvent;
  }
}

/** Any other payload: every field named like an id of a person replaced, recursively. */
function redactIds<T>(boardId: string, value: T): T {
  if (Array.isArray(value)) return value.map((v) => redactIds(boardId, v)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === 'userId' || key === 'by' || key === 'createdBy' || key === 'updatedBy') out[key] = shownUserId(boardId);
    else if (key === 'sessionId') out[key] = shownSessionId(boardId);
    else if (key === 'displayName' || key === 'name') out[key] = 'Shown board';
    else out[key] = redactIds(boardId, v);
  }
  return out as T;
}

/** A tick's batch of a shown board in the class's view: the same motion, nobody's ids. */
export function shownBatch(batch: BoardPointers): BoardPointers {
  const user = shownUserId(batch.boardId);
  const session = shownSessionId(batch.boardId);
  const out: BoardPointers = { boardId: batch.boardId, pointers: batch.pointers.map(([, , x, y]) => [session, user, x, y]) };
  if (batch.ink) out.ink = batch.ink.map((entry) => ({ ...entry, sessionId: session }));
  if (batch.drags) out.drags = batch.drags.map((drag) => ({ ...drag, sessionId: session, userId: user }));
  return out;
}

/**
 * The boards shown to the class now, as every node learns them from `activity.updated` (its own and
 * other nodes' events), so the publisher and the batches know which boards have a class's view.
 */
export class ShownBoards {
  private readonly byActivity = new Map<string, Set<string>>();

  activityUpdated(activityId: string, shown: readonly { boardId: string }[]): void {
    if (shown.length === 0) this.byActivity.delete(activityId);
    else this.byActivity.set(activityId, new Set(shown.map((s) => s.boardId)));
  }

  /** A board the store said is shown (a classmate's list or sync), known here before its next `activity.updated`. */
  learned(board: BoardInfo): void {
    if (board.shownLabel === null) return;
    let boards = this.byActivity.get(board.activityId);
    if (!boards) this.byActivity.set(board.activityId, (boards = new Set()));
    boards.add(board.id);
  }

  has(boardId: string): boolean {
    for (const boards of this.byActivity.values()) if (boards.has(boardId)) return true;
    return false;
  }
}
