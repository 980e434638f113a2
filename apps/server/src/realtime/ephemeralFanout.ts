import type { BoardPointers, CursorBatch, CursorEntry, CursorVisibility, DragEntry, InkEntry, LaserEntry, Role, ViewportEntry } from '@wb/protocol';

/**
 * Live-ink points of one stroke kept for one tick at most: at 30 packets a second a drawer fills
 * two packets a tick, so this is reached only by a sender past the packet gate's burst (I10).
 */
export const MAX_INK_POINTS_PER_TICK = 256;
/** Strokes with unsent ink in one room's tick at most (31 drawers, each ending one and starting the next). */
export const MAX_INK_STROKES_PER_TICK = 128;
/** Strokes with unsent ink on one private board in a tick at most: its owner and a teacher or two draw on it. */
const MAX_BOARD_STROKES_PER_TICK = 16;
/** Drags in progress on one private board in a tick at most. */
const MAX_BOARD_DRAGS_PER_TICK = 64;
/** Private boards with unsent ephemera in one tick at most (I10): a board's entries are one per session. */
const MAX_BOARDS_PER_TICK = 10_000;

/**
 * Which board a packet moves on: the class board (the lesson's room: `cursors` batches, filtered
 * by cursor visibility, on the room's adaptive tick) or a private board or another page of the
 * lesson (docs/boards.md: one `board.pointers` batch a board and tick to the board's channel only,
 * I12; a page's pointers filtered by its lesson's cursor visibility as the class board's are).
 */
export type BoardKind = 'class' | 'private';

/**
 * One board's batch of a tick and who gets it: the board's whole audience (`board`: a private
 * board, or a page whose lesson shows students everyone's cursor), or, on a page whose lesson does
 * not, the lesson's teachers reading it (every pointer) or its students reading it (only the
 * pointers the lesson's cursor visibility lets them see).
 */
export type BoardBatch =
  | { readonly audience: 'board'; readonly batch: BoardPointers }
  | { readonly audience: 'teachers' | 'students'; readonly lessonId: string; readonly batch: BoardPointers };

/** How a tick's private-board and page batches leave this node (boardBatches.ts): all of the tick's at once. */
export interface BoardDelivery {
  readonly tickMs: number;
  /** The lesson a board is a page of (this node's `BoardAccess`, no database read), or null for a private board. */
  pageLesson(boardId: string): string | null;
  send(batches: BoardBatch[]): void;
}

/**
 * The ephemeral fan-out: per room, everything volatile that moves (cursors, the drag moves of
 * locked elements, live ink; other volatile motion, such as viewports, belongs here too) is
 * batched, never stored, and sent to the room once per tick as one `cursors` batch. Each room
 * keeps the latest position per session and per dragged element, and the latest laser point per
 * session and the teacher's latest view (for the followers only) (a newer packet supersedes an
 * unsent one), and the ink points appended per stroke since the last batch (joined, not
 * superseded: each packet carries new points). The tick is read at each scheduling, so it can follow the node's load (see
 * adaptiveTick.ts): about 80 Hz on a calm node, 30 Hz on a busy one. A room that has been quiet
 * for a whole tick flushes at once, so a lone cursor does not wait. Relaying each packet on its
 * own costs several times more per delivered update (see BENCHMARKS.md).
 *
 * Every board takes this one path, keyed by its id (docs/boards.md): a private board's or a page's
 * pointers, ink and drags (and a page's laser points) are kept, bounded, superseded and forgotten
 * by the same rules as the class board's,
 * and leave together on a fixed tick (`BoardDelivery`, BOARD_POINTER_MS) as one `board.pointers`
 * batch a board, so that a teacher's client following 30 boards can get them in one message.
 *
 * Cursors are filtered per receiver by the lesson's cursor visibility (I12, lessonSettings.ts):
 * under `everyone` one batch goes to the room; otherwise the teachers' channel gets every entry
 * and the students' channel only the teachers' entries (`teacher`) or none (`none`), so in the
 * default mode a room of n costs n + (n - 1) entries a tick instead of n². Drags, ink and laser
 * points reach everyone under every mode. While a room's mode is unknown its students get no one's
 * cursor. A page of the lesson takes the same rule, read at each of its batches (`BoardBatch`):
 * its teachers' batch and its students' batch instead of one. A private board does not: its
 * audience (its owner, the teachers, the class while shown) gets every pointer.
 */
