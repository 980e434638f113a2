import type { StoreApi } from 'zustand/vanilla';
import { KEY_PAN_PX, panBy, screenToBoard, wheelZoomFactor, ZOOM_STEP, zoomAt, zoomTo, type Point, type Viewport } from './viewport.ts';

/**
 * Viewport gestures: everything that pans or zooms the board from the pointer, the wheel or the
 * keyboard, and which pointer events the drawing tools get. viewport.ts holds the math; this file
 * holds the gestures' state and their DOM listeners, one per event type, so the order in which
 * the board and the tools hear of a press is written down here instead of following from the
 * order listeners were added.
 *
 * - Pan: drag with the middle button, or the primary one while space is held (the tools stand
 *   aside while it is); scroll; shift+scroll pans sideways; arrow keys while the board has focus.
 * - Zoom: ctrl/cmd+scroll (trackpad pinches arrive as ctrl+wheel) about the pointer; + and -
 *   about the pointer (the screen's centre when it is off the board); 0 back to 100 %; shift+1
 *   fits the board's content in view (where the board offers it: `fitContent`).
 * - Touch: a second finger turns the gesture into a two-finger pan and pinch-zoom, dropping what
 *   the first finger started; a third is ignored; lifting back to one finger ends the pinch.
 * - Our pointer is reported in board coordinates whenever it moves, or a pan, wheel or key moves
 *   the board under it (so the others see it stay on what it points at).
 */

/** The one screen-to-surface conversion: a pointer's position in the board surface's pixels. */
export function surfacePoint(surface: { getBoundingClientRect(): Pick<DOMRect, 'left' | 'top'> }, e: { readonly clientX: number; readonly clientY: number }): Point {
  const rect = surface.getBoundingClientRect();
  return { x: e.clientX - rect.left, y: e.clientY - rect.top };
}

/** The board point under a pointer, for the current viewport. */
export function boardPointOf(surface: { getBoundingClientRect(): Pick<DOMRect, 'left' | 'top'> }, viewport: Viewport, e: { readonly clientX: number; readonly clientY: number }): Point {
  return screenToBoard(viewport, surfacePoint(surface, e));
}

/** The wheel event fields a scroll or a pinch reads. */
export type WheelInput = Pick<WheelEvent, 'deltaX' | 'deltaY' | 'deltaMode' | 'shiftKey' | 'ctrlKey' | 'metaKey'>;

/** Wheel deltas in lines (deltaMode 1, some mice) count as this many pixels. */
const WHEEL_LINE_PX = 16;

/** Whether a wheel event zooms (ctrl/cmd held; trackpad pinches arrive so) rather than scrolls. */
export function wheelZooms(e: WheelInput): boolean {
  return e.ctrlKey || e.metaKey;
}

/** The view after a zooming wheel event at `at` (surface pixels): about that point. */
export function wheelZoomViewport(vp: Viewport, e: WheelInput, at: Point): Viewport {
  return zoomAt(vp, at, wheelZoomFactor(e.deltaMode === 1 ? e.deltaY * WHEEL_LINE_PX : e.deltaY));
}

/** The view after a scrolling wheel event; shift+wheel scrolls sideways on mice that only report deltaY. */
export function wheelPanViewport(vp: Viewport, e: WheelInput): Viewport {
  const scale = e.deltaMode === 1 ? WHEEL_LINE_PX : 1;
  const sideways = e.shiftKey && e.deltaX === 0;
  const dx = sideways ? e.deltaY : e.deltaX;
  const dy = sideways ? 0 : e.deltaY;
  return panBy(vp, -dx * scale, -dy * scale);
}

/** The + / - / 0 keys: zoom a step about `anchor`, or back to 100 % about `center`. Null for any other key. */
export function keyZoomViewport(vp: Viewport, key: string, anchor: Point, center: Point): Viewport | null {
  if (key === '+' || key === '=') return zoomAt(vp, anchor, ZOOM_STEP);
  if (key === '-' || key === '_') return zoomAt(vp, anchor, 1 / ZOOM_STEP);
  if (key === '0') return zoomTo(vp, center, 1);
  return null;
}

/** Arrow keys move the view by KEY_PAN_PX (the board moves the other way). Null for any other key. */
export function arrowPanViewport(vp: Viewport, key: string): Viewport | null {
  switch (key) {
    case 'ArrowLeft':
      return panBy(vp, KEY_PAN_PX, 0);
    case 'ArrowRight':
      return panBy(vp, -KEY_PAN_PX, 0);
    case 'ArrowUp':
      return panBy(vp, 0, KEY_PAN_PX);
    case 'ArrowDown':
      return panBy(vp, 0, -KEY_PAN_PX);
    default:
      return null;
  }
}

