import type { Element } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { createStore } from 'zustand/vanilla';
import type { ScreenRect, Size } from './contentView.ts';
import { FirstView, contentBounds } from './firstView.ts';
import { createViewportStore, initialViewport, panBy, type Viewport } from './viewport.ts';

/**
 * When a board's first view is decided (firstView.ts): once, a frame after content is there,
 * unless the person or a follow request moved the view first. Real stores; the DOM's part (a
 * frame, a press on the board, the measured panels) is played by the test through the ports.
 */

const image = (id: string, x: number, y: number, w: number, h: number): Element => ({
  id,
  shape: { kind: 'image', x, y, w, h, sha256: 'a'.repeat(64), naturalWidth: w * 2, naturalHeight: h * 2 },
  z: 0,
  version: 1,
  lock: null,
  pinned: true,
  createdBy: 'u1',
  updatedBy: 'u1',
});

/** An imported page's picture, at the board's origin: under the top bar at the initial view. */
const picture = image('p', 0, 0, 618, 800);
/** A note in the middle of the screen: in view at the initial view. */
const note = image('n', 400, 300, 120, 80);

const screen: Size = { width: 1280, height: 800 };
const topBar: ScreenRect = { left: 12, top: 12, right: 1268, bottom: 68 };

function harness(o: { elements?: Element[]; settled?: boolean; following?: boolean; laidOut?: boolean } = {}) {
  const viewport = createViewportStore();
  const board = createStore(() => ({ ordered: o.elements ?? ([] as readonly Element[]) }));
  let frame: (() => void) | null = null;
  let press: (() => void) | null = null;
  const state = { following: o.following ?? false, laidOut: o.laidOut ?? true };
  const first = new FirstView({
    viewport,
    board,
    measure: () => (state.laidOut ? { screen, panels: [topBar] } : null),
    following: () => state.following,
    onPress: (pressed) => {
      press = pressed;
      return () => (press = null);
    },
    nextFrame: (run) => {
      frame = run;
      return () => (frame = null);
    },
    settled: o.settled ?? false,
  });
  first.attach();
  return {
    first,
    viewport,
    state,
    /** Content arrives (a snapshot, an element created by someone). */
    arrive: (...elements: Element[]) => board.setState({ ordered: [...board.getState().ordered, ...elements] }),
    /** The next frame runs, if one was asked for. */
    frame: () => {
      const run = frame;
      frame = null;
      run?.();
    },
    pendingFrame: () => frame !== null,
    press: () => press?.(),
  };
}

/** Whether the view shows the picture below the top bar (a fitted view does; the initial one does not). */
const showsPicture = (vp: Viewport) => vp.y >= topBar.bottom && vp.zoom < 1;

describe('first view of a board', () => {
  test('[first] a board on stage with content not in view is fitted, a frame later, once: it is settled, later content does not move it', () => {
    const h = harness({ elements: [picture] });
    expect(h.viewport.getState()).toBe(initialViewport);
    h.frame();
    expect(showsPicture(h.viewport.getState())).toBe(true);
    expect(h.first.settled).toBe(true);
    const fitted = h.viewport.getState();
    h.arrive(image('far', 5000, 5000, 100, 100));
    expect(h.pendingFrame()).toBe(false);
    expect(h.viewport.getState()).toBe(fitted);
  });

  test('[first] content already in view at the initial view is left as it is', () => {
    const h = harness({ elements: [note] });
    h.frame();
    expect(h.viewport.getState()).toBe(initialViewport);
    expect(h.first.settled).toBe(true);
  });

  test('[first] an empty board waits: the picture landing on it (the imported page just opened) is fitted', () => {
    const h = harness();
    expect(h.pendingFrame()).toBe(false);
    h.arrive(picture);
    h.frame();
    expect(showsPicture(h.viewport.getState())).toBe(true);
  });

  test('[first] a view the person moved is theirs: content landing afterwards does not move it', () => {
    const h = harness();
    const own = panBy(initialViewport, -200, 40);
    h.viewport.setState(own, true);
    h.arrive(picture);
    h.frame();
    expect(h.viewport.getState()).toBe(own);
    expect(h.first.settled).toBe(true);
  });

  test('[first] a press on the board (drawing, selecting) makes the view the person\'s before the fit', () => {
    const h = harness();
    h.press();
    h.arrive(picture);
    h.frame();
    expect(h.viewport.getState()).toBe(initialViewport);
  });

  test('[first] a follow request wins: no fit while the view follows the teacher\'s, nor after one moved it', () => {
    const following = harness({ elements: [picture], following: true });
    following.frame();
    expect(following.viewport.getState()).toBe(initialViewport);
    expect(following.first.settled).toBe(true);

    // The request arrives between the content and its frame: the fit does not undo it.
    const requested = harness({ elements: [picture] });
    const teachers: Viewport = { x: -300, y: -100, zoom: 2 };
    requested.viewport.setState(teachers, true);
    requested.frame();
    expect(requested.viewport.getState()).toBe(teachers);
  });

  test('[first] a board whose first view was settled on an earlier show in this tab is not fitted again', () => {
    const h = harness({ elements: [picture], settled: true });
    expect(h.pendingFrame()).toBe(false);
    h.frame();
    expect(h.viewport.getState()).toBe(initialViewport);
  });

  test('[first] a surface not laid out yet decides nothing: the next change of the board asks again', () => {
    const h = harness({ elements: [picture], laidOut: false });
    h.frame();
    expect(h.first.settled).toBe(false);
    expect(h.viewport.getState()).toBe(initialViewport);
    h.state.laidOut = true;
    h.arrive(note);
    h.frame();
    expect(showsPicture(h.viewport.getState())).toBe(true);
  });

  test('[first] the content box is every element, turned as drawn; none for an empty board', () => {
    expect(contentBounds([])).toBeNull();
    expect(contentBounds([picture, note])).toEqual({ x: 0, y: 0, w: 618, h: 800 });
    const turned = { ...note, shape: { ...note.shape, rotation: 90 } } as Element;
    expect(contentBounds([turned])).toEqual({ x: 420, y: 280, w: 80, h: 120 });
  });
});
