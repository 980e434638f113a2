import {
  DEFAULT_LESSON_SETTINGS,
  ErrorCode,
  MAX_GROUP_LOCK_ELEMENTS,
  mayChangeElement,
  mayCreateElement,
  type Ack,
  type BreakLockRequest,
  type CreateElementRequest,
  type DeleteElementRequest,
  type EditPolicy,
  type Element,
  type ElementReply,
  type ElementShape,
  type InkUpdate,
  type LockAcquireManyRequest,
  type LockAcquireRequest,
  type LockGrant,
  type LockManyReply,
  type LockMove,
  type LockReleaseRequest,
  type LessonSettings,
  type LessonSettingsPatch,
  type LessonSettingsReply,
  type Member,
  type MemberPenRequest,
  type Paper,
  type PinElementRequest,
  type ProtocolError,
  type Role,
  type UpdateElementRequest,
} from '@wb/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';
import { randomId, randomUuid } from '../session/randomId.ts';
import type { RoomState } from '../sync/roomState.ts';
import type { DragTarget } from '../sync/syncEngine.ts';
import { EditQueue, isFinalRefusal, type EditOp, type EditRequest } from './editQueue.ts';
import { clampCoordinate, inLayerOrder, moveShapeTo, type Point } from './geometry.ts';
import { frameAfter, reshapeToFrame, resizeFrame, rotateFrame, shapeFrame, transformShape, type Frame, type ResizeHandle } from './transform.ts';
import { History, type Step } from './history.ts';
import { InkSender } from './inkSender.ts';
import { offlineText } from '../offline/offlineText.ts';
import type { PenSample } from './penStroke.ts';
import { refusalMessage } from '../i18n/errors.ts';
import { i18n } from '../i18n/i18n.ts';

/** What the editor needs from the socket. A rejected promise means "not delivered": try again later. */
export interface EditorTransport {
  isConnected(): boolean;
  createElement(request: CreateElementRequest): Promise<Ack<ElementReply>>;
  updateElement(request: UpdateElementRequest): Promise<Ack<ElementReply>>;
  deleteElement(request: DeleteElementRequest): Promise<Ack<ElementReply>>;
  acquireLock(request: LockAcquireRequest): Promise<Ack<{ grant: LockGrant }>>;
  /** A multi-selection drag: every lock or none (a `locked` refusal names the holder). */
  acquireLocks(request: LockAcquireManyRequest): Promise<Ack<LockManyReply>>;
  /** Volatile: dropped rather than queued when the socket is busy. */
  moveLocked(move: LockMove): void;
  /**
   * A group drag's moves, one per element, sent together: unacknowledged but not volatile (a
   * volatile packet emitted in the same task as another is dropped), and not sent while offline.
   */
  moveLockedGroup(moves: readonly LockMove[]): void;
  /** Live ink of the stroke being drawn: unacknowledged, dropped when the socket is not up. */
  sendInk(update: InkUpdate): void;
  releaseLock(request: LockReleaseRequest): Promise<Ack<ElementReply>>;
  pinElement(request: PinElementRequest): Promise<Ack<ElementReply>>;
  breakLock(request: BreakLockRequest): Promise<Ack<ElementReply>>;
  setLessonSettings(request: { requestId: string; settings: LessonSettingsPatch }): Promise<Ack<LessonSettingsReply>>;
  /** Teacher: this board's paper (the class board's is the lesson's `paper` setting; a page's its own). */
  setPaper(paper: Paper): Promise<Ack<unknown>>;
  setPen(request: MemberPenRequest): Promise<Ack<{ member: Member }>>;
}

/**
 * Where a board's unsynced edits are kept across a reload, a crash or a discarded tab
 * (offline/editKeeper.ts: IndexedDB, one record per lesson, board and session).
 */
export interface EditKeeper {
  /** The edits kept from before, oldest first. */
  load(): Promise<readonly EditOp[]>;
  /** The unsynced edits as they are now, in order; true once they are kept. */
  save(ops: readonly EditOp[]): Promise<boolean>;
}

/** What React reads: changes when an element, the selection or the edit status changes. */
export interface BoardView {
  readonly elements: ReadonlyMap<string, Element>;
  /** The same elements in drawing order. */
  readonly ordered: readonly Element[];
  readonly selection: ReadonlySet<string>;
  readonly unsynced: number;
  /**
   * Every unsynced edit is kept on this device (an `EditKeeper` wrote them): a reload, a crash or a
   * discarded tab loses none. False without a keeper, or while a write is pending or failed.
   */
  readonly kept: boolean;
  /**
   * Own edits are waiting on a server that is behind: one has been in flight longer than
   * SYNCING_AFTER_MS, or the last answer asked to send it again (`busy`, a timeout). The page shows
   * "Syncing" until an edit is acknowledged; nothing is lost meanwhile.
   */
  readonly syncing: boolean;
  readonly canUndo: boolean;
  readonly canRedo: boolean;
  /** The lesson's edit policy (the teacher's selector shows it; students' rights follow it). */
  readonly editPolicy: EditPolicy;
  /** All of the lesson's settings (cursor visibility and the students' laser beside the policy). */
  readonly settings: LessonSettings;
  /** The teacher muted this person's pen. */
  readonly penMuted: boolean;
  /** This person cannot draw at all: a look-only lesson or a muted pen (students). */
  readonly readOnly: boolean;
  /**
   * The selection gets resize and rotate handles: this person may change every selected element
   * (not read-only, none someone else's under `own`, none pinned for a student).
   */
  readonly handles: boolean;
  /** The last thing worth telling the person (a refused edit), with a serial so repeats show. */
  readonly notice: { readonly text: string; readonly serial: number } | null;
}

