/**
 * `BoardAccess` is this node's memory of which private boards each socket may draw on (learned when
 * the store subscribed it to them: its owner, a teacher) and whether each board's activity lets its
 * owner draw (running) or not (frozen, ended: kept from `activity.updated`), so a volatile packet
 * 30 times a second (a pointer, live ink) needs no database read. It only filters ephemera: the
 * durable stroke or drag is decided in the store's conditional write (I11). Who may *see* a board
 * is the channel the store's decision put the socket in (boardHandlers.ts, I12).
 */
import type { ActivityStatus, BoardInfo } from '@wb/protocol';
import { roomChannel } from './channels.ts';
import type { SocketSession } from './socketSession.ts';
import { LRUCache } from 'lru-cache';

/** Boards whose activity status this node remembers at most (I10): the oldest are forgotten first. */
const MAX_KNOWN_BOARDS = 100_000;

/** Why a packet on a board is refused: not this socket's to draw on, or its activity is not running. */
export type BoardDrawRefusal = 'forbidden' | 'frozen';

export class BoardAccess {
  /** The boards each socket may draw on (its own, every board for a teacher). */
  private readonly drawable = new WeakMap<SocketSession, Set<string>>();
  /** Each known board's activity, and each activity's status as last heard. */
  private readonly activityOf = new LRUCache<string, string>({ max: MAX_KNOWN_BOARDS });
  private readonly statusOf = new LRUCache<string, ActivityStatus>({ max: MAX_KNOWN_BOARDS });
  /** Boards known to be pages (no activity: drawable while their channel is held), each with its lesson. */
  private readonly pages = new LRUCache<string, string>({ max: MAX_KNOWN_BOARDS });

  /** The socket was subscribed to these boards by the store's decision. */
  subscribed(session: SocketSession, boards: readonly BoardInfo[]): void {
    let set = this.drawable.get(session);
    if (!set) this.drawable.set(session, (set = new Set()));
    for (const b of boards) {
      if (session.role === 'teacher' || b.ownerUserId === session.userId) set.add(b.id);
      this.activityOf.set(b.id, b.activityId);
      // A board's own policy is `look` exactly while its activity is frozen or ended.
      if (!this.statusOf.has(b.activityId)) this.statusOf.set(b.activityId, b.editPolicy === 'look' ? 'frozen' : 'running');
    }
  }

  /**
   * The socket read a page of its lesson (pageHandlers.ts): every member may draw on a page, and a
   * paced student leaves the channel of a page the class has left, which `mayDraw` checks.
   */
  subscribedPage(session: SocketSession, pageId: string): void {
    let set = this.drawable.get(session);
    if (!set) this.drawable.set(session, (set = new Set()));
    set.add(pageId);
    // `page.sync` read the page as one of the socket's lesson's (readablePage).
    this.pages.set(pageId, session.roomId);
  }

  /** `activity.updated` (this node's or another's): freezing or ending stops its students' ephemera. */
  activityChanged(activityId: string, status: ActivityStatus): void {
    this.statusOf.set(activityId, status);
  }

  /** Whether the board is a page of a lesson (as this node learnt it subscribing a socket to it). */
  isPage(boardId: string): boolean {
    return this.pages.has(boardId);
  }

  /**
   * The lesson the board is a page of, or null for a board not known as a page (a private board):
   * a page's pointers obey its lesson's cursor visibility (ephemeralFanout.ts), a private board's do not.
   */
  lessonOfPage(boardId: string): string | null {
    return this.pages.get(boardId) ?? null;
  }

  /**
   * Whether this socket may send ink, pointers or drags on the board now: it must have been
   * subscribed to it as its owner or a teacher, and still be in its channel (a hidden board's
   * class, a revoked member, leave it); a student only while the board's activity runs.
   */
  mayDraw(session: SocketSession, boardId: string): true | BoardDrawRefusal {
    if (!this.drawable.get(session)?.has(boardId) || !session.socket.rooms.has(roomChannel(boardId))) return 'forbidden';
    if (session.role === 'teacher' || this.pages.has(boardId)) return true;
    const activity = this.activityOf.get(boardId);
    return activity !== undefined && this.statusOf.get(activity) === 'running' ? true : 'frozen';
  }
}
