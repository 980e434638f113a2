/**
 * The client side of activities and private boards (docs/boards.md): which boards this member may
 * see, each kept in sync from its own log (snapshot, then events in revision order; a gap means a
 * fresh `board.sync`, never a guess, as for the class board). The server decides who sees what;
 * this only mirrors it. Pure of React: the views read its store.
 *
 * The ephemeral stores (pointers, live ink, drags) change with every `board.pointers` batch: about
 * 600 a second at a teacher's grid of 30 drawing students, 30 of them in one burst each 50 ms
 * tick. They publish at most once per frame (`publishOnFrame`), with every board that changed since
 * the last; something that ends (a stroke whose element arrived, a drag whose lock went) publishes
 * at once, in the task that brought its element, so no frame shows both or neither.
 */
import {
  BOARD_POINTER_MS,
  ClientEvent,
  ErrorCode,
  INK_SYNC_MS,
  MAX_INK_POINTS_PER_PACKET,
  type InkPoint,
  type BoardPointers,
  type Activity,
  type ActivityStart,
  type BoardInfo,
  type BoardSyncMessage,
  type Element,
  type ElementShape,
  type ProtocolError,
  type RoomEvent,
} from '@wb/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';
import { randomUuid } from '../session/randomId.ts';
import { LiveInk, type LiveStroke } from '../sync/liveInk.ts';
import { BoardDrag } from './boardDrag.ts';

/** One board as this client holds it. */
export interface BoardView {
  info: BoardInfo;
  /** Null until its first sync arrived. */
  revision: number | null;
  elements: ReadonlyMap<string, Element>;
  /**
   * When its owner last changed an element on it (ms, local clock), for "last drew N s ago": from
   * the teacher's `board.list` (`lastDrewMsAgo`, so it survives a reload), then from the owner's
   * element events as they arrive (never the teacher's own comments).
   */
  lastDrewAt: number | null;
}

/** A board's elements in drawing order (z, then id). */
export const orderedElements = (view: BoardView): Element[] => [...view.elements.values()].sort((a, b) => a.z - b.z || (a.id < b.id ? -1 : 1));

export interface BoardsState {
  activity: Activity | null;
  boards: ReadonlyMap<string, BoardView>;
  /** This student's own board of the current activity. */
  mine: string | null;
  error: string | null;
  /** Per board, how many of our own strokes drawn here since the page loaded Undo can take back. */
  undoable: ReadonlyMap<string, number>;
}

/** Our strokes per board that Undo can take back, at most (I10: the oldest are forgotten first). */
export const MAX_UNDO = 200;

type Ack<T> = ({ ok: true } & T) | { ok: false; error: ProtocolError };

/** What the client needs from the connection: one acknowledged request. */
export interface BoardsPorts {
  request<T>(event: string, payload: unknown): Promise<Ack<T>>;
  /** A volatile packet (the pointer): no reply, droppable. */
  emit(event: string, payload: unknown): void;
}

/** Someone's pointer on a board, as last heard. */
export interface BoardPointer {
  userId: string;
  x: number;
  y: number;
  at: number;
}

/** Someone's drag on a board, as last heard from its `board.pointers` (the lock holder's move). */
export interface BoardDragPreview {
  userId: string;
  x: number;
  y: number;
  at: number;
}

/** A pointer not heard from for this long is gone from the board (ms). */
export const POINTER_STALE_MS = 3_000;

/** A rate-limited board sync is asked again after this long times its try (ms), at most this often. */
export const SYNC_RETRY_MS = 700;
const MAX_SYNC_RETRIES = 20;

/** A board's events held while its sync is in flight, at most. */
export const MAX_HELD_EVENTS = 200;

/**
 * Runs `publish` before the next frame is drawn: `requestAnimationFrame` in the browser
 * (`nextFrame`). Without one (tests of the rules) every change publishes at once.
 */
export type PublishOnFrame = (publish: () => void) => void;

/** A hidden tab draws no frames: its stores still publish, at most this late (ms). */
const HIDDEN_PUBLISH_MS = 250;