/** Two fingers: the point between them and how far apart they are (surface pixels). */
export interface Pinch {
  readonly center: Point;
  readonly distance: number;
}

/** The pinch made by the first two touches down; null with fewer than two. */
export function pinchOf(touches: ReadonlyMap<number, Point>): Pinch | null {
  const [a, b] = [...touches.values()];
  if (!a || !b) return null;
  return { center: { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 }, distance: Math.hypot(a.x - b.x, a.y - b.y) };
}

/** The view after two fingers moved from `from` to `to`: it follows their centre and zooms about it by their spread. */
export function pinchViewport(vp: Viewport, from: Pinch, to: Pinch): Viewport {
  const panned = panBy(vp, to.center.x - from.center.x, to.center.y - from.center.y);
  return from.distance > 0 ? zoomAt(panned, to.center, to.distance / from.distance) : panned;
}

/** The drawing tools' side of the pointer (toolInput.ts): the events no viewport gesture took. */
export interface PointerTool {
  down(e: PointerEvent): void;
  move(e: PointerEvent): void;
  up(e: PointerEvent): void;
  cancel(e: PointerEvent): void;
  /** A second finger turned the touch into a pinch: drop what the first one started, as if cancelled. */
  abandon(): void;
}

export interface ViewportGestureOptions {
  readonly surface: HTMLElement;
  readonly viewport: StoreApi<Viewport>;
  readonly tool: PointerTool;
  /** Our pointer in board coordinates, whenever it or the viewport under it moves. */
  readonly onPointer: (x: number, y: number) => void;
  /** Space pressed or released: the board shows that a drag will pan. */
  readonly onSpaceHeld: (held: boolean) => void;
  /** A pan drag began or ended. */
  readonly onPanning: (panning: boolean) => void;
  /** Shift+1: the view that shows all of the board's content (null: none to go to). */
  readonly fitContent?: () => Viewport | null;
}

/** Elements whose keys are their own (typing, or a control's activation): the board's key gestures leave them alone. */
const OWN_KEYS_TAGS = ['INPUT', 'TEXTAREA', 'SELECT', 'BUTTON', 'A'];

function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || OWN_KEYS_TAGS.includes(target.tagName));
}

/**
 * The board's viewport gestures, listening on the surface (pointer, wheel, arrow keys) and the
 * window (space, + - 0, shift+1). Its state is the fields below; `attach` adds the listeners and `detach`
 * removes them.
 */
export class ViewportGestures {
  private readonly o: ViewportGestureOptions;
  /** The pointer over the board (surface pixels); null once it left. */
  private pointer: Point | null = null;
  /** A pan drag in progress: its pointer and where it last was. */
  private pan: { readonly id: number; last: Point } | null = null;
  private space = false;
  /** Touch points down now, in surface pixels: two of them pan and pinch-zoom instead of drawing. */
  private readonly touches = new Map<number, Point>();
  private pinch: Pinch | null = null;

  constructor(options: ViewportGestureOptions) {
    this.o = options;
  }

  attach(): void {
    const { surface } = this.o;
    surface.addEventListener('pointerdown', this.onPointerDown);
    surface.addEventListener('pointermove', this.onPointerMove);
    surface.addEventListener('pointerup', this.onPointerUp);
    surface.addEventListener('pointercancel', this.onPointerCancel);
    surface.addEventListener('pointerleave', this.onPointerLeave);
    // Not passive: the board owns the wheel (the page itself never scrolls).
    surface.addEventListener('wheel', this.onWheel, { passive: false });
    surface.addEventListener('keydown', this.onSurfaceKeyDown);
    window.addEventListener('keydown', this.onKeyDown);
    window.addEventListener('keyup', this.onKeyUp);
    window.addEventListener('blur', this.onBlur);
  }

  detach(): void {
    const { surface } = this.o;
    surface.removeEventListener('pointerdown', this.onPointerDown);
    surface.removeEventListener('pointermove', this.onPointerMove);
    surface.removeEventListener('pointerup', this.onPointerUp);
    surface.removeEventListener('pointercancel', this.onPointerCancel);
    surface.removeEventListener('pointerleave', this.onPointerLeave);
    surface.removeEventListener('wheel', this.onWheel);
    surface.removeEventListener('keydown', this.onSurfaceKeyDown);
    window.removeEventListener('keydown', this.onKeyDown);
    window.removeEventListener('keyup', this.onKeyUp);
    window.removeEventListener('blur', this.onBlur);
  }

  private reportPointer(): void {
    if (!this.pointer) return;
    const p = screenToBoard(this.o.viewport.getState(), this.pointer);
    this.o.onPointer(p.x, p.y);
  }