export class EphemeralFanout {
  private readonly rooms = new Map<string, RoomEphemera>();
  /** Private boards with something unsent, flushed together on the board tick. */
  private readonly boardsDue = new Set<string>();
  private readonly boardTimer: ReturnType<typeof setInterval> | null;

  private readonly tickMs: () => number;

  constructor(
    tick: number | (() => number),
    private readonly send: (roomId: string, batch: CursorBatch, audience: CursorAudience) => void,
    private readonly now: () => number = () => performance.now(),
    /** The room's cursor visibility, or null while it is unknown (students then get no cursors). */
    private readonly visibility: (roomId: string) => CursorVisibility | null = () => 'everyone',
    /** Where private boards' batches go; without it, nothing of a private board is kept. */
    private readonly boards: BoardDelivery | null = null,
  ) {
    this.tickMs = typeof tick === 'number' ? () => tick : tick;
    this.boardTimer = boards ? setInterval(() => this.flushBoards(), boards.tickMs) : null;
    this.boardTimer?.unref();
  }

  /**
   * The latest position of a session (`entry[0]`) of user `userId`, whose role is `role`, on the
   * class board or on a private board (its pointer there).
   */
  pushCursor(roomId: string, userId: string, entry: CursorEntry, role: Role, kind: BoardKind = 'class'): void {
    const room = this.room(roomId, kind);
    if (!room) return;
    room.pending.set(entry[0], { userId, entry, teacher: role === 'teacher' });
    this.schedule(roomId, room);
  }

  /**
   * A laser point of a session (`entry[0]`) on the class board or on a page (its `board.pointers`
   * batch); a newer one in the tick supersedes it. Reaches everyone who reads the board.
   */
  pushLaser(roomId: string, userId: string, entry: LaserEntry, kind: BoardKind = 'class'): void {
    const room = this.room(roomId, kind);
    if (!room) return;
    room.laser.set(entry[0], { userId, entry });
    this.schedule(roomId, room);
  }

  /** The teacher's view for the room's followers; a newer one in the tick supersedes it. */
  pushViewport(roomId: string, entry: ViewportEntry): void {
    const room = this.room(roomId, 'class');
    if (!room) return;
    room.viewport = entry;
    this.schedule(roomId, room);
  }

  /** A drag move under a current lock generation; a newer one for the element supersedes it. */
  pushDrag(roomId: string, entry: DragEntry, kind: BoardKind = 'class'): void {
    const room = this.room(roomId, kind);
    if (!room || (kind === 'private' && room.drags.size >= MAX_BOARD_DRAGS_PER_TICK && !room.drags.has(entry.elementId))) return;
    room.drags.set(entry.elementId, entry);
    this.schedule(roomId, room);
  }

  /**
   * Live-ink points of a stroke: appended to the stroke's unsent ones (bounded), its end kept.
   * Returns false when the points were dropped (the room's or the stroke's tick is full).
   */
  pushInk(roomId: string, userId: string, entry: InkEntry, kind: BoardKind = 'class'): boolean {
    const room = this.room(roomId, kind);
    if (!room) return false;
    const pending = room.ink.get(entry.strokeId);
    if (pending) {
      // Another drawer's packet naming this stroke never joins it: the first sender keeps it.
      if (pending.entry.sessionId !== entry.sessionId) return false;
      const free = MAX_INK_POINTS_PER_TICK - pending.entry.points.length;
      if (free < entry.points.length) return false;
      pending.entry.points.push(...entry.points);
      if (entry.end) pending.entry.end = entry.end;
    } else {
      const strokes = kind === 'private' ? MAX_BOARD_STROKES_PER_TICK : MAX_INK_STROKES_PER_TICK;
      if (room.ink.size >= strokes || entry.points.length > MAX_INK_POINTS_PER_TICK) return false;
      room.ink.set(entry.strokeId, { userId, entry: { ...entry, points: [...entry.points] } });
    }
    this.schedule(roomId, room);
    return true;
  }