/** The browser's frame, or a timer in a tab that draws none (hidden), whichever comes first. */
export const nextFrame: PublishOnFrame = (publish) => {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    cancelAnimationFrame(frame);
    clearTimeout(timer);
    publish();
  };
  const frame = requestAnimationFrame(once);
  const timer = setTimeout(once, HIDDEN_PUBLISH_MS);
};

type Ephemeral = 'pointers' | 'ink' | 'drags';

const randomId = () => randomUuid().replaceAll('-', '');

export class BoardsClient {
  readonly store: StoreApi<BoardsState> = createStore<BoardsState>(() => ({ activity: null, boards: new Map(), mine: null, error: null, undoable: new Map() }));
  /** Ephemeral, apart from the boards so a moving pointer never re-renders a thumbnail. */
  readonly pointers: StoreApi<{ byBoard: ReadonlyMap<string, ReadonlyMap<string, BoardPointer>> }> = createStore(() => ({
    byBoard: new Map(),
  }));
  /**
   * Others' strokes while they are drawn, per board (live ink, the rules of `LiveInk`): apart from
   * the boards too, so a growing stroke redraws one layer over one board, never its elements.
   */
  readonly ink: StoreApi<{ byBoard: ReadonlyMap<string, ReadonlyMap<string, LiveStroke>> }> = createStore(() => ({
    byBoard: new Map(),
  }));
  /**
   * Others' drags in progress per board (element id -> where it is now), until the lock's release
   * or the element's next version arrives, or it is not heard of for POINTER_STALE_MS.
   */
  readonly drags: StoreApi<{ byBoard: ReadonlyMap<string, ReadonlyMap<string, BoardDragPreview>> }> = createStore(() => ({
    byBoard: new Map(),
  }));
  private readonly liveInk = new Map<string, LiveInk>();
  /** What the ephemeral stores hold, ahead of them by at most a frame: per board, mutated in place. */
  private readonly boardPointers = new Map<string, Map<string, BoardPointer>>();
  private readonly boardDrags = new Map<string, Map<string, BoardDragPreview>>();
  /** Boards whose pointers, ink or drags changed since the stores last published. */
  private readonly unpublished: Record<Ephemeral, Set<string>> = { pointers: new Set(), ink: new Set(), drags: new Set() };
  private publishPending = false;
  /** Our stroke being drawn: its points not sent yet, sent at most every INK_SYNC_MS. */
  private drawing: { boardId: string; strokeId: string; stroke: string; strokeWidth: number; sent: number; unsent: InkPoint[]; timer?: ReturnType<typeof setTimeout> } | null = null;
  private lastPointerAt = -Infinity;
  private pendingPointer: { boardId: string; x: number; y: number } | null = null;
  private pointerTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly syncing = new Set<string>();
  /** Rate-limited syncs asked again, per board (bounded: MAX_SYNC_RETRIES). */
  private readonly syncRetries = new Map<string, number>();
  /**
   * Events of a board that arrived while its sync was in flight: applied after it, those above its
   * revision (I1). Bounded (I10): past the bound the board simply syncs again.
   */
  private readonly held = new Map<string, RoomEvent[]>();

  /** Our drag of an element on a board (the select tool), under its drag lock. */
  readonly drag: BoardDrag;
  /** Per board, the ids of the strokes we drew there (acknowledged), oldest first: what Undo takes back. */
  private readonly ourStrokes = new Map<string, string[]>();

  constructor(
    private readonly ports: BoardsPorts,
    private readonly self: { lessonId: string; userId: string; role: 'teacher' | 'student' },
    private readonly now: () => number = Date.now,
    private readonly publishOnFrame: PublishOnFrame = (publish) => publish(),
  ) {
    this.drag = new BoardDrag(
      {
        request: (event, payload) => ports.request(event, payload),
        emit: (event, payload) => ports.emit(event, payload),
        randomId,
        every: (fn, ms) => {
          const timer = setInterval(fn, ms);
          return () => clearInterval(timer);
        },
      },
      now,
    );
  }

