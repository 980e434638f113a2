/**
 * The ephemeral path of private boards (docs/boards.md, I12, I13): pointers, live ink and drag
 * previews on a board are batched per board and tick and sent to the board's Socket.IO channel
 * (`roomChannel(boardId)`) only, as one `board.pointers` batch. A socket is in that channel only
 * after the store said it may see the board (its owner, the lesson's teachers, the class while it
 * is shown), so nothing of a private board reaches another student before it is shown, on this
 * path or the durable one. Never stored; a dropped batch is superseded by the next. A socket in
 * several boards' channels (the teacher's grid) gets each one's batch of the tick: in one
 * `boards.pointers` message when its client asked for that in the handshake, else one message per
 * board; volatile packets are dropped only when its outgoing queue is full (boundedVolatile.ts).
 *
 * `BoardAccess` is this node's memory of which boards each socket may draw on (learned when the
 * store subscribed it) and whether each board's activity lets its owner draw (running) or not
 * (frozen, ended: kept from `activity.updated`), so a volatile packet 30 times a second needs no
 * database read. It only filters ephemera: the durable stroke or drag is decided in the store's
 * conditional write (I11).
 */
import { ServerEvent, type ActivityStatus, type BoardInfo, type BoardPointers, type DragEntry, type InkEntry } from '@wb/protocol';
import { roomChannel } from './channels.ts';
import { MAX_INK_POINTS_PER_TICK } from './ephemeralFanout.ts';
import type { SocketSession } from './socketSession.ts';
import type { WbServer } from './types.ts';

/** Boards with unsent ephemera in one tick at most (I10): a board's entries are one per session. */
const MAX_BOARDS_PER_TICK = 10_000;
/** Strokes with unsent ink on one board in a tick at most: its owner and a teacher or two draw on it. */
const MAX_BOARD_STROKES_PER_TICK = 16;
/** Drags in progress on one board in a tick at most. */
const MAX_BOARD_DRAGS_PER_TICK = 64;
/** Boards whose activity status this node remembers at most (I10): the oldest are forgotten first. */
const MAX_KNOWN_BOARDS = 100_000;

type Pointer = BoardPointers['pointers'][number];

interface BoardTick {
  pointers: Map<string, Pointer>;
  ink: Map<string, InkEntry>;
  drags: Map<string, DragEntry>;
}

export class BoardEphemera {
  private pending = new Map<string, BoardTick>();
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(private readonly io: WbServer, tickMs: number) {
    this.timer = setInterval(() => this.flush(), tickMs);
    this.timer.unref();
  }

  private board(boardId: string): BoardTick | null {
    let board = this.pending.get(boardId);
    if (!board) {
      if (this.pending.size >= MAX_BOARDS_PER_TICK) return null;
      this.pending.set(boardId, (board = { pointers: new Map(), ink: new Map(), drags: new Map() }));
    }
    return board;
  }

  /** The latest pointer of a session on a board (a newer one in the tick supersedes it). */
  putPointer(boardId: string, sessionId: string, userId: string, x: number, y: number): void {
    this.board(boardId)?.pointers.set(sessionId, [sessionId, userId, x, y]);
  }

  /** Live-ink points of a stroke, appended to its unsent ones (bounded); false when dropped. */
  pushInk(boardId: string, entry: InkEntry): boolean {
    const board = this.board(boardId);
    if (!board) return false;
    const pending = board.ink.get(entry.strokeId);
    if (pending) {
      // Another drawer's packet naming this stroke never joins it: the first sender keeps it.
      if (pending.sessionId !== entry.sessionId) return false;
      if (MAX_INK_POINTS_PER_TICK - pending.points.length < entry.points.length) return false;
      pending.points.push(...entry.points);
      if (entry.end) pending.end = entry.end;
      return true;
    }
    if (board.ink.size >= MAX_BOARD_STROKES_PER_TICK || entry.points.length > MAX_INK_POINTS_PER_TICK) return false;
    board.ink.set(entry.strokeId, { ...entry, points: [...entry.points] });
    return true;
  }

  /** A drag move under a current lock generation; a newer one for the element supersedes it. */
  pushDrag(boardId: string, entry: DragEntry): void {
    const board = this.board(boardId);
    if (!board || (board.drags.size >= MAX_BOARD_DRAGS_PER_TICK && !board.drags.has(entry.elementId))) return;
    board.drags.set(entry.elementId, entry);
  }

  /** The stroke's durable element was created or deleted: its unsent ink must not reappear. */
  forgetInk(boardId: string, strokeId: string): void {
    this.pending.get(boardId)?.ink.delete(strokeId);
  }

  /** The element's lock ended: a late move must not show. */
  forgetDrag(boardId: string, elementId: string): void {
    this.pending.get(boardId)?.drags.delete(elementId);
  }

