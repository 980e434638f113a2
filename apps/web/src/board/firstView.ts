import type { Element } from '@wb/protocol';
import type { StoreApi } from 'zustand/vanilla';
import { rotatedBounds, unionBounds, type Bounds } from '../elements/geometry.ts';
import { fitToContent, openingView, type ScreenRect, type Size } from './contentView.ts';
import { initialViewport, type Viewport } from './viewport.ts';

/**
 * A board opens showing its content: when to fit it (FirstView, its DOM reached through ports) and
 * the measuring of the board and its panels; contentView.ts has the math. When a board with
 * content comes on stage (a lesson page, the class board after a reload, a page a student is
 * brought to) or content lands on an empty board nobody has moved (an imported PDF page's picture,
 * just after the page opened), a view that does not show it whole is fitted to it, once.
 *
 * The view is the person's from then on: it settles at that decision, and at the first move of the
 * view that is not the fit's own (a pan, a zoom, a button, a follow request) or press on the board.
 * A follow request wins: while the view follows the teacher's, no fit is made.
 */

/** Marks a panel that floats over the board for good (the top bar, the tools, the pages strip, …): content is shown clear of it. */
export const OVER_BOARD_ATTRIBUTE = 'data-over-board';

/** The board's content box in board units (elements turned as they are drawn); null when empty. */
export function contentBounds(elements: readonly Element[]): Bounds | null {
  return unionBounds(elements.map((e) => rotatedBounds(e.shape)));
}

/** The surface's size and the panels docked over it, in the surface's pixels; null before it is laid out. */
export function measureBoardArea(surface: HTMLElement): { screen: Size; panels: ScreenRect[] } | null {
  const screen = { width: surface.clientWidth, height: surface.clientHeight };
  if (screen.width <= 0 || screen.height <= 0) return null;
  const origin = surface.getBoundingClientRect();
  const panels: ScreenRect[] = [];
  for (const el of surface.ownerDocument.querySelectorAll(`[${OVER_BOARD_ATTRIBUTE}]`)) {
    const r = el.getBoundingClientRect();
    // Hidden (display: none) panels have no box.
    if (r.width > 0 && r.height > 0) panels.push({ left: r.left - origin.left, top: r.top - origin.top, right: r.right - origin.left, bottom: r.bottom - origin.top });
  }
  return { screen, panels };
}

/** "Fit to content": the view that shows all of the board in the visible area; the origin at 100 % for an empty board. */
export function fittedView(surface: HTMLElement, elements: readonly Element[]): Viewport | null {
  const area = measureBoardArea(surface);
  if (!area) return null;
  const content = contentBounds(elements);
  return content ? fitToContent(content, area.screen, area.panels) : initialViewport;
}

export interface FirstViewOptions {
  readonly viewport: StoreApi<Viewport>;
  /** The board's elements in drawing order (BoardView.ordered). */
  readonly board: StoreApi<{ readonly ordered: readonly Element[] }>;
  /** The surface's size and the panels over it now (measureBoardArea); null before it is laid out. */
  readonly measure: () => { screen: Size; panels: ScreenRect[] } | null;
  /** The view follows the teacher's now (a student while she presents): a follow request decides it. */
  readonly following: () => boolean;
  /** Calls `pressed` when the person presses on the board; returns the way to stop. */
  readonly onPress: (pressed: () => void) => () => void;
  /** Runs `run` after the next layout (requestAnimationFrame); returns the way to cancel it. */
  readonly nextFrame: (run: () => void) => () => void;
  /** This board's view was settled when it was last on stage in this tab: nothing to decide. */
  readonly settled: boolean;
}

/**
 * Decides a board's first view once, as above; `settled` says whether that is done. The decision
 * waits a frame after the content arrives, so the panels that came with the board (its tools, the
 * pages strip) are laid out when it is measured.
 */
export class FirstView {
  private done: boolean;
  private cancelFrame: (() => void) | null = null;
  private readonly stops: Array<() => void> = [];

  constructor(private readonly o: FirstViewOptions) {
    this.done = o.settled;
  }

  get settled(): boolean {
    return this.done;
  }

  attach(): void {
    if (this.done) return;
    const { viewport, board } = this.o;
    this.stops.push(
      // Any change of the view before the decision is the person's or a follow request's.
      viewport.subscribe(() => this.settle()),
      board.subscribe((b, before) => {
        if (b.ordered !== before.ordered) this.schedule();
      }),
      // Pressing on the board (drawing, selecting) makes the view the person's, as a move does.
      this.o.onPress(() => this.settle()),
    );
    this.schedule();
  }

  detach(): void {
    this.cancelFrame?.();
    this.cancelFrame = null;
    for (const stop of this.stops.splice(0)) stop();
  }

  private schedule(): void {
    if (this.done || this.cancelFrame || this.o.board.getState().ordered.length === 0) return;
    this.cancelFrame = this.o.nextFrame(() => {
      this.cancelFrame = null;
      this.decide();
    });
  }

  private decide(): void {
    const { ordered } = this.o.board.getState();
    if (this.done || ordered.length === 0) return;
    if (this.o.following()) return this.settle();
    const area = this.o.measure();
    // Not laid out yet: the next change of the board asks again.
    if (!area) return;
    const view = openingView(contentBounds(ordered), this.o.viewport.getState(), area.screen, area.panels);
    this.settle();
    if (view) this.o.viewport.setState(view, true);
  }

  private settle(): void {
    this.done = true;
    this.detach();
  }
}