  /** After every (re)connect: subscriptions are per socket, so list and sync again. */
  async reconnected(): Promise<void> {
    const listed = await this.ports.request<{ activity: Activity | null; boards: BoardInfo[] }>(ClientEvent.BOARD_LIST, {});
    if (!listed.ok) return;
    this.store.setState({ activity: listed.activity });
    for (const board of listed.boards) this.know(board);
    if (this.self.role === 'student' && listed.activity && listed.activity.status !== 'ended') await this.openMine();
    for (const board of listed.boards) void this.sync(board.id);
  }

  /** A room event of the lesson or of one of the boards. */
  receiveEvent(event: RoomEvent): void {
    if (event.roomId === this.self.lessonId) {
      if (event.kind === 'activity.updated') this.activityChanged(event.payload);
      return;
    }
    const board = this.store.getState().boards.get(event.roomId);
    if (!board) return;
    // LI2: the durable stroke replaces its live ink (even before its board's sync is done).
    if (event.kind === 'element.created') this.endInk(event.roomId, event.payload.element.id);
    else if (event.kind === 'element.deleted') this.endInk(event.roomId, event.payload.elementId);
    if (this.syncing.has(event.roomId) || board.revision === null) {
      const held = this.held.get(event.roomId) ?? [];
      if (held.length < MAX_HELD_EVENTS) held.push(event);
      this.held.set(event.roomId, held);
      return;
    }
    if (event.revision <= board.revision) return;
    if (event.revision !== board.revision + 1) {
      void this.sync(event.roomId);
      return;
    }
    const elements = new Map(board.elements);
    let drew = false;
    switch (event.kind) {
      case 'element.created':
      case 'element.updated':
      case 'element.restored':
        elements.set(event.payload.element.id, event.payload.element);
        // "Last drew" is the owner's work, as the server counts it (lastDrewMsAgo): not a teacher's comment.
        drew = event.payload.element.updatedBy === board.info.ownerUserId;
        if (event.kind === 'element.updated') this.endDrag(event.roomId, event.payload.element.id);
        break;
      case 'element.deleted':
        elements.delete(event.payload.elementId);
        this.endDrag(event.roomId, event.payload.elementId);
        break;
      case 'lock.granted': {
        const e = elements.get(event.payload.elementId);
        const { generation, sessionId, userId } = event.payload;
        if (e) elements.set(e.id, { ...e, lock: { generation, sessionId, userId } });
        break;
      }
      case 'lock.released': {
        const e = elements.get(event.payload.elementId);
        if (e?.lock?.generation === event.payload.generation) elements.set(e.id, { ...e, lock: null });
        this.endDrag(event.roomId, event.payload.elementId);
        break;
      }
      default:
        break;
    }
    this.put({ ...board, revision: event.revision, elements, lastDrewAt: drew ? this.now() : board.lastDrewAt });
  }

  /** A batch of pointers on one board (never our own: the server sends them, we skip ours). */
  receivePointers(batch: BoardPointers): void {
    const now = this.now();
    let board = this.boardPointers.get(batch.boardId);
    if (!board) this.boardPointers.set(batch.boardId, (board = new Map()));
    for (const [sessionId, userId, x, y] of batch.pointers) if (userId !== this.self.userId) board.set(sessionId, { userId, x, y, at: now });
    for (const [sessionId, p] of board) if (now - p.at > POINTER_STALE_MS) board.delete(sessionId);
    this.changed('pointers', batch.boardId);
    if (batch.ink) this.receiveInk(batch, now);
    if (batch.drags?.length || this.boardDrags.get(batch.boardId)?.size) this.receiveDrags(batch, now);
    this.publishLater();
  }

  /** Others' drag moves on a board (our own are drawn from our drag); stale ones go. */
  private receiveDrags(batch: BoardPointers, now: number): void {
    let board = this.boardDrags.get(batch.boardId);
    if (!board) this.boardDrags.set(batch.boardId, (board = new Map()));
    for (const d of batch.drags ?? []) if (d.userId !== this.self.userId) board.set(d.elementId, { userId: d.userId, x: d.x, y: d.y, at: now });
    for (const [elementId, d] of board) if (now - d.at > POINTER_STALE_MS) board.delete(elementId);
    this.changed('drags', batch.boardId);
  }

