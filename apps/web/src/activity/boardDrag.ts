/**
 * Moving, resizing and turning one element of a private board under a drag lock (docs/boards.md,
 * DESIGN.md "Element locks"), for the teacher on a student's board opened full size. The same
 * lifecycle as the class board's drags, with the board named on every packet:
 *
 *   idle -> acquiring (lock.acquire + boardId)
 *        -> dragging  (granted: lock.move under its generation, at most every LOCK_MOVE_MS, repeated
 *                      while the pointer is still so the lease is extended)
 *        -> releasing (pointer-up: lock.release with the final shape; the preview stays until the
 *                      answer, so the element does not jump back) -> idle
 *   acquiring -> idle on a refusal (`locked`, `board_forbidden`, ...): a notice, nothing moved.
 *
 * The server decides every step (I11): who may take the lock (the board's owner under its policy,
 * a teacher always), and a move or release under a generation that is not current is dropped
 * (I4). Pure of React and of the socket: the ports are passed in.
 */
import { ClientEvent, refusalText, type Element, type ElementReply, type ElementShape, type LockGrant, type ProtocolError } from '@wb/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';
import { clampCoordinate, moveShapeTo, type Point } from '../elements/geometry.ts';
import { resizeFrame, rotateFrame, shapeFrame, transformShape, type Frame, type ResizeHandle } from '../elements/transform.ts';

/** lock.move packets at most this often (ms, ~30 Hz), as on the class board. */
export const BOARD_LOCK_MOVE_MS = 33;
/** While the pointer is held still the last move is repeated this often (ms): moves extend the lock. */
export const BOARD_LOCK_KEEPALIVE_MS = 500;

type Ack<T> = ({ ok: true } & T) | { ok: false; error: ProtocolError };

export interface BoardDragPorts {
  request<T>(event: string, payload: unknown): Promise<Ack<T>>;
  /** Volatile: the moves. */
  emit(event: string, payload: unknown): void;
  randomId(): string;
  every(fn: () => void, ms: number): () => void;
}

/** A move of the whole element, or a change of its frame from a handle. */
export type BoardDragMode = { kind: 'move' } | { kind: 'resize'; handle: ResizeHandle } | { kind: 'rotate' };

/** What the board draws: our element's shape while we drag it, and the last thing worth telling. */
export interface BoardDragState {
  preview: { boardId: string; elementId: string; shape: ElementShape } | null;
  notice: { text: string; serial: number } | null;
}

interface Drag {
  boardId: string;
  elementId: string;
  before: ElementShape;
  frame: Frame;
  mode: BoardDragMode;
  grab: Point;
  pointer: Point;
  shift: boolean;
  requestId: string;
  generation: number | null;
  moved: boolean;
  ended: boolean;
  stopKeepalive?: () => void;
}

export class BoardDrag {
  readonly store: StoreApi<BoardDragState> = createStore<BoardDragState>(() => ({ preview: null, notice: null }));
  private drag: Drag | null = null;
  private lastMoveAt = -Infinity;
  private moveTimer: ReturnType<typeof setTimeout> | undefined;
  private serial = 0;

  constructor(
    private readonly ports: BoardDragPorts,
    private readonly now: () => number = Date.now,
  ) {}

  /** Pointer-down on an element (or a handle of it): asks for its lock; it moves once granted. */
  begin(boardId: string, element: Element, pointer: Point, mode: BoardDragMode = { kind: 'move' }): void {
    this.cancel();
    const requestId = this.ports.randomId();
    const drag: Drag = {
      boardId,
      elementId: element.id,
      before: element.shape,
      frame: shapeFrame(element.shape),
      mode,
      grab: pointer,
      pointer,
      shift: false,
      requestId,
      generation: null,
      moved: false,
      ended: false,
    };
    this.drag = drag;
    this.ports.request<{ grant: LockGrant }>(ClientEvent.LOCK_ACQUIRE, { requestId, elementId: element.id, boardId }).then(
      (reply) => this.granted(drag, reply),
      () => this.granted(drag, null),
    );
  }

  /** The pointer moved; `shift` keeps proportions (resize) or snaps the turn to 15°. */
  move(pointer: Point, shift = false): void {
    const drag = this.drag;
    if (!drag || drag.ended) return;
    drag.pointer = pointer;
    drag.shift = shift;
    drag.moved = drag.moved || pointer.x !== drag.grab.x || pointer.y !== drag.grab.y;
    if (drag.generation === null) return;
    this.showPreview(drag);
    this.scheduleMove();
  }