  /** A view change made under the pointer: the pointer now sits over a different board point, and the others are told. */
  private update(next: Viewport): void {
    this.o.viewport.setState(next, true);
    this.reportPointer();
  }

  private setSpace(held: boolean): void {
    this.space = held;
    this.o.onSpaceHeld(held);
  }

  /** Who gets a press: a pan takes the middle button, or the primary one with space held; a second finger pinches; the tool gets the rest. */
  private readonly onPointerDown = (e: PointerEvent): void => {
    const { surface, tool } = this.o;
    if (e.button === 1 || (e.button === 0 && this.space)) {
      e.preventDefault();
      surface.setPointerCapture(e.pointerId);
      this.pan = { id: e.pointerId, last: surfacePoint(surface, e) };
      this.o.onPanning(true);
    }
    if (e.pointerType === 'touch') {
      this.touches.set(e.pointerId, surfacePoint(surface, e));
      if (this.touches.size === 2) {
        // A second finger: whatever the first one started was the start of a pinch, not a stroke.
        tool.abandon();
        this.pinch = pinchOf(this.touches);
        return;
      }
      if (this.touches.size > 2) return;
    }
    if (this.space) return;
    tool.down(e);
  };

  private readonly onPointerMove = (e: PointerEvent): void => {
    const pointer = surfacePoint(this.o.surface, e);
    this.pointer = pointer;
    const pan = this.pan;
    if (pan && pan.id === e.pointerId) {
      const dx = pointer.x - pan.last.x;
      const dy = pointer.y - pan.last.y;
      pan.last = pointer;
      this.update(panBy(this.o.viewport.getState(), dx, dy));
    } else {
      this.reportPointer();
    }
    if (e.pointerType === 'touch' && this.touches.has(e.pointerId)) {
      this.touches.set(e.pointerId, pointer);
      const from = this.pinch;
      const to = from ? pinchOf(this.touches) : null;
      if (from && to) {
        this.o.viewport.setState(pinchViewport(this.o.viewport.getState(), from, to), true);
        this.pinch = to;
        return;
      }
    }
    this.o.tool.move(e);
  };

  /** A pan ends with its pointer; a lifted finger leaves the pinch when fewer than two remain. */
  private release(e: PointerEvent): void {
    if (this.pan && this.pan.id === e.pointerId) {
      this.pan = null;
      this.o.onPanning(false);
    }
    if (e.pointerType !== 'touch') return;
    this.touches.delete(e.pointerId);
    if (this.touches.size < 2) this.pinch = null;
  }

  private readonly onPointerUp = (e: PointerEvent): void => {
    this.release(e);
    this.o.tool.up(e);
  };

  private readonly onPointerCancel = (e: PointerEvent): void => {
    this.release(e);
    this.o.tool.cancel(e);
  };

  private readonly onPointerLeave = (): void => {
    this.pointer = null;
  };

  private readonly onWheel = (e: WheelEvent): void => {
    e.preventDefault();
    const vp = this.o.viewport.getState();
    // Only a zoom needs the pointer's position (a layout read): a scroll, every frame of a pan, does not.
    this.update(wheelZooms(e) ? wheelZoomViewport(vp, e, surfacePoint(this.o.surface, e)) : wheelPanViewport(vp, e));
  };

  /** Arrow keys pan while the board itself has focus (keyboard users cannot drag). */
  private readonly onSurfaceKeyDown = (e: KeyboardEvent): void => {
    const next = arrowPanViewport(this.o.viewport.getState(), e.key);
    if (!next) return;
    e.preventDefault();
    this.o.viewport.setState(next, true);
  };

  private readonly onKeyDown = (e: KeyboardEvent): void => {
    if (isTyping(e.target)) return;
    if (e.code === 'Space' && !e.repeat) {
      this.setSpace(true);
      e.preventDefault();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    // By the key's place, not its character: shift+1 types "!" on some layouts, "1" on others.
    if (e.shiftKey && e.code === 'Digit1' && this.o.fitContent) {
      const fitted = this.o.fitContent();
      if (fitted) {
        this.update(fitted);
        e.preventDefault();
      }
      return;
    }
    const { surface, viewport } = this.o;
    const center = { x: surface.clientWidth / 2, y: surface.clientHeight / 2 };
    const next = keyZoomViewport(viewport.getState(), e.key, this.pointer ?? center, center);
    if (!next) return;
    this.update(next);
    e.preventDefault();
  };

  private readonly onKeyUp = (e: KeyboardEvent): void => {
    if (e.code === 'Space') this.setSpace(false);
  };

  private readonly onBlur = (): void => {
    this.setSpace(false);
  };
}