/** A drag in progress drawn ahead of the room state: where the element's (x, y) is now. */
export interface DragPreview {
  readonly x: number;
  readonly y: number;
  /** A resize or turn in progress (ours, or someone else's from its `frame`): the whole shape as it will be. */
  readonly shape?: ElementShape;
  readonly userId: string;
  readonly own: boolean;
}

/** Fast-changing: read through `subscribe` into the DOM, never through React renders. */
export interface MotionView {
  readonly previews: ReadonlyMap<string, DragPreview>;
}

/** `not_own`: under the "own work" policy, someone else made it. */
export type DragRefusal = 'locked' | 'pinned' | 'read_only' | 'not_own' | 'missing';

/** lock.move packets at most every 33 ms (~30 Hz), like cursors. */
export const LOCK_MOVE_MS = 33;
/**
 * While the pointer is held still the last move is repeated this often (ms), so the server keeps
 * extending the lock: a grant's first term is short (about 2 s) and only moves extend it.
 */
const LOCK_KEEPALIVE_MS = 500;
/** The same notice is not shown again within this long (ms): about as long as it stays up. */
const NOTICE_REPEAT_MS = 4_000;
/** After a retryable failure the queue is tried again after this long (ms). */
const RETRY_MS = 1_000;
/** An edit in flight this long (ms) shows the board as syncing: the server is behind. */
export const SYNCING_AFTER_MS = 1_000;

/**
 * What a drag does: moves the elements, or changes their frame from a handle (resize, rotate).
 * `frame` is the selection's frame at pointer-down (transform.ts).
 */
export type DragMode =
  | { readonly kind: 'move' }
  | { readonly kind: 'resize'; readonly handle: ResizeHandle; readonly frame: Frame }
  | { readonly kind: 'rotate'; readonly frame: Frame };

const MOVE: DragMode = { kind: 'move' };

/** One element of a drag (a multi-selection drags several, each under its own lock). */
interface DragItem {
  readonly elementId: string;
  readonly origin: Point;
  readonly before: ElementShape;
  /** The lock's generation once granted. */
  generation: number | null;
}

/** Shared by every phase: the elements, the mode, where the pointer went down and is now, shift. */
interface DragBase {
  items: DragItem[];
  mode: DragMode;
  grab: Point;
  pointer: Point;
  /** Shift held: a resize keeps proportions, a turn snaps to 15°. */
  shift: boolean;
}

type OwnDrag =
  | (DragBase & { phase: 'acquiring'; requestId: string; ended: boolean })
  | (DragBase & { phase: 'dragging'; moved: boolean })
  /** Offline or teacher-less fallback: no lock to take, so the drop becomes an ordinary edit. */
  | (DragBase & { phase: 'local'; moved: boolean });

/**
 * The shell of drawing: own edits through the optimistic queue, undo/redo, drag locks and the
 * teacher's controls. It holds no React; React and the board layers subscribe to its stores.
 */
export class BoardEditor {
  readonly board: StoreApi<BoardView>;
  readonly motion: StoreApi<MotionView>;
  private readonly queue: EditQueue;
  private readonly history = new History();
  private confirmed: RoomState | null = null;
  private remoteDrags: ReadonlyMap<string, DragTarget> = new Map();
  /**
   * Others' resizes and turns as last drawn, by element: kept while neither the packet nor the
   * element changed, so a batch that moves something else does not rebuild their markup.
   */
  private remoteShapes = new Map<string, { readonly target: DragTarget; readonly element: Element; readonly shape: ElementShape }>();
  private drag: OwnDrag | null = null;
  /** Releases in flight: their previews stay until the answer, so the elements do not jump back. */
  private readonly releasing = new Map<string, Point & { shape?: ElementShape }>();
  private sending = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private slowTimer: ReturnType<typeof setTimeout> | undefined;
  /** The server is behind our edits (see BoardView.syncing). */
  private behind = false;
  private moveTimer: ReturnType<typeof setTimeout> | undefined;
  private keepaliveTimer: ReturnType<typeof setInterval> | undefined;
  private lastMoveAt = 0;
  private noticeSerial = 0;
  private lastNoticeAt = 0;
  private stopped = false;
  private readonly ink: InkSender;
  /** Until the kept edits are back in the queue nothing is sent or written (they go first). */
  private restoring: boolean;
  /** The queue's `pendingChanges` last written to the keeper, and whether a write is under way. */
  private keptChanges = -1;
  private keeping = false;
  private keptOk = false;