  /** A drag ends (the element's next version, its deletion, the lock's release): at once. */
  private endDrag(boardId: string, elementId: string): void {
    if (!this.boardDrags.get(boardId)?.delete(elementId)) return;
    this.changed('drags', boardId);
    this.publishNow();
  }

  /** A batch's live ink: others' strokes grow; ours (this member's sessions) are drawn locally. */
  private receiveInk(batch: BoardPointers, now: number): void {
    const drawers = new Map(batch.pointers.map(([sessionId, userId]) => [sessionId, userId]));
    let live = this.liveInk.get(batch.boardId);
    if (!live) this.liveInk.set(batch.boardId, (live = new LiveInk()));
    let changed = live.expire(now);
    for (const entry of batch.ink ?? []) {
      const userId = drawers.get(entry.sessionId) ?? '';
      if (userId === this.self.userId) continue;
      changed = live.receive(entry, userId, now) || changed;
    }
    if (changed) this.changed('ink', batch.boardId);
  }

  /** LI2: a stroke's element arrived (or it was deleted): its live ink goes at once. */
  private endInk(boardId: string, strokeId: string): void {
    let live = this.liveInk.get(boardId);
    // Remembered even when nothing is live yet: a late entry must not bring the stroke back (LI2).
    if (!live) this.liveInk.set(boardId, (live = new LiveInk()));
    if (!live.finish(strokeId)) return;
    this.changed('ink', boardId);
    this.publishNow();
  }

  private changed(store: Ephemeral, boardId: string): void {
    this.unpublished[store].add(boardId);
  }

  private publishLater(): void {
    if (this.publishPending) return;
    this.publishPending = true;
    this.publishOnFrame(() => {
      if (this.publishPending) this.publishNow();
    });
  }

  /** One update of each ephemeral store that changed, with every board that changed since the last. */
  private publishNow(): void {
    this.publishPending = false;
    const { pointers, ink, drags } = this.unpublished;
    if (pointers.size > 0) {
      const byBoard = new Map(this.pointers.getState().byBoard);
      for (const id of pointers) byBoard.set(id, new Map(this.boardPointers.get(id)));
      pointers.clear();
      this.pointers.setState({ byBoard });
    }
    if (ink.size > 0) {
      const byBoard = new Map(this.ink.getState().byBoard);
      for (const id of ink) byBoard.set(id, new Map(this.liveInk.get(id)?.strokes));
      ink.clear();
      this.ink.setState({ byBoard });
    }
    if (drags.size > 0) {
      const byBoard = new Map(this.drags.getState().byBoard);
      for (const id of drags) byBoard.set(id, new Map(this.boardDrags.get(id)));
      drags.clear();
      this.drags.setState({ byBoard });
    }
  }

  /**
   * Our stroke on a board, point by point while drawn: sent as live ink to the board's audience
   * (its owner, the teachers) at most every INK_SYNC_MS. Returns the stroke's id, the id its
   * durable element is created with (`drawStroke`).
   */
  beginStroke(boardId: string, stroke: string, strokeWidth: number, first: InkPoint): string {
    this.cancelStroke();
    const strokeId = randomUuid();
    this.drawing = { boardId, strokeId, stroke, strokeWidth, sent: 0, unsent: [first] };
    this.flushInk();
    return strokeId;
  }

  extendStroke(point: InkPoint): void {
    const d = this.drawing;
    if (!d) return;
    d.unsent.push(point);
    if (d.timer === undefined) d.timer = setTimeout(() => this.flushInk(), INK_SYNC_MS);
  }

  /** Pointer-up: the rest of the ink with `end: up`; the durable element follows with the same id. */
  endStroke(): void {
    this.flushInk('up');
    this.drawing = null;
  }

  cancelStroke(): void {
    if (this.drawing) this.flushInk('cancel');
    this.drawing = null;
  }

  private flushInk(end?: 'up' | 'cancel'): void {
    const d = this.drawing;
    if (!d) return;
    if (d.timer !== undefined) clearTimeout(d.timer);
    d.timer = undefined;
    while (d.unsent.length > 0 || end) {
      const points = d.unsent.splice(0, MAX_INK_POINTS_PER_PACKET);
      const last = d.unsent.length === 0;
      this.ports.emit(ClientEvent.INK, {
        boardId: d.boardId,
        strokeId: d.strokeId,
        from: d.sent,
        points,
        stroke: d.stroke,
        strokeWidth: d.strokeWidth,
        ...(last && end ? { end } : {}),
      });
      d.sent += points.length;
      if (last) break;
    }
  }