  /** Pointer-up: the final shape goes with the release (once the lock is granted, if not yet). */
  end(): void {
    const drag = this.drag;
    if (!drag) return;
    drag.ended = true;
    if (drag.generation !== null) this.release(drag);
  }

  /** Gives up without a change (the view closed): the lock, if granted, goes back. */
  cancel(): void {
    const drag = this.drag;
    if (!drag) return;
    drag.moved = false;
    drag.ended = true;
    if (drag.generation !== null) this.release(drag);
    else this.drag = null;
  }

  /** The shape the drag makes of the element now. */
  private shapeNow(drag: Drag): ElementShape {
    const { mode, frame, before, grab, pointer, shift } = drag;
    switch (mode.kind) {
      case 'move':
        return moveShapeTo(before, clampCoordinate(before.x + pointer.x - grab.x), clampCoordinate(before.y + pointer.y - grab.y));
      case 'resize':
        return transformShape(before, frame, resizeFrame(frame, mode.handle, pointer, shift));
      case 'rotate':
        return transformShape(before, frame, rotateFrame(frame, grab, pointer, shift));
    }
  }

  private granted(drag: Drag, reply: Ack<{ grant: LockGrant }> | null): void {
    if (this.drag !== drag) {
      // A grant for a drag given up on: handed straight back.
      if (reply?.ok) void this.ports.request(ClientEvent.LOCK_RELEASE, { requestId: this.ports.randomId(), elementId: drag.elementId, generation: reply.grant.generation, boardId: drag.boardId }).catch(() => undefined);
      return;
    }
    if (!reply?.ok) {
      this.drag = null;
      this.tell(reply ? refusalText[reply.error.code] : 'The server did not answer. Try again.');
      return;
    }
    drag.generation = reply.grant.generation;
    // The first move confirms the grant arrived; the server then extends its short first term.
    this.sendMove();
    drag.stopKeepalive = this.ports.every(() => this.sendMove(), BOARD_LOCK_KEEPALIVE_MS);
    if (drag.ended) this.release(drag);
    else if (drag.moved) this.showPreview(drag);
  }

  private scheduleMove(): void {
    if (this.moveTimer !== undefined) return;
    const wait = this.lastMoveAt + BOARD_LOCK_MOVE_MS - this.now();
    if (wait <= 0) return this.sendMove();
    this.moveTimer = setTimeout(() => {
      this.moveTimer = undefined;
      this.sendMove();
    }, wait);
  }

  private sendMove(): void {
    const drag = this.drag;
    if (!drag || drag.generation === null || drag.ended) return;
    this.lastMoveAt = this.now();
    // A resize or turn holds the element where it is for the others until the drop (as on the class board).
    const at = drag.mode.kind === 'move' && drag.moved ? this.shapeNow(drag) : drag.before;
    this.ports.emit(ClientEvent.LOCK_MOVE, { elementId: drag.elementId, generation: drag.generation, x: at.x, y: at.y, boardId: drag.boardId });
  }

  private release(drag: Drag): void {
    if (this.drag === drag) this.drag = null;
    drag.stopKeepalive?.();
    clearTimeout(this.moveTimer);
    this.moveTimer = undefined;
    const shape = drag.moved ? this.shapeNow(drag) : undefined;
    if (shape) this.store.setState({ preview: { boardId: drag.boardId, elementId: drag.elementId, shape } });
    const request = { requestId: this.ports.randomId(), elementId: drag.elementId, generation: drag.generation, boardId: drag.boardId, ...(shape ? { shape } : {}) };
    const settle = (reply: Ack<ElementReply> | null) => {
      if (this.store.getState().preview?.elementId === drag.elementId) this.store.setState({ preview: null });
      if (reply && !reply.ok && shape) {
        this.tell(reply.error.code === 'stale_generation' ? 'Your move did not apply: the element was released before you let go.' : refusalText[reply.error.code]);
      } else if (!reply && shape) this.tell('The server did not answer: your move may not have applied.');
    };
    this.ports.request<ElementReply>(ClientEvent.LOCK_RELEASE, request).then(settle, () => settle(null));
  }

  private showPreview(drag: Drag): void {
    if (!drag.moved) return;
    this.store.setState({ preview: { boardId: drag.boardId, elementId: drag.elementId, shape: this.shapeNow(drag) } });
  }

  private tell(text: string): void {
    this.serial += 1;
    this.store.setState({ notice: { text, serial: this.serial } });
  }
}