  /**
   * Sends the tick's batches. A socket of this node that asked for `boards.pointers` and follows
   * two or more of the tick's boards (a teacher's grid) gets them all in one message, and is left
   * out of those boards' own broadcasts; every other socket, this node's or another's (through the
   * adapter), gets one `board.pointers` per board, encoded once for the whole channel.
   */
  flush(): void {
    const pending = this.pending;
    if (pending.size === 0) return;
    this.pending = new Map();
    const batches: BoardPointers[] = [];
    for (const [boardId, tick] of pending) {
      const batch: BoardPointers = { boardId, pointers: [...tick.pointers.values()] };
      if (tick.ink.size > 0) batch.ink = [...tick.ink.values()];
      if (tick.drags.size > 0) batch.drags = [...tick.drags.values()];
      batches.push(batch);
    }
    const grouped = batches.length > 1 ? this.groupedSockets(batches) : new Map<string, BoardPointers[]>();
    const leftOut = new Map<BoardPointers, string[]>();
    for (const [socketId, own] of grouped) {
      for (const batch of own) {
        const ids = leftOut.get(batch);
        if (ids) ids.push(socketId);
        else leftOut.set(batch, [socketId]);
      }
    }
    for (const batch of batches) {
      const channel = roomChannel(batch.boardId);
      const except = leftOut.get(batch);
      (except ? this.io.to(channel).except(except) : this.io.to(channel)).volatile.emit(ServerEvent.BOARD_POINTERS, batch);
    }
    const sockets = this.io.of('/').sockets;
    for (const [socketId, own] of grouped) sockets.get(socketId)?.volatile.emit(ServerEvent.BOARDS_POINTERS, { batches: own });
  }

  /** This node's sockets that read `boards.pointers` and follow two or more of the tick's boards, with those boards' batches. */
  private groupedSockets(batches: readonly BoardPointers[]): Map<string, BoardPointers[]> {
    const channels = this.io.of('/').adapter.rooms;
    const sockets = this.io.of('/').sockets;
    const following = new Map<string, BoardPointers[]>();
    for (const batch of batches) {
      const members = channels.get(roomChannel(batch.boardId));
      if (!members) continue;
      for (const socketId of members) {
        if (!sockets.get(socketId)?.data.groupsBoards) continue;
        let own = following.get(socketId);
        if (!own) following.set(socketId, (own = []));
        own.push(batch);
      }
    }
    for (const [socketId, own] of following) if (own.length < 2) following.delete(socketId);
    return following;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** Why a packet on a board is refused: not this socket's to draw on, or its activity is not running. */
export type BoardDrawRefusal = 'forbidden' | 'frozen';

export class BoardAccess {
  /** The boards each socket may draw on (its own, every board for a teacher). */
  private readonly drawable = new WeakMap<SocketSession, Set<string>>();
  /** Each known board's activity, and each activity's status as last heard. */
  private readonly activityOf = new Map<string, string>();
  private readonly statusOf = new Map<string, ActivityStatus>();

  /** The socket was subscribed to these boards by the store's decision. */
  subscribed(session: SocketSession, boards: readonly BoardInfo[]): void {
    let set = this.drawable.get(session);
    if (!set) this.drawable.set(session, (set = new Set()));
    for (const b of boards) {
      if (session.role === 'teacher' || b.ownerUserId === session.userId) set.add(b.id);
      this.activityOf.delete(b.id);
      this.activityOf.set(b.id, b.activityId);
      // A board's own policy is `look` exactly while its activity is frozen or ended.
      if (!this.statusOf.has(b.activityId)) this.statusOf.set(b.activityId, b.editPolicy === 'look' ? 'frozen' : 'running');
    }
    while (this.activityOf.size > MAX_KNOWN_BOARDS) {
      const oldest = this.activityOf.keys().next();
      if (oldest.done) break;
      this.activityOf.delete(oldest.value);
    }
    while (this.statusOf.size > MAX_KNOWN_BOARDS) {
      const oldest = this.statusOf.keys().next();
      if (oldest.done) break;
      this.statusOf.delete(oldest.value);
    }
  }

  /** `activity.updated` (this node's or another's): freezing or ending stops its students' ephemera. */
  activityChanged(activityId: string, status: ActivityStatus): void {
    this.statusOf.delete(activityId);
    this.statusOf.set(activityId, status);
  }

  /**
   * Whether this socket may send ink, pointers or drags on the board now: it must have been
   * subscribed to it as its owner or a teacher, and still be in its channel (a hidden board's
   * class, a revoked member, leave it); a student only while the board's activity runs.
   */
  mayDraw(session: SocketSession, boardId: string): true | BoardDrawRefusal {
    if (!this.drawable.get(session)?.has(boardId) || !session.socket.rooms.has(roomChannel(boardId))) return 'forbidden';
    if (session.role === 'teacher') return true;
    const activity = this.activityOf.get(boardId);
    return activity !== undefined && this.statusOf.get(activity) === 'running' ? true : 'frozen';
  }
}
