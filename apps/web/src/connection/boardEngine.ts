import type { BoardSyncMessage, EditPolicy, PageSyncMessage, Paper, Role, SyncMessage } from '@wb/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';
import { BoardEditor, type EditKeeper, type EditorTransport } from '../elements/boardEditor.ts';
import type { LiveStroke } from '../sync/liveInk.ts';
import { boardSnapshot, type BoardFrame, type RoomState } from '../sync/roomState.ts';
import { SyncEngine, type CursorTarget, type SyncPhase } from '../sync/syncEngine.ts';

/**
 * One board as this client holds it, the same for every board of a lesson (docs/boards.md): the
 * sync engine (its state from the board's own log, I1: dedupe, order, gaps, tombstones, lock
 * generations), the editor (own edits through the optimistic queue, undo and redo, drags under
 * locks, live ink) and the stores its layers read. The class board is one; each private board a
 * person may see is another. What differs is the wire only: how a board is synced (`sync.request`
 * for the class board, `board.sync` for a private one) and the `boardId` every request of a private
 * board names, both given by the connection (`BoardWire`).
 */

/** Fast-changing: read through `subscribe` into the DOM, never through React renders. */
export interface CursorView {
  readonly targets: ReadonlyMap<string, CursorTarget>;
}

/** Other people's strokes being drawn (live ink), by stroke id; read like cursors. */
export interface InkView {
  readonly strokes: ReadonlyMap<string, LiveStroke>;
}

/** What a board's views read: its confirmed state and sync phase (changes with each applied event). */
export interface BoardState {
  readonly state: RoomState | null;
  readonly phase: SyncPhase;
}

/** The class board is the lesson's own log; a private board has its own, framed by the lesson. */
/** A private board's `ownerUserId`: its owner's work is drawn under everyone else's (the teacher's feedback layer). */
export type BoardKind =
  | { readonly kind: 'class' }
  | { readonly kind: 'private'; readonly frame: BoardFrame; readonly ownerUserId?: string }
  /** A page of the lesson other than its own board (docs/boards.md "Pages"): its own log, framed by the lesson like a private board. */
  | { readonly kind: 'page'; readonly frame: BoardFrame };

/** How one board reaches the server. */
export interface BoardWire {
  /** Requests of the editor, each naming this board. */
  readonly transport: EditorTransport;
  /** Ask for a sync (a replay after `lastRevision`, or a snapshot); the answer comes to `receiveSync`/`receiveBoardSync`. */
  requestSync(lastRevision: number | undefined): void;
  /** Where the board's unsynced edits are kept across reloads (this device's IndexedDB); none keeps them in the tab only. */
  readonly keeper?: EditKeeper;
}

/**
 * Runs `publish` before the next frame is drawn: `requestAnimationFrame` in the browser
 * (`nextFrame`). Without one (the class board; tests of the rules) every change publishes at once.
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

/**
 * One frame for many boards: every publish asked for before the next frame runs in it, under one
 * `nextFrame` (one animation frame and one timer, not one each per board: a grid of 30 boards
 * would otherwise ask for 30 of each every frame).
 */
export function sharedFrame(frame: PublishOnFrame = nextFrame): PublishOnFrame {
  let queued: Array<() => void> = [];
  const run = () => {
    const due = queued;
    queued = [];
    for (const publish of due) publish();
  };
  return (publish) => {
    queued.push(publish);
    if (queued.length === 1) frame(run);
  };
}

const publishAtOnce: PublishOnFrame = (publish) => publish();

export class BoardEngine {
  readonly sync: SyncEngine;
  readonly editor: BoardEditor;
  readonly board: StoreApi<BoardState>;
  readonly cursors: StoreApi<CursorView> = createStore<CursorView>(() => ({ targets: new Map() }));
  readonly ink: StoreApi<InkView> = createStore<InkView>(() => ({ strokes: new Map() }));
  private kind: BoardKind;
  /** The cursor and ink stores wait for the frame (`publishOnFrame`) with these changes. */
  private readonly unpublished = new Set<'cursors' | 'ink'>();
  private framePending = false;