  /** Drops a stroke's unsent ink: its durable element was created or deleted (it must not reappear). */
  forgetInk(roomId: string, strokeId: string): void {
    this.rooms.get(roomId)?.ink.delete(strokeId);
  }

  /** Drops an element's unsent drag position: its lock ended (a late move must not show). */
  forgetDrag(roomId: string, elementId: string): void {
    this.rooms.get(roomId)?.drags.delete(elementId);
  }

  /** A board's unsent ephemera; null for a private board past the tick's bound (I10) or with no delivery. */
  private room(roomId: string, kind: BoardKind): RoomEphemera | null {
    let room = this.rooms.get(roomId);
    if (!room) {
      if (kind === 'private' && (!this.boards || this.boardsDue.size >= MAX_BOARDS_PER_TICK)) return null;
      room = { kind, pending: new Map(), drags: new Map(), ink: new Map(), laser: new Map(), viewport: null, timer: null, lastFlush: -Infinity };
      this.rooms.set(roomId, room);
    }
    return room;
  }

  private schedule(roomId: string, room: RoomEphemera): void {
    if (room.kind === 'private') {
      this.boardsDue.add(roomId);
      return;
    }
    if (room.timer) return;
    const sinceLast = this.now() - room.lastFlush;
    const tickMs = this.tickMs();
    if (sinceLast >= tickMs) {
      this.flush(roomId, room);
    } else {
      room.timer = setTimeout(() => {
        room.timer = null;
        this.flush(roomId, room);
      }, tickMs - sinceLast);
    }
  }

  /** Drops a session's unsent position: it expired, closed or was revoked (never revive it). */
  forgetSessions(roomId: string, sessionIds: Iterable<string>): void {
    const room = this.rooms.get(roomId);
    if (!room) return;
    for (const id of sessionIds) {
      room.pending.delete(id);
      room.laser.delete(id);
      if (room.viewport?.sessionId === id) room.viewport = null;
      for (const [elementId, drag] of room.drags) if (drag.sessionId === id) room.drags.delete(elementId);
      for (const [strokeId, ink] of room.ink) if (ink.entry.sessionId === id) room.ink.delete(strokeId);
    }
  }

  /** Drops every unsent position of a user in a room. */
  forgetUser(roomId: string, userId: string): void {
    const room = this.rooms.get(roomId);
    if (!room) return;
    for (const [sessionId, pending] of room.pending) if (pending.userId === userId) room.pending.delete(sessionId);
    for (const [sessionId, laser] of room.laser) if (laser.userId === userId) room.laser.delete(sessionId);
    for (const [elementId, drag] of room.drags) if (drag.userId === userId) room.drags.delete(elementId);
    for (const [strokeId, ink] of room.ink) if (ink.userId === userId) room.ink.delete(strokeId);
  }

  stop(): void {
    for (const room of this.rooms.values()) if (room.timer) clearTimeout(room.timer);
    if (this.boardTimer) clearInterval(this.boardTimer);
    this.rooms.clear();
    this.boardsDue.clear();
  }