  /** Our pointer on a board we may draw on, at most every BOARD_POINTER_MS (the latest wins). */
  sendPointer(boardId: string, x: number, y: number): void {
    this.pendingPointer = { boardId, x, y };
    if (this.pointerTimer !== undefined) return;
    const wait = Math.max(0, this.lastPointerAt + BOARD_POINTER_MS - this.now());
    this.pointerTimer = setTimeout(() => {
      this.pointerTimer = undefined;
      const p = this.pendingPointer;
      this.pendingPointer = null;
      if (!p) return;
      this.lastPointerAt = this.now();
      this.ports.emit(ClientEvent.BOARD_POINTER, p);
    }, wait);
  }

  /** Teachers: a student who joined later opened their board. */
  receiveOpened(board: BoardInfo): void {
    this.know(board);
    void this.sync(board.id);
  }

  async start(title: string, start: ActivityStart): Promise<ProtocolError | null> {
    const reply = await this.ports.request<{ activity: Activity; boards: BoardInfo[] }>(ClientEvent.ACTIVITY_START, {
      activityId: randomUuid(),
      title,
      start,
    });
    if (!reply.ok) return reply.error;
    this.store.setState({ activity: reply.activity });
    for (const board of reply.boards) {
      this.know(board);
      void this.sync(board.id);
    }
    return null;
  }

  async setStatus(status: Activity['status']): Promise<void> {
    const activity = this.store.getState().activity;
    if (!activity) return;
    const reply = await this.ports.request<{ activity: Activity }>(ClientEvent.ACTIVITY_STATUS, { activityId: activity.id, status });
    if (reply.ok) this.activityChanged(reply.activity);
  }

  async show(boardId: string, label: string | null): Promise<void> {
    const activity = this.store.getState().activity;
    if (!activity) return;
    const reply = await this.ports.request<{ activity: Activity }>(ClientEvent.BOARD_SHOW, { activityId: activity.id, boards: [{ boardId, label }] });
    if (reply.ok) this.activityChanged(reply.activity);
  }

  /** A stroke (or any shape) on a board; it appears when its event comes back. `id`: a live stroke's. */
  async draw(boardId: string, shape: ElementShape, id: string = randomUuid()): Promise<ProtocolError | null> {
    const reply = await this.ports.request<{ element: Element }>(ClientEvent.ELEMENT_CREATE, {
      requestId: randomId(),
      id,
      shape,
      boardId,
    });
    if (reply.ok) {
      const ours = this.ourStrokes.get(boardId) ?? [];
      ours.push(id);
      if (ours.length > MAX_UNDO) ours.shift();
      this.ourStrokes.set(boardId, ours);
      this.publishUndoable(boardId);
      return null;
    }
    this.store.setState({ error: reply.error.message });
    return reply.error;
  }

  /**
   * Takes back our newest stroke on the board that is still there: an `element.delete` the server
   * decides like any other (the owner's own element, while the activity runs). One deleted by
   * someone else meanwhile (`not_found`) is skipped for the one before it; any other refusal keeps
   * the stroke for a later Undo and says why.
   */
  async undo(boardId: string): Promise<ProtocolError | null> {
    const ours = this.ourStrokes.get(boardId);
    while (ours && ours.length > 0) {
      const id = ours.pop()!;
      this.publishUndoable(boardId);
      const reply = await this.ports.request<{ element: Element }>(ClientEvent.ELEMENT_DELETE, { requestId: randomId(), id, boardId });
      if (reply.ok) return null;
      if (reply.error.code === ErrorCode.NOT_FOUND) continue;
      ours.push(id);
      this.publishUndoable(boardId);
      this.store.setState({ error: reply.error.message });
      return reply.error;
    }
    return null;
  }