  constructor(
    private readonly self: { userId: string; sessionId: string; role: Role },
    private readonly transport: EditorTransport,
    private readonly keeper: EditKeeper | null = null,
    /**
     * A private board: what the teacher made on it is their feedback, never the student's to change,
     * drawn above the owner's work (`inLayerOrder`; `ownerUserId` null where the owner is not known).
     */
    private readonly place: { readonly privateBoard: boolean; readonly ownerUserId?: string | null } = { privateBoard: false },
  ) {
    this.queue = new EditQueue(self.userId);
    this.restoring = keeper !== null;
    this.board = createStore<BoardView>(() => ({
      elements: new Map(),
      ordered: [],
      selection: new Set(),
      unsynced: 0,
      kept: false,
      syncing: false,
      canUndo: false,
      canRedo: false,
      editPolicy: 'own',
      settings: DEFAULT_LESSON_SETTINGS,
      penMuted: false,
      readOnly: false,
      handles: false,
      notice: null,
    }));
    this.motion = createStore<MotionView>(() => ({ previews: new Map() }));
    this.ink = new InkSender({
      send: (update) => transport.sendInk(update),
      now: () => Date.now(),
      later: (fn, ms) => {
        const timer = setTimeout(fn, ms);
        return () => clearTimeout(timer);
      },
    });
    if (keeper) void this.restoreKept(keeper);
  }

  /** The edits kept before a reload go back into the queue, ahead of any made since, and are sent. */
  private async restoreKept(keeper: EditKeeper): Promise<void> {
    // A keeper that cannot read brings nothing back; the tab's own queue goes on.
    const ops: readonly EditOp[] = await keeper.load().catch(() => []);
    this.restoring = false;
    if (this.stopped) return;
    this.queue.restore(ops);
    if (ops.length > 0) this.notify(offlineText.restored(ops.length));
    this.publishBoard();
    this.pump();
  }

  /** Writes the unsynced edits to the keeper when they changed; one write at a time, the latest wins. */
  private keep(): void {
    const keeper = this.keeper;
    if (!keeper || this.restoring || this.keeping || this.queue.pendingChanges === this.keptChanges) return;
    const changes = this.queue.pendingChanges;
    this.keeping = true;
    this.keptOk = false;
    void keeper.save(this.queue.pending()).then(
      (ok) => this.kept(changes, ok),
      () => this.kept(changes, false),
    );
  }

  private kept(changes: number, ok: boolean): void {
    this.keeping = false;
    // A failed write is tried again at the next change, not in a loop.
    this.keptChanges = changes;
    this.keptOk = ok;
    if (this.stopped) return;
    // Changed meanwhile: `publishBoard` writes the latest list again.
    this.publishBoard();
  }