  /**
   * The board tick: one `board.pointers` batch per private board or page that moved (pointers as
   * `[sessionId, userId, x, y]`, the tick's ink, drags and laser points), or on a page whose lesson
   * hides cursors from students, its teachers' and its students' batches; all handed over at once
   * so the delivery can group a tick's batches per socket. A board's state goes with its batch.
   */
  flushBoards(): void {
    if (this.boardsDue.size === 0 || !this.boards) return;
    const batches: BoardBatch[] = [];
    for (const boardId of this.boardsDue) {
      const room = this.rooms.get(boardId);
      this.rooms.delete(boardId);
      if (!room) continue;
      const motion: Omit<BoardPointers, 'boardId' | 'pointers'> = {};
      if (room.ink.size > 0) motion.ink = Array.from(room.ink.values(), (ink) => ink.entry);
      if (room.drags.size > 0) motion.drags = [...room.drags.values()];
      if (room.laser.size > 0) motion.laser = Array.from(room.laser.values(), (laser) => laser.entry);
      const pointers = (teachersOnly: boolean) => {
        const out: BoardPointers['pointers'] = [];
        for (const { userId, entry: [sessionId, x, y], teacher } of room.pending.values()) if (teacher || !teachersOnly) out.push([sessionId, userId, x, y]);
        return out;
      };
      const all: BoardPointers = { boardId, pointers: pointers(false), ...motion };
      // A page obeys its lesson's cursor visibility as the lesson's own board does (flush); a
      // private board's pointers reach its whole audience (its owner and the teachers).
      const lessonId = this.boards.pageLesson(boardId);
      const mode = lessonId === null ? 'everyone' : (this.visibility(lessonId) ?? 'none');
      if (lessonId === null || mode === 'everyone') {
        batches.push({ audience: 'board', batch: all });
        continue;
      }
      batches.push({ audience: 'teachers', lessonId, batch: all });
      const forStudents = mode === 'teacher' ? pointers(true) : [];
      const moving = room.ink.size > 0 || room.drags.size > 0 || room.laser.size > 0;
      if (forStudents.length > 0 || moving) batches.push({ audience: 'students', lessonId, batch: { boardId, pointers: forStudents, ...motion } });
    }
    this.boardsDue.clear();
    if (batches.length > 0) this.boards.send(batches);
  }

  private flush(roomId: string, room: RoomEphemera): void {
    room.lastFlush = this.now();
    if (room.pending.size === 0 && room.drags.size === 0 && room.ink.size === 0 && room.laser.size === 0 && !room.viewport) {
      // Nothing moved for a tick: forget the room so idle rooms cost nothing.
      this.rooms.delete(roomId);
      return;
    }
    const motion: Omit<CursorBatch, 'cursors'> = {};
    if (room.drags.size > 0) motion.drags = [...room.drags.values()];
    if (room.ink.size > 0) motion.ink = Array.from(room.ink.values(), (ink) => ink.entry);
    if (room.laser.size > 0) motion.laser = Array.from(room.laser.values(), (laser) => laser.entry);
    const moving = room.drags.size > 0 || room.ink.size > 0 || room.laser.size > 0;
    const all = Array.from(room.pending.values(), (pending) => pending.entry);
    const mode = this.visibility(roomId) ?? 'none';
    if (mode === 'everyone') {
      if (all.length > 0 || moving) this.send(roomId, { cursors: all, ...motion }, 'room');
    } else {
      const forStudents: CursorEntry[] = [];
      if (mode === 'teacher') for (const pending of room.pending.values()) if (pending.teacher) forStudents.push(pending.entry);
      if (all.length > 0 || moving) this.send(roomId, { cursors: all, ...motion }, 'teachers');
      if (forStudents.length > 0 || moving) this.send(roomId, { cursors: forStudents, ...motion }, 'students');
    }
    // The teacher's view goes to the students following it, and to no one else.
    if (room.viewport) this.send(roomId, { cursors: [], viewport: room.viewport }, 'followers');
    room.pending.clear();
    room.drags.clear();
    room.ink.clear();
    room.laser.clear();
    room.viewport = null;
  }
}

/** Who a batch goes to: the whole room, or the teachers' or students' sockets of it (channels.ts). */
export type CursorAudience = 'room' | 'teachers' | 'students' | 'followers';

/** One board's unsent positions. */
interface RoomEphemera {
  kind: BoardKind;
  /** By session id: the user is kept beside the entry (the wire entry has none) for forgetUser. */
  pending: Map<string, { userId: string; entry: CursorEntry; teacher: boolean }>;
  drags: Map<string, DragEntry>;
  /** By stroke id: the points appended since the last batch; the user kept for forgetUser. */
  ink: Map<string, { userId: string; entry: InkEntry }>;
  /** By session id: the latest laser point of the tick. */
  laser: Map<string, { userId: string; entry: LaserEntry }>;
  /** The teacher's latest view of the tick, for the followers. */
  viewport: ViewportEntry | null;
  timer: NodeJS.Timeout | null;
  lastFlush: number;
}