  private publishUndoable(boardId: string): void {
    const undoable = new Map(this.store.getState().undoable);
    undoable.set(boardId, this.ourStrokes.get(boardId)?.length ?? 0);
    this.store.setState({ undoable });
  }

  private activityChanged(activity: Activity): void {
    const before = this.store.getState().activity;
    this.store.setState({ activity });
    const isNew = before?.id !== activity.id;
    if (isNew) this.store.setState({ boards: new Map(), mine: null });
    if (this.self.role === 'student') {
      if (activity.status !== 'ended' && (isNew || !this.store.getState().mine)) void this.openMine();
      // Shown boards: sync the newly shown; forget the hidden ones that are not ours.
      const shown = new Set(activity.shown.map((s) => s.boardId));
      const boards = new Map(this.store.getState().boards);
      for (const id of [...boards.keys()]) if (!shown.has(id) && id !== this.store.getState().mine) boards.delete(id);
      this.store.setState({ boards });
      for (const id of shown) if (!boards.has(id)) void this.sync(id);
    } else if (isNew) {
      void this.reconnected();
    }
  }

  private async openMine(): Promise<void> {
    const reply = await this.ports.request<{ activity: Activity; board: BoardInfo }>(ClientEvent.BOARD_MINE, {});
    if (!reply.ok) return;
    this.know(reply.board);
    this.store.setState({ mine: reply.board.id });
    await this.sync(reply.board.id);
  }

  private know(info: BoardInfo): void {
    const existing = this.store.getState().boards.get(info.id);
    // The server's "how long ago" (a duration, I2) becomes a moment on our clock; a later event wins.
    const told = info.lastDrewMsAgo === undefined ? null : this.now() - info.lastDrewMsAgo;
    const lastDrewAt = Math.max(existing?.lastDrewAt ?? -Infinity, told ?? -Infinity);
    this.put({ info, revision: existing?.revision ?? null, elements: existing?.elements ?? new Map(), lastDrewAt: Number.isFinite(lastDrewAt) ? lastDrewAt : null });
  }

  private put(view: BoardView): void {
    const boards = new Map(this.store.getState().boards);
    boards.set(view.info.id, view);
    this.store.setState({ boards });
  }

  private retrySync(boardId: string): void {
    const tries = (this.syncRetries.get(boardId) ?? 0) + 1;
    if (tries > MAX_SYNC_RETRIES) return;
    this.syncRetries.set(boardId, tries);
    setTimeout(() => void this.sync(boardId), SYNC_RETRY_MS * tries);
  }

  /** One board's sync: a replay after the revision held, or a snapshot. One at a time per board. */
  async sync(boardId: string): Promise<void> {
    if (this.syncing.has(boardId)) return;
    this.syncing.add(boardId);
    this.held.delete(boardId);
    let synced = false;
    try {
      const held = this.store.getState().boards.get(boardId);
      const reply = await this.ports.request<{ sync: BoardSyncMessage }>(ClientEvent.BOARD_SYNC, {
        boardId,
        ...(held?.revision != null ? { lastRevision: held.revision } : {}),
      });
      if (!reply.ok) {
        // Over the sync budget (many boards at once): asked again shortly, a bounded number of times.
        if (reply.error.code === ErrorCode.RATE_LIMITED) this.retrySync(boardId);
        return;
      }
      this.syncRetries.delete(boardId);
      synced = true;
      const sync = reply.sync;
      if (sync.kind === 'snapshot') {
        const current = this.store.getState().boards.get(boardId);
        this.put({
          info: sync.snapshot.board,
          revision: sync.snapshot.revision,
          elements: new Map(sync.snapshot.elements.map((e) => [e.id, e])),
          lastDrewAt: current?.lastDrewAt ?? null,
        });
      } else {
        this.syncing.delete(boardId);
        for (const event of sync.events) this.receiveEvent(event);
      }
    } finally {
      this.syncing.delete(boardId);
      const held = this.held.get(boardId) ?? [];
      this.held.delete(boardId);
      const overflowed = held.length >= MAX_HELD_EVENTS;
      if (synced && overflowed) void this.sync(boardId);
      else if (synced) for (const event of held.sort((a, b) => a.revision - b.revision)) this.receiveEvent(event);
    }
  }
}