  get isTeacher(): boolean {
    return this.self.role === 'teacher';
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.slowTimer);
    this.ink.end('cancel');
    clearTimeout(this.retryTimer);
    clearTimeout(this.moveTimer);
    clearInterval(this.keepaliveTimer);
  }

  // ------------------------------------------------------------------ inputs from the room client

  /** The confirmed room state changed (an event, a snapshot). */
  stateChanged(state: RoomState | null): void {
    this.confirmed = state;
    if (state) this.queue.settle(state);
    // Our own drag ends if the lock we were granted is gone (broken by the teacher, expired).
    const drag = this.drag;
    if (drag?.phase === 'dragging' && state) {
      for (const item of drag.items) {
        const lock = state.elements.get(item.elementId)?.lock;
        if (lock && (lock.sessionId !== this.self.sessionId || lock.generation !== item.generation)) {
          this.abandonDrag(i18n._('editor.lockTaken'));
          break;
        } else if (!state.elements.has(item.elementId)) {
          this.abandonDrag(i18n._('editor.movedDeleted'));
          break;
        }
      }
    }
    this.publishBoard();
    this.publishMotion();
  }

  dragsChanged(drags: ReadonlyMap<string, DragTarget>): void {
    this.remoteDrags = drags;
    this.publishMotion();
  }

  /** The state is live on a socket: send what waited. */
  connectionLive(): void {
    this.pump();
  }

  /** The socket closed: an in-flight edit's fate is unknown, so it goes again (same request id). */
  connectionLost(): void {
    this.queue.requeueInFlight();
    this.sending = false;
    // A lock dies with our presence; the drop becomes an ordinary edit instead.
    const drag = this.drag;
    if (drag && drag.phase !== 'local') {
      clearInterval(this.keepaliveTimer);
      this.drag = { phase: 'local', items: drag.items, mode: drag.mode, grab: drag.grab, pointer: drag.pointer, shift: drag.shift, moved: drag.phase === 'dragging' ? drag.moved : false };
    }
    this.publishBoard();
  }

  // ------------------------------------------------------------------ edits

  select(ids: Iterable<string>): void {
    const selection = new Set(ids);
    this.board.setState({ selection, handles: this.mayReshape(selection, this.board.getState().elements) });
  }

  /** Whether every selected element is this person's to resize or turn (BoardView.handles). */
  private mayReshape(selection: ReadonlySet<string>, elements: ReadonlyMap<string, Element>): boolean {
    for (const id of selection) {
      const element = elements.get(id);
      if (!element) continue;
      const refusal = this.refusalFor(element);
      if (refusal === 'read_only' || refusal === 'not_own' || refusal === 'pinned') return false;
    }
    return true;
  }

  /**
   * Pointer-down with the pen: the others see the stroke as it is drawn (live ink). Returns the
   * stroke's id, which its element gets at `endStroke`; null when the board is read-only.
   */
  beginStroke(first: PenSample, style: { stroke: string; strokeWidth: number }): string | null {
    if (this.readOnly()) return null;
    const id = randomUuid();
    this.ink.begin(id, style, first);
    return id;
  }

  /** More samples of the stroke being drawn. */
  extendStroke(samples: readonly PenSample[]): void {
    this.ink.add(samples);
  }

  /**
   * Pointer-up: the live stroke's last points go out, then its element is created with the same
   * id, so every screen replaces the live stroke by it. A null shape cancels the stroke.
   */
  endStroke(shape: ElementShape | null): string | null {
    const id = this.ink.strokeId;
    if (!shape || !id) {
      this.ink.end('cancel');
      return null;
    }
    this.ink.end('up');
    return this.create(shape, id);
  }

  /** Adds a new element (with `id` when given); returns its id, or null when the board is read-only or the queue full. */
  create(shape: ElementShape, id: string = randomUuid()): string | null {
    if (this.readOnly()) return this.refuseReadOnly();
    if (!this.enqueue({ kind: 'create', requestId: randomId(), id, shape })) return null;
    this.history.record([{ id, before: null, after: shape }]);
    this.publishBoard();
    return id;
  }

  /**
   * Adds several elements as one undoable step (a paste, a duplicate), each through the normal
   * create path (the server's rules apply to each), and selects them. Returns their ids; none
   * when the board is read-only. Stops at a full edit queue, keeping what was queued.
   */
  createMany(shapes: readonly ElementShape[]): string[] {
    if (shapes.length === 0) return [];
    if (this.readOnly()) {
      this.refuseReadOnly();
      return [];
    }
    const recorded: Array<{ id: string; before: null; after: ElementShape }> = [];
    for (const shape of shapes) {
      const id = randomUuid();
      if (!this.enqueue({ kind: 'create', requestId: randomId(), id, shape })) break;
      recorded.push({ id, before: null, after: shape });
    }
    this.history.record(recorded);
    this.publishBoard();
    this.select(recorded.map((r) => r.id));
    return recorded.map((r) => r.id);
  }

  /** Tells the person something worth knowing (a clipboard that could not be read). */
  tell(text: string): void {
    this.notifyOnce(text);
  }

  /** Changes elements' shapes (style, text, a move without a lock). */
  update(changes: ReadonlyArray<{ id: string; shape: ElementShape }>): void {
    if (this.readOnly()) {
      this.refuseReadOnly();
      return;
    }
    const recorded: Array<{ id: string; before: ElementShape; after: ElementShape }> = [];
    for (const { id, shape } of changes) {
      const current = this.view().get(id);
      if (!current || this.refusalFor(current)) continue;
      if (this.applyUpdate(id, shape)) recorded.push({ id, before: current.shape, after: shape });
    }
    this.history.record(recorded);
    this.publishBoard();
  }

  /** Deletes elements; `erased`: the eraser took them (the teacher's history says so). */
  delete(ids: Iterable<string>, options: { erased?: boolean } = {}): void {
    if (this.readOnly()) {
      this.refuseReadOnly();
      return;
    }
    const recorded: Array<{ id: string; before: ElementShape; after: null }> = [];
    for (const id of ids) {
      const current = this.view().get(id);
      if (!current) continue;
      const refusal = this.refusalFor(current);
      if (refusal) {
        this.explainRefusal(current, refusal);
        continue;
      }
      const op = { kind: 'delete', requestId: randomId(), id, ...(options.erased ? { erased: true } : {}) } as const;
      if (this.enqueue(op)) recorded.push({ id, before: current.shape, after: null });
    }
    this.history.record(recorded);
    const selection = new Set(this.board.getState().selection);
    for (const r of recorded) selection.delete(r.id);
    this.board.setState({ selection });
    this.publishBoard();
  }

  undo(): void {
    if (this.readOnly()) return;
    const steps = this.history.undo();
    if (steps) this.perform(steps);
  }

  redo(): void {
    if (this.readOnly()) return;
    const steps = this.history.redo();
    if (steps) this.perform(steps);
  }

  /** Why this person cannot move or change the element right now, or null. */
  refusalFor(element: Element): DragRefusal | null {
    if (this.readOnly()) return 'read_only';
    if (!mayChangeElement({ ...this.rights(), userId: this.self.userId, createdBy: element.createdBy })) return 'not_own';
    // The teacher's feedback on a student's board, whatever the board's policy (the server: feedback_locked).
    if (this.isFeedback(element)) return 'not_own';
    if (element.pinned && !this.isTeacher) return 'pinned';
    if (element.lock && element.lock.sessionId !== this.self.sessionId) return 'locked';
    return null;
  }

  // ------------------------------------------------------------------ drags under a lock

  /**
   * Pointer-down on an element, or on a handle of the selection (`mode` resize or rotate: an edit
   * under the same drag locks as a move). Refused at once, without a request, when someone else
   * holds it, it is pinned or the board is read-only: no flicker, no jump. Otherwise the lock is
   * asked for; the element moves only once it is granted.
   */
  beginDrag(elementIds: string | readonly string[], pointer: Point, mode: DragMode = MOVE): DragRefusal | null {
    const ids = typeof elementIds === 'string' ? [elementIds] : [...new Set(elementIds)].slice(0, MAX_GROUP_LOCK_ELEMENTS);
    const items: DragItem[] = [];
    for (const elementId of ids) {
      const element = this.view().get(elementId);
      if (!element) return 'missing';
      const refusal = this.refusalFor(element);
      if (refusal) return refusal;
      items.push({ elementId, origin: { x: element.shape.x, y: element.shape.y }, before: element.shape, generation: null });
    }
    if (items.length === 0) return 'missing';
    this.cancelDragTimers();
    if (!this.transport.isConnected()) {
      this.drag = { phase: 'local', items, mode, grab: pointer, pointer, shift: false, moved: false };
      return null;
    }
    const requestId = randomId();
    this.drag = { phase: 'acquiring', items, mode, requestId, grab: pointer, pointer, shift: false, ended: false };
    // One element: the single lock. Several: all of them in one request, or none (the group lock).
    const asked: Promise<Ack<LockManyReply>> =
      items.length === 1 && items[0]
        ? this.transport.acquireLock({ requestId, elementId: items[0].elementId }).then((r) => (r.ok ? { ok: true as const, grants: [r.grant] } : r))
        : this.transport.acquireLocks({ requestId, elementIds: items.map((i) => i.elementId) });
    asked.then(
      (reply) => this.onGrant(requestId, reply),
      () => this.onGrant(requestId, null),
    );
    return null;
  }

  /** The pointer moved; `shift`: keep proportions (resize) or snap to 15° (rotate). */
  moveDrag(pointer: Point, shift = false): void {
    const drag = this.drag;
    if (!drag) return;
    drag.pointer = pointer;
    drag.shift = shift;
    if (drag.phase === 'acquiring') return;
    drag.moved = drag.moved || pointer.x !== drag.grab.x || pointer.y !== drag.grab.y;
    this.publishMotion();
    if (drag.phase === 'dragging') this.scheduleMove();
  }

  /** Shift pressed or let go mid-drag, the pointer still: a resize or turn follows at once. */
  setDragShift(shift: boolean): void {
    const drag = this.drag;
    if (!drag || drag.shift === shift) return;
    drag.shift = shift;
    if (drag.mode.kind !== 'move') this.publishMotion();
  }

  endDrag(): void {
    const drag = this.drag;
    if (!drag) return;
    if (drag.phase === 'acquiring') {
      drag.ended = true; // finished when the grant (or refusal) arrives
      return;
    }
    this.drag = null;
    this.cancelDragTimers();
    if (drag.phase === 'local') {
      const changes: Array<{ id: string; shape: ElementShape }> = [];
      for (const item of drag.items) {
        const element = this.view().get(item.elementId);
        if (drag.moved && element) changes.push({ id: item.elementId, shape: this.shapeAfter(drag, item, element.shape) });
      }
      if (changes.length > 0) this.update(changes);
      this.publishMotion();
      return;
    }
    for (const item of drag.items) {
      const element = this.view().get(item.elementId);
      if (item.generation !== null) this.release(item.elementId, item.generation, drag.moved && element ? this.shapeAfter(drag, item, element.shape) : undefined, item.before, drag.mode.kind !== 'move');
    }
  }

  /** The elements being dragged by us (the layer outlines them in our colour). */
  get draggingIds(): readonly string[] {
    return this.drag?.items.map((i) => i.elementId) ?? [];
  }

  /**
   * Arrow keys: moves the selection by (dx, dy) board units as an ordinary versioned edit (no lock:
   * the server refuses it while someone else holds one). Elements this person may not change stay.
   */
  nudgeSelection(dx: number, dy: number): void {
    const changes: Array<{ id: string; shape: ElementShape }> = [];
    for (const id of this.board.getState().selection) {
      const element = this.view().get(id);
      if (!element || this.refusalFor(element)) continue;
      changes.push({ id, shape: moveShapeTo(element.shape, clampCoordinate(element.shape.x + dx), clampCoordinate(element.shape.y + dy)) });
    }
    if (changes.length > 0) this.update(changes);
  }

  // ------------------------------------------------------------------ teacher controls

  async setPinned(elementId: string, pinned: boolean): Promise<void> {
    await this.simpleRequest(() => this.transport.pinElement({ requestId: randomId(), elementId, pinned }));
  }

  async breakLock(elementId: string): Promise<void> {
    await this.simpleRequest(() => this.transport.breakLock({ requestId: randomId(), elementId }));
  }

  async setEditPolicy(editPolicy: EditPolicy): Promise<void> {
    await this.simpleRequest(() => this.transport.setLessonSettings({ requestId: randomId(), settings: { editPolicy } }));
  }

  /** Teacher: change some of the lesson's settings (cursor visibility, the students' laser, …). */
  async setLessonSettings(settings: LessonSettingsPatch): Promise<void> {
    await this.simpleRequest(() => this.transport.setLessonSettings({ requestId: randomId(), settings }));
  }

  /** Teacher: the paper of this board (the lesson's setting on the class board, the page's own on a page). */
  async setPaper(paper: Paper): Promise<void> {
    await this.simpleRequest(() => this.transport.setPaper(paper));
  }

  async setPenMuted(userId: string, muted: boolean): Promise<void> {
    await this.simpleRequest(() => this.transport.setPen({ requestId: randomId(), userId, muted }));
  }

  /** The name of the member who made an element ("made by …" on a refused attempt, the teacher's selection). */
  authorOf(element: Element): string | null {
    return this.confirmed?.members.get(element.createdBy)?.displayName ?? null;
  }

  /**
   * Tells the person why they cannot change this element: under "own work" who made it, so a
   * student sees "Made by Ms Rivera" on the attempt (the server would refuse it the same way).
   */
  explainRefusal(element: Element, refusal: DragRefusal): void {
    if (refusal === 'not_own' && this.isFeedback(element)) this.notifyOnce(refusalMessage('feedback_locked'));
    else if (refusal === 'not_own') {
      const author = this.authorOf(element);
      this.notifyOnce(author ? i18n._('editor.madeBy', { name: author, rule: i18n._('policy.notOwn') }) : i18n._('policy.notOwn'));
    } else if (refusal === 'pinned') this.notifyOnce(i18n._('forbidden.pinned'));
    else if (refusal === 'read_only') this.refuseReadOnly();
  }

  // ------------------------------------------------------------------ internals

  /** Someone else's element on this student's own private board: the teacher's feedback. */
  private isFeedback(element: Element): boolean {
    return this.place.privateBoard && this.self.role === 'student' && element.createdBy !== this.self.userId;
  }

  private view(): ReadonlyMap<string, Element> {
    return this.board.getState().elements;
  }

  /** This person's rights as the room state says: the server decides, this only mirrors it. */
  private rights(): { role: Role; policy: EditPolicy; penMuted: boolean } {
    const state = this.confirmed;
    return {
      role: this.self.role,
      policy: state?.room.settings.editPolicy ?? 'own',
      penMuted: state?.members.get(this.self.userId)?.penMuted ?? false,
    };
  }

  private readOnly(): boolean {
    return !mayCreateElement(this.rights());
  }

  private refuseReadOnly(): null {
    this.notifyOnce(this.rights().penMuted ? i18n._('policy.penMuted') : i18n._('policy.lookOnly'));
    return null;
  }

  /** A notice not repeated while it is still showing (an eraser sweeps many times over one element). */
  private notifyOnce(text: string): void {
    const shown = this.board.getState().notice;
    if (shown?.text === text && Date.now() - this.lastNoticeAt < NOTICE_REPEAT_MS) return;
    this.lastNoticeAt = Date.now();
    this.notify(text);
  }

  private applyUpdate(id: string, shape: ElementShape): boolean {
    const confirmed = this.confirmed;
    if (!confirmed) return false;
    const base = this.queue.baseFor(id, confirmed);
    if (base === null) return false;
    return this.enqueue({ kind: 'update', requestId: randomId(), id, shape, base });
  }

  private enqueue(op: Parameters<EditQueue['enqueue']>[0]): boolean {
    if (!this.queue.enqueue(op)) {
      this.notify(i18n._('editor.tooManyUnsynced'));
      return false;
    }
    this.pump();
    return true;
  }

  private perform(steps: readonly Step[]): void {
    for (const step of steps) {
      const current = this.view().get(step.id);
      if (step.to === null) {
        if (current && !this.refusalFor(current)) this.enqueue({ kind: 'delete', requestId: randomId(), id: step.id });
      } else if (!current) {
        // Deleted (by us or anyone): deletions are final, so it comes back as a new element.
        const id = randomUuid();
        if (this.enqueue({ kind: 'create', requestId: randomId(), id, shape: step.to })) this.history.alias(step.id, id);
      } else if (!this.refusalFor(current) && current.shape.kind === step.to.kind) {
        this.applyUpdate(step.id, step.to);
      }
    }
    this.publishBoard();
  }

  /** Sends queued edits one at a time while connected. */
  private pump(): void {
    if (this.sending || this.stopped || this.restoring || !this.transport.isConnected()) return;
    const request = this.queue.nextToSend();
    if (!request) return;
    this.sending = true;
    clearTimeout(this.slowTimer);
    this.slowTimer = setTimeout(() => {
      this.behind = true;
      this.publishBoard();
    }, SYNCING_AFTER_MS);
    this.publishBoard();
    this.send(request).then(
      (reply) => this.onEditReply(request, reply),
      () => this.onEditReply(request, null),
    );
  }

  private send(request: EditRequest): Promise<Ack<ElementReply>> {
    switch (request.kind) {
      case 'create':
        return this.transport.createElement({ requestId: request.requestId, id: request.id, shape: request.shape });
      case 'update':
        return this.transport.updateElement({ requestId: request.requestId, id: request.id, baseVersion: request.baseVersion, shape: request.shape });
      case 'delete':
        return this.transport.deleteElement({ requestId: request.requestId, id: request.id, ...(request.erased ? { erased: true } : {}) });
    }
  }

  private onEditReply(request: EditRequest, reply: Ack<ElementReply> | null): void {
    this.sending = false;
    clearTimeout(this.slowTimer);
    if (this.stopped) return;
    // Any answer but "send it again" means the server is keeping up with us.
    this.behind = reply === null || (!reply.ok && !isFinalRefusal(reply.error.code));
    if (reply?.ok) {
      this.queue.acknowledged(request.requestId, reply.element.version);
      if (this.confirmed) this.queue.settle(this.confirmed);
    } else if (reply && isFinalRefusal(reply.error.code)) {
      // A full board refuses the rest of a paste too: dropped at once, under one notice.
      const full = reply.error.code === ErrorCode.BOARD_FULL && request.kind === 'create';
      const dropped = full ? this.queue.refusedAsFull(request.requestId) : this.queue.refused(request.requestId);
      this.notify(refusalNotice(reply.error, dropped.length));
    } else {
      // Not delivered, busy, rate limited or unavailable: the same request goes again.
      this.queue.unsent(request.requestId);
      clearTimeout(this.retryTimer);
      this.retryTimer = setTimeout(() => this.pump(), RETRY_MS);
      this.publishBoard();
      return;
    }
    this.publishBoard();
    this.pump();
  }

  private onGrant(requestId: string, reply: Ack<LockManyReply> | null): void {
    const drag = this.drag;
    if (!drag || drag.phase !== 'acquiring' || drag.requestId !== requestId) {
      // A grant for a drag we gave up on: hand the locks straight back.
      if (reply?.ok) this.handBack(reply.grants);
      return;
    }
    if (!reply?.ok) {
      this.drag = null;
      if (reply?.error.code === 'locked') this.notify(this.lockedText(reply.error.heldBy?.userId, drag.items.length));
      else if (reply) this.notify(refusalNotice(reply.error, 1));
      this.publishMotion();
      return;
    }
    for (const item of drag.items) item.generation = reply.grants.find((g) => g.elementId === item.elementId)?.generation ?? null;
    const moved = drag.pointer.x !== drag.grab.x || drag.pointer.y !== drag.grab.y;
    const dragging: OwnDrag = { phase: 'dragging', items: drag.items, mode: drag.mode, grab: drag.grab, pointer: drag.pointer, shift: drag.shift, moved };
    this.drag = dragging;
    // The first move confirms the grant arrived; the server then extends the short first term.
    this.sendMove();
    this.keepaliveTimer = setInterval(() => this.sendMove(), Math.max(LOCK_KEEPALIVE_MS, this.moveEveryMs(dragging)));
    this.publishMotion();
    if (drag.ended) this.endDrag();
  }

  /** "Ana is moving this." when the holder is known (a group refusal names them). */
  private lockedText(holder: string | undefined, count: number): string {
    const name = holder ? this.confirmed?.members.get(holder)?.displayName : undefined;
    return name ? i18n._(count > 1 ? 'editor.movingOneOfThese' : 'editor.movingThis', { name }) : refusalMessage('locked');
  }

  private handBack(grants: readonly LockGrant[]): void {
    for (const g of grants) void this.transport.releaseLock({ requestId: randomId(), elementId: g.elementId, generation: g.generation }).catch(() => undefined);
  }

  /** `reshaped`: a resize or turn, whose preview until the answer is the whole new shape. */
  private release(elementId: string, generation: number, shape: ElementShape | undefined, before: ElementShape, reshaped = false): void {
    if (shape) this.releasing.set(elementId, { x: shape.x, y: shape.y, ...(reshaped ? { shape } : {}) });
    this.publishMotion();
    const request: LockReleaseRequest = shape ? { requestId: randomId(), elementId, generation, shape } : { requestId: randomId(), elementId, generation };
    const settle = (reply: Ack<ElementReply> | null) => {
      this.releasing.delete(elementId);
      if (reply?.ok && shape) {
        this.queue.acceptedElsewhere(reply.element);
        this.history.record([{ id: elementId, before, after: shape }]);
      } else if (reply && !reply.ok && shape) {
        // stale_generation: the lock ended before the drop; the element stays where the room says.
        this.notify(reply.error.code === 'stale_generation' ? i18n._('editor.moveLate') : refusalNotice(reply.error, 1));
      }
      this.publishBoard();
      this.publishMotion();
    };
    this.transport.releaseLock(request).then(settle, () => {
      // Not delivered: the lock lapses on the server by itself; an offline drop becomes an edit.
      if (shape) this.update([{ id: elementId, shape }]);
      settle(null);
    });
  }

  private abandonDrag(text: string): void {
    const drag = this.drag;
    this.drag = null;
    // The rest of a group drag goes back: only the lock that was taken over is gone.
    const state = this.confirmed;
    if (drag?.phase === 'dragging' && state) {
      const stillOurs = drag.items.filter((i) => i.generation !== null && state.elements.get(i.elementId)?.lock?.generation === i.generation && state.elements.get(i.elementId)?.lock?.sessionId === this.self.sessionId);
      this.handBack(stillOurs.map((i) => ({ elementId: i.elementId, generation: i.generation ?? 0, expiresInMs: 1 })));
    }
    this.cancelDragTimers();
    this.notify(text);
  }

  private cancelDragTimers(): void {
    clearTimeout(this.moveTimer);
    this.moveTimer = undefined;
    clearInterval(this.keepaliveTimer);
  }

  private scheduleMove(): void {
    if (this.moveTimer !== undefined) return;
    const wait = this.lastMoveAt + (this.drag ? this.moveEveryMs(this.drag) : LOCK_MOVE_MS) - Date.now();
    if (wait <= 0) this.sendMove();
    else
      this.moveTimer = setTimeout(() => {
        this.moveTimer = undefined;
        this.sendMove();
      }, wait);
  }

  private sendMove(): void {
    const drag = this.drag;
    if (drag?.phase !== 'dragging') return;
    this.lastMoveAt = Date.now();
    const moves: LockMove[] = [];
    // A resize or turn sends each element's frame as it now stands (the others draw the element
    // mapped onto it); before the pointer moved, where the element is, as a move would.
    const to = drag.moved ? this.targetFrame(drag) : null;
    for (const item of drag.items) {
      if (item.generation === null) continue;
      if (to && drag.mode.kind !== 'move') {
        const frame = frameAfter(shapeFrame(item.before), drag.mode.frame, to);
        const shape = transformShape(item.before, drag.mode.frame, to);
        moves.push({ elementId: item.elementId, generation: item.generation, x: shape.x, y: shape.y, frame });
      } else {
        const at = drag.mode.kind === 'move' ? this.dragPosition(drag, item) : item.origin;
        moves.push({ elementId: item.elementId, generation: item.generation, x: at.x, y: at.y });
      }
    }
    const [only] = moves;
    if (moves.length === 1 && only) this.transport.moveLocked(only);
    else if (moves.length > 1) this.transport.moveLockedGroup(moves);
  }

  /**
   * How often a drag sends its moves: a group's packets share one socket's event budget with the
   * cursor, so n elements move at 1/n of the rate (about 30 packets a second in all). With 50
   * elements each still moves every 1.65 s, well inside the lock's term, which moves extend.
   */
  private moveEveryMs(drag: OwnDrag): number {
    return LOCK_MOVE_MS * Math.max(1, drag.items.length);
  }

  /**
   * The shape a drag makes of an element: moved by the pointer's travel, or its frame resized or
   * turned from the handle (transform.ts). `current` is the element as the board has it now.
   */
  private shapeAfter(drag: OwnDrag, item: DragItem, current: ElementShape): ElementShape {
    const { mode } = drag;
    switch (mode.kind) {
      case 'move': {
        const at = this.dragPosition(drag, item);
        return moveShapeTo(current, at.x, at.y);
      }
      case 'resize':
      case 'rotate':
        return transformShape(item.before, mode.frame, this.targetFrame(drag) ?? mode.frame);
    }
  }

  /** Where a resize or turn has taken the selection's frame (null for a move). */
  private targetFrame(drag: OwnDrag): Frame | null {
    const { mode } = drag;
    switch (mode.kind) {
      case 'move':
        return null;
      case 'resize':
        return resizeFrame(mode.frame, mode.handle, drag.pointer, drag.shift);
      case 'rotate':
        return rotateFrame(mode.frame, drag.grab, drag.pointer, drag.shift);
    }
  }

  private dragPosition(drag: OwnDrag, item: DragItem): Point {
    return { x: clampCoordinate(item.origin.x + drag.pointer.x - drag.grab.x), y: clampCoordinate(item.origin.y + drag.pointer.y - drag.grab.y) };
  }

  private async simpleRequest(call: () => Promise<Ack<unknown>>): Promise<void> {
    try {
      const reply = await call();
      if (!reply.ok) this.notify(refusalNotice(reply.error, 1));
    } catch {
      this.notify(i18n._('error.noAnswer'));
    }
  }

  private notify(text: string): void {
    this.noticeSerial += 1;
    this.board.setState({ notice: { text, serial: this.noticeSerial } });
  }

  private publishBoard(): void {
    this.keep();
    const state = this.confirmed;
    const elements = state ? this.queue.view(state) : new Map<string, Element>();
    const prev = this.board.getState();
    const selection = [...prev.selection].filter((id) => elements.has(id));
    const kept = selection.length === prev.selection.size ? prev.selection : new Set(selection);
    this.board.setState({
      elements,
      ordered: elements === prev.elements ? prev.ordered : inLayerOrder(elements.values(), this.place.ownerUserId ?? null),
      selection: kept,
      unsynced: this.queue.unsynced,
      kept: this.keptOk && !this.keeping && this.keptChanges === this.queue.pendingChanges,
      syncing: this.behind && this.queue.unsynced > 0 && this.transport.isConnected(),
      canUndo: this.history.canUndo,
      canRedo: this.history.canRedo,
      editPolicy: state?.room.settings.editPolicy ?? 'own',
      settings: state?.room.settings ?? DEFAULT_LESSON_SETTINGS,
      penMuted: this.rights().penMuted,
      readOnly: this.readOnly(),
      handles: this.mayReshape(kept, elements),
    });
  }

  private publishMotion(): void {
    const previews = new Map<string, DragPreview>();
    const shapes = new Map<string, { target: DragTarget; element: Element; shape: ElementShape }>();
    for (const [elementId, d] of this.remoteDrags) {
      const element = d.frame ? this.view().get(elementId) : undefined;
      if (!d.frame || !element) {
        previews.set(elementId, { x: d.x, y: d.y, userId: d.userId, own: false });
        continue;
      }
      // Someone's resize or turn: the element as we hold it (unchanged under their lock), mapped
      // onto the frame they sent. The committed shape replaces it in the same change.
      const last = this.remoteShapes.get(elementId);
      const shape = last?.target === d && last.element === element ? last.shape : reshapeToFrame(element.shape, d.frame);
      shapes.set(elementId, { target: d, element, shape });
      previews.set(elementId, { x: shape.x, y: shape.y, shape, userId: d.userId, own: false });
    }
    this.remoteShapes = shapes;
    for (const [elementId, at] of this.releasing) previews.set(elementId, { ...at, userId: this.self.userId, own: true });
    const drag = this.drag;
    if (drag && drag.phase !== 'acquiring' && drag.moved) {
      for (const item of drag.items) {
        if (drag.mode.kind === 'move') previews.set(item.elementId, { ...this.dragPosition(drag, item), userId: this.self.userId, own: true });
        else {
          const shape = this.shapeAfter(drag, item, item.before);
          previews.set(item.elementId, { x: shape.x, y: shape.y, shape, userId: this.self.userId, own: true });
        }
      }
    }
    const prev = this.motion.getState().previews;
    if (prev.size === 0 && previews.size === 0) return;
    this.motion.setState({ previews });
  }
}

/** A refused change, for a person: how many were not saved, then the protocol's text for its code. */
function refusalNotice(error: ProtocolError, count: number): string {
  return i18n._('editor.notSaved', { count, reason: refusalMessage(error.code) });
}