  /**
   * `publishOnFrame`: a teacher's grid of 30 drawing students brings ~600 ephemeral batches a
   * second, 30 in each 50 ms tick; each board's pointers and live ink then publish at most once a
   * frame (TI1). An ending (a stroke whose element arrived) publishes at once, in the task that
   * brought the element, so no frame shows a stroke twice or not at all (TI3).
   */
  constructor(
    readonly id: string,
    kind: BoardKind,
    wire: BoardWire,
    self: { userId: string; sessionId: string; role: Role },
    private readonly publishOnFrame: PublishOnFrame = publishAtOnce,
  ) {
    this.kind = kind;
    this.sync = new SyncEngine({ requestSync: (lastRevision) => wire.requestSync(lastRevision) }, self.sessionId);
    this.editor = new BoardEditor(self, wire.transport, wire.keeper ?? null, { privateBoard: kind.kind === 'private', ownerUserId: kind.kind === 'private' ? (kind.ownerUserId ?? null) : null });
    this.board = createStore<BoardState>(() => ({ state: null, phase: 'idle' }));
    this.sync.subscribe((changes) => {
      if (changes.has('state')) this.editor.stateChanged(this.sync.state);
      if (changes.has('state') || changes.has('phase')) this.board.setState({ state: this.sync.state, phase: this.sync.phase });
      if (changes.has('cursors')) this.unpublished.add('cursors');
      if (changes.has('ink')) this.unpublished.add('ink');
      if (changes.has('drags')) this.editor.dragsChanged(new Map(this.sync.drags));
      // After the state: a stroke whose element just arrived leaves in the same frame it appears.
      if (changes.has('state')) this.publishNow();
      else if (this.unpublished.size > 0) this.publishLater();
      if (changes.has('phase') && this.sync.phase === 'live') this.editor.connectionLive();
    });
  }

  private publishLater(): void {
    if (this.framePending) return;
    this.framePending = true;
    this.publishOnFrame(() => {
      if (this.framePending) this.publishNow();
    });
  }

  private publishNow(): void {
    this.framePending = false;
    if (this.unpublished.delete('cursors')) this.cursors.setState({ targets: new Map(this.sync.cursors) });
    if (this.unpublished.delete('ink')) this.ink.setState({ strokes: new Map(this.sync.ink) });
  }

  get isPrivate(): boolean {
    return this.kind.kind === 'private';
  }

  /** A page of the lesson other than its own board: synced with `page.sync`. */
  get isPage(): boolean {
    return this.kind.kind === 'page';
  }

  /**
   * A private board's answer to `board.sync`, read as the engine reads the class board's sync: its
   * snapshot framed by the lesson as it is now (`boardSnapshot`). Without the lesson's state yet
   * it is dropped; the engine asks again (its sync timeout).
   */
  receiveBoardSync(sync: BoardSyncMessage | PageSyncMessage, lesson: RoomState | null, now: number): void {
    if (this.kind.kind === 'class' || !lesson) return;
    const message: SyncMessage =
      sync.kind === 'snapshot'
        ? { kind: 'snapshot', snapshot: boardSnapshot(sync.snapshot, lesson, this.kind.frame) }
        : { kind: 'replay', fromRevision: sync.fromRevision, events: sync.events };
    this.sync.receiveSync(message, now);
  }

  /** A private board: its lesson's state or its own edit policy changed (`SyncEngine.reframe`). */
  reframe(lesson: RoomState | null, editPolicy?: EditPolicy, paper?: Paper): void {
    const kind = this.kind;
    if (kind.kind === 'class') return;
    let frame = kind.frame;
    if ((editPolicy !== undefined && editPolicy !== frame.editPolicy) || (paper !== undefined && paper !== frame.paper)) {
      frame = { ...frame, ...(editPolicy !== undefined ? { editPolicy } : {}), ...(paper !== undefined ? { paper } : {}) };
      this.kind = { ...kind, frame };
    }
    if (lesson) this.sync.reframe(lesson, frame);
  }

  /** The socket opened: buffer until the board's sync is applied. */
  connectionOpened(now: number): void {
    this.sync.connectionOpened(now);
  }

  connectionClosed(): void {
    this.sync.connectionClosed();
    this.editor.connectionLost();
  }

  stop(): void {
    this.editor.stop();
    this.sync.connectionClosed();
  }
}
