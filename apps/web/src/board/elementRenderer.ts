import type { Element, ElementShape } from '@wb/protocol';
import type { StoreApi } from 'zustand/vanilla';
import type { BoardView, MotionView } from '../elements/boardEditor.ts';
import { canvasBounds, drawElementsOnCanvas } from '../elements/elementCanvas.ts';
import { shapeSvg } from '../elements/elementSvg.ts';
import type { Bounds } from '../elements/geometry.ts';
import { boardInkBounds, elementsToDraw, intersects } from './culling.ts';
import {
  countInView,
  dragsNeedRedraw,
  gestureNeedsRedraw,
  initialView,
  planeTransform,
  recounted,
  redrawnFor,
  type DrawnView,
  type LayerSize,
} from './drawnView.ts';
import { overlayMarkup } from './overlayMarkup.ts';
import { canvasArea, canvasFrame, overviewLayers, repaintAreas, type CanvasFrame, type PaintedCanvas } from './overview.ts';
import type { DraftView } from './toolState.ts';
import type { Viewport } from './viewport.ts';

/** The empty containers the renderer draws into (ElementLayer.tsx renders them once). */
export interface ElementLayerDom {
  /** Clips to the board; its size is the view's; carries `data-mode` and `data-in-view`. */
  readonly container: HTMLElement;
  /** Holds the canvas and the SVG; a gesture moves it by a CSS transform. */
  readonly plane: HTMLElement;
  /** The overview canvas (hidden outside overview mode). */
  readonly canvas: HTMLCanvasElement;
  /** The SVG group placed for the viewport drawn for, holding the three below. */
  readonly root: SVGGElement;
  readonly elements: SVGGElement;
  readonly draft: SVGGElement;
  readonly overlay: SVGGElement;
}

/**
 * What the renderer reads. It subscribes to nothing: its owner feeds it the stores' changes
 * (viewChanged, boardChanged, motionChanged, draftChanged) and it reads their current state.
 */
export interface ElementSources {
  readonly viewport: Pick<StoreApi<Viewport>, 'getState'>;
  readonly board: Pick<StoreApi<BoardView>, 'getState'>;
  readonly motion: Pick<StoreApi<MotionView>, 'getState'>;
  readonly selfSessionId: string;
  /** Display names for lock outlines, asked at each overlay draw. */
  readonly nameOf: (userId: string) => string;
  /** Member colours for lock outlines, asked at each overlay draw. */
  readonly colorOf: (userId: string) => string;
}

interface DrawnElement {
  readonly g: SVGGElement;
  element: Element;
  /** In the layer (not culled). A culled node is kept, detached, for when it comes back. */
  mounted: boolean;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * A pan or zoom gesture counts as settled after this long without a viewport change (ms): wheel
 * events come every frame (~16 ms) and trackpads pause between strokes for less than this.
 */
const SETTLE_MS = 200;

/**
 * Board elements as SVG, or on one canvas when the view holds many, drawn so that a large board
 * stays fast (docs/architecture.md, "How the board draws elements"):
 * - culling: only elements whose ink reaches into the view plus a margin are drawn (culling.ts);
 *   hit tests and export read the store, so culled elements are still on the board;
 * - overview mode (overview.ts): when more than 500 elements are in the cull rect (until fewer
 *   than 350 are), the settled ones are drawn into one canvas (elementCanvas.ts) and their SVG
 *   nodes leave the DOM (kept, built, for when the mode ends). Elements being dragged, own or
 *   others', are left out of the canvas and drawn as live SVG on top of it (so a dragged element
 *   floats above the others until its drop is committed); the draft and the overlay stay SVG;
 * - gestures move a raster: the elements are drawn for one viewport (the SVG group's transform
 *   and the canvas's) inside a plane that becomes a compositor layer for the gesture, and a pan
 *   or zoom only changes the plane's CSS transform, which the compositor applies without
 *   repainting. The drawing catches up when the gesture settles (a zoom is redrawn crisp at its
 *   new scale) or, mid-gesture, when the view leaves the culled area; board changes repaint the
 *   canvas at most once per animation frame, and only the areas they touched;
 * - an element's markup is rebuilt only when its shape object changed and its attributes only
 *   when the element did (the edit queue and the sync engine keep identities of unchanged
 *   elements), so a room event costs what it changed;
 * - drags in progress (own and others') move a node by a transform from the motion store;
 * - lock outlines and the selection are a separate overlay group, redrawn when they change.
 *
 * Its state is the fields below, written only by its methods; what to draw, and when, is decided
 * by drawnView.ts's pure transitions. Plain TypeScript: ElementLayer.tsx mounts it, feeds it the
 * stores' changes and the layer's size, and disposes it.
 */
export class ElementRenderer {
  private readonly dom: ElementLayerDom;
  private readonly sources: ElementSources;
  /** Null when the browser gives no 2D context (out of memory for canvases): the layer stays SVG. */
  private readonly ctx: CanvasRenderingContext2D | null;

  /** The layer's size in CSS pixels. */
  private size: LayerSize;
  /** The mode, the viewport drawn for and the area drawn (drawnView.ts's transitions only). */
  private view: DrawnView;
  /** Every element's node built so far, mounted or kept for later. */
  private readonly drawn = new Map<string, DrawnElement>();
  /** Nodes carrying a drag's transform. */
  private readonly moved = new Set<string>();
  /** Nodes showing our own resize or turn in progress: the preview shape they were drawn with. */
  private readonly reshaped = new Map<string, ElementShape>();
  /** Elements drawn live instead of on the canvas at its last paint (drags in progress). */
  private leftOut: ReadonlySet<string> = new Set();
  /** What the canvas shows and for which frame; null when it shows nothing yet. */
  private painted: PaintedCanvas | null = null;
  private canvasShown = false;
  /** The animation frame a canvas paint waits for. */
  private paintRequest: number | undefined;
  /** Set while a gesture is in progress (the plane is composited); fires its settle. */
  private settleTimer: ReturnType<typeof setTimeout> | undefined;
  /** The idle callback building culled elements' nodes ahead, and where it is in `ordered`. */
  private prebuild: number | undefined;
  private prebuildFrom = 0;
  /** The board's ink, computed once per `ordered` (the board's identity changes on every edit). */
  private ink: { readonly ordered: readonly Element[]; readonly bounds: Bounds | null } | null = null;

  // Callbacks made once, not per frame.
  private readonly settleNow = () => this.settle();
  private readonly paintNow = () => this.paintCanvas();
  private readonly prebuildNow = (deadline: IdleDeadline) => this.prebuildStep(deadline);
  private readonly boardInk = () => this.inkBounds();

  constructor(dom: ElementLayerDom, sources: ElementSources) {
    this.dom = dom;
    this.sources = sources;
    this.ctx = dom.canvas.getContext('2d');
    this.size = { width: dom.container.clientWidth, height: dom.container.clientHeight };
    this.view = initialView(sources.viewport.getState(), this.size);
  }

  /** Draws the board as it is, for the current viewport, and starts building the culled elements' nodes. */
  mount(): void {
    this.dom.container.dataset.mode = this.view.mode;
    this.redrawFor(this.view.drawnFor, false);
    this.schedulePrebuild(true);
  }

  /**
   * The viewport changed: a gesture moves the plane (its own compositor layer until the gesture
   * settles, SETTLE_MS after the last change); mid-gesture, the drawing catches up only when the
   * view left the drawn area (drawnView.ts's gestureNeedsRedraw).
   */
  viewChanged(vp: Viewport): void {
    if (this.settleTimer === undefined) this.composite(true);
    if (gestureNeedsRedraw(this.view, vp, this.size, this.boardInk)) this.redrawFor(vp, true);
    this.dom.plane.style.transform = planeTransform(this.view.drawnFor, vp);
    clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(this.settleNow, SETTLE_MS);
  }

  /** The layer's size changed (a window resize): placed like a view change, redrawn at the settle. */
  resized(width: number, height: number): void {
    this.size = { width, height };
    this.viewChanged(this.sources.viewport.getState());
  }

  /** The board store changed: its elements (the same viewport, perhaps the other mode) or only the selection. */
  boardChanged(view: BoardView, prev: BoardView): void {
    if (view.ordered !== prev.ordered) {
      this.setView(recounted(this.view, this.count(view.ordered), this.ctx !== null, this.size));
      this.drawElements(view, false);
      this.schedulePrebuild(true);
    } else if (view.selection !== prev.selection) this.drawOverlay();
  }

  /** Drags in progress changed: nodes move, unless a drag began or ended in a way the drawing must follow. */
  motionChanged({ previews }: MotionView): void {
    if (dragsNeedRedraw(previews, this.sources.board.getState().elements, this.view.mode, this.leftOut, this.drawn)) this.drawElements(this.sources.board.getState(), false);
    else {
      this.applyMotion(previews);
      this.drawOverlay();
    }
  }

  /** The shape being drawn (not yet an element). */
  draftChanged({ shape, marquee }: DraftView): void {
    const px = 1 / this.view.drawnFor.zoom;
    const box = marquee
      ? `<rect data-testid="marquee" x="${marquee.x}" y="${marquee.y}" width="${marquee.w}" height="${marquee.h}" fill="#264de4" fill-opacity="0.08" stroke="#264de4" stroke-width="${px}"/>`
      : '';
    this.dom.draft.innerHTML = (shape ? shapeSvg(shape) : '') + box;
  }

  /**
   * An image's picture arrived (images/imageRefs.ts): the nodes showing its placeholder are drawn
   * again, and the overview canvas, which may show it too, is painted whole at the next frame.
   */
  imageReady(sha256: string): void {
    for (const d of this.drawn.values()) {
      const shape = this.reshaped.get(d.element.id) ?? d.element.shape;
      if (shape.kind === 'image' && shape.sha256 === sha256) d.g.innerHTML = shapeSvg(shape);
    }
    if (this.canvasShown) {
      this.painted = null;
      this.requestPaint();
    }
  }

  /** Stops every timer and frees the canvas and the nodes (the stores' subscriptions are the owner's). */
  dispose(): void {
    clearTimeout(this.settleTimer);
    if (this.prebuild !== undefined) cancelIdleCallback(this.prebuild);
    this.hideCanvas();
    this.dom.elements.replaceChildren();
    this.dom.overlay.replaceChildren();
  }

  /** A new view state; the layer shows its mode when that changed. */
  private setView(next: DrawnView): void {
    if (next.mode !== this.view.mode) this.dom.container.dataset.mode = next.mode;
    this.view = next;
  }

  /** [DV1] Elements in the usual cull rect of the current view, shown as `data-in-view`. */
  private count(ordered: readonly Element[]): number {
    const inView = countInView(ordered, this.sources.viewport.getState(), this.size);
    this.dom.container.dataset.inView = String(inView);
    return inView;
  }

  /**
   * The plane is its own compositor layer only during a gesture. At rest it paints with the
   * page: measured in Chromium, a composited plane under 30 moving cursors made every frame's
   * layerization about twice as slow, and at rest nothing needs it.
   */
  private composite(on: boolean): void {
    this.dom.plane.style.willChange = on ? 'transform' : '';
  }

  /** The gesture is over: draw for where it ended and let go of what it left far behind. */
  private settle(): void {
    this.settleTimer = undefined;
    this.redrawFor(this.sources.viewport.getState(), false);
    this.composite(false);
  }

  /** Draws for a new viewport: at a settle, or mid-gesture when the view left the drawn area. */
  private redrawFor(vp: Viewport, gesture: boolean): void {
    const board = this.sources.board.getState();
    this.setView(redrawnFor(this.view, vp, this.count(board.ordered), this.ctx !== null, this.size, gesture));
    const { drawnFor } = this.view;
    this.dom.root.setAttribute('transform', `matrix(${drawnFor.zoom} 0 0 ${drawnFor.zoom} ${drawnFor.x} ${drawnFor.y})`);
    this.dom.plane.style.transform = '';
    this.drawElements(board, true);
  }

  /**
   * Draws what the view's area holds for the current mode. `now` paints the canvas in this task
   * (the viewport it is drawn for just changed, and the plane's transform with it); otherwise the
   * paint waits for the next frame.
   */
  private drawElements({ elements, ordered }: BoardView, now: boolean): void {
    const { previews } = this.sources.motion.getState();
    const { culled } = this.view;
    if (this.view.mode === 'overview') {
      this.mountNodes(overviewLayers(ordered, culled, previews).live, elements);
      if (now) this.paintCanvas();
      else this.requestPaint();
    } else {
      this.mountNodes(elementsToDraw(ordered, culled, previews), elements);
      this.hideCanvas();
    }
    this.applyMotion(previews);
    this.drawOverlay();
  }

  /**
   * Equations drawn before KaTeX loaded show their source: once it has, their nodes are rebuilt
   * (elementSvg.ts's equation markup then typesets them).
   */
  equationsTypeset(): void {
    for (const d of this.drawn.values()) {
      if (d.element.shape.kind === 'equation' && !this.reshaped.has(d.element.id)) d.g.innerHTML = shapeSvg(d.element.shape);
    }
  }

  /** The element's node, built or brought up to date (not placed in the layer). */
  private nodeFor(element: Element): DrawnElement {
    let d = this.drawn.get(element.id);
    if (!d) {
      const g = document.createElementNS(SVG_NS, 'g');
      g.dataset.testid = 'element';
      g.dataset.elementId = element.id;
      g.innerHTML = shapeSvg(element.shape);
      d = { g, element, mounted: false };
      this.drawn.set(element.id, d);
      describe(d);
    } else if (d.element !== element) {
      if (d.element.shape !== element.shape && !this.reshaped.has(element.id)) d.g.innerHTML = shapeSvg(element.shape);
      d.element = element;
      describe(d);
    }
    return d;
  }

  /**
   * Culled elements' nodes are built ahead, a few at a time in idle time, so a pan or zoom that
   * brings them into view only inserts nodes: parsing their markup then (about 0.1 ms each) is
   * what made a zoom-out's mid-gesture re-cull a 400 ms frame.
   */
  private prebuildStep(deadline: IdleDeadline): void {
    this.prebuild = undefined;
    const { ordered } = this.sources.board.getState();
    while (this.prebuildFrom < ordered.length && deadline.timeRemaining() > 1) {
      const element = ordered[this.prebuildFrom++]!;
      const d = this.drawn.get(element.id);
      if (!d || (!d.mounted && d.element !== element)) this.nodeFor(element);
    }
    if (this.prebuildFrom < ordered.length) this.schedulePrebuild(false);
  }

  private schedulePrebuild(restart: boolean): void {
    if (restart) this.prebuildFrom = 0;
    if (this.prebuild === undefined && typeof requestIdleCallback === 'function') this.prebuild = requestIdleCallback(this.prebuildNow, { timeout: 2_000 });
  }

  /** Puts exactly `visible` in the layer, in order, and lets go of deleted elements' nodes. */
  private mountNodes(visible: readonly Element[], elements: ReadonlyMap<string, Element>): void {
    const layer = this.dom.elements;
    const seen = new Set<string>();
    let previous: SVGGElement | null = null;
    for (const element of visible) {
      seen.add(element.id);
      const d = this.nodeFor(element);
      d.mounted = true;
      // Keep DOM order = drawing order, moving a node only when it is out of place.
      const expectedNext: ChildNode | null = previous ? previous.nextSibling : layer.firstChild;
      if (expectedNext !== d.g) layer.insertBefore(d.g, expectedNext);
      previous = d.g;
    }
    for (const [id, d] of this.drawn) {
      if (seen.has(id)) continue;
      if (d.mounted) {
        d.g.remove();
        d.mounted = false;
        if (this.moved.delete(id)) d.g.removeAttribute('transform');
        if (this.reshaped.delete(id)) d.g.innerHTML = shapeSvg(d.element.shape);
      }
      // Deleted from the board: forget it. Culled or on the canvas: keep the node for later.
      if (!elements.has(id)) this.drawn.delete(id);
    }
  }

  private frameFor(vp: Viewport): CanvasFrame {
    return canvasFrame(vp, this.size.width, this.size.height, window.devicePixelRatio || 1);
  }

  /**
   * The settled elements in the canvas's area, drawn for the viewport drawn for; drags in progress
   * left out. For the frame it was last painted for, only the areas that changed are cleared and
   * redrawn (clipped, every element reaching into them in drawing order, so the pixels are those
   * of a full paint); a new view, size or pixel ratio repaints it all (overview.ts's repaintAreas).
   */
  private paintCanvas(): void {
    if (this.paintRequest !== undefined) cancelAnimationFrame(this.paintRequest);
    this.paintRequest = undefined;
    const ctx = this.ctx;
    if (!ctx) return;
    const canvas = this.dom.canvas;
    const frame = this.frameFor(this.view.drawnFor);
    // Assigning a size clears the canvas and its state even when unchanged: only on a change.
    if (canvas.width !== frame.pixelWidth) canvas.width = frame.pixelWidth;
    if (canvas.height !== frame.pixelHeight) canvas.height = frame.pixelHeight;
    const style = canvas.style;
    style.left = `${frame.left}px`;
    style.top = `${frame.top}px`;
    style.width = `${frame.cssWidth}px`;
    style.height = `${frame.cssHeight}px`;
    if (!this.canvasShown) {
      style.display = 'block';
      this.canvasShown = true;
    }
    const { elements, ordered } = this.sources.board.getState();
    const { canvas: settled, live } = overviewLayers(ordered, frame.covers, this.sources.motion.getState().previews);
    const now: PaintedCanvas = { elements, leftOut: new Set(live.map((e) => e.id)), frame };
    const boundsOf = (shape: ElementShape) => canvasBounds(ctx, shape);
    const areas = repaintAreas(this.painted, now, boundsOf);
    const t = frame.transform;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    if (areas === null) {
      ctx.clearRect(0, 0, canvas.width, canvas.height);
      ctx.setTransform(t.scale, 0, 0, t.scale, t.x, t.y);
      drawElementsOnCanvas(ctx, settled);
    } else if (areas.length > 0) {
      // The changed areas as whole canvas pixels, in board units: what to redraw elements for.
      const redraw: Bounds[] = [];
      ctx.save();
      ctx.beginPath();
      for (const area of areas) {
        const onCanvas = canvasArea(area, frame);
        if (!onCanvas) continue;
        const p = onCanvas.pixels;
        ctx.clearRect(p.x, p.y, p.w, p.h);
        ctx.rect(p.x, p.y, p.w, p.h);
        redraw.push(onCanvas.board);
      }
      ctx.clip();
      ctx.setTransform(t.scale, 0, 0, t.scale, t.x, t.y);
      drawElementsOnCanvas(ctx, settled.filter((e) => redraw.some((r) => intersects(boundsOf(e.shape), r))));
      ctx.restore();
    }
    this.painted = now;
    this.leftOut = now.leftOut;
  }

  /** Board and drag changes repaint once per frame, however many arrive in it. */
  private requestPaint(): void {
    this.paintRequest ??= requestAnimationFrame(this.paintNow);
  }

  /** Out of overview mode the canvas gives its memory back. */
  private hideCanvas(): void {
    if (this.paintRequest !== undefined) cancelAnimationFrame(this.paintRequest);
    this.paintRequest = undefined;
    if (!this.canvasShown) return;
    const canvas = this.dom.canvas;
    canvas.style.display = 'none';
    canvas.width = 0;
    canvas.height = 0;
    this.canvasShown = false;
    this.leftOut = new Set();
    this.painted = null;
  }

  /** Nodes of elements being dragged carry the drag's offset; the others none. */
  private applyMotion(previews: MotionView['previews']): void {
    for (const id of this.moved) {
      if (previews.has(id) && !previews.get(id)?.shape) continue;
      this.drawn.get(id)?.g.removeAttribute('transform');
      this.moved.delete(id);
    }
    // Our own resize or turn: the node shows the preview's shape; back to the element's after.
    for (const [id, shown] of this.reshaped) {
      const d = this.drawn.get(id);
      const next = previews.get(id)?.shape;
      if (next && d?.mounted) continue;
      this.reshaped.delete(id);
      if (d && d.element.shape !== shown) d.g.innerHTML = shapeSvg(d.element.shape);
    }
    for (const id of previews.keys()) {
      const d = this.drawn.get(id);
      const p = previews.get(id);
      if (!d?.mounted || !p) continue;
      if (p.shape) {
        if (this.reshaped.get(id) !== p.shape) d.g.innerHTML = shapeSvg(p.shape);
        this.reshaped.set(id, p.shape);
        continue;
      }
      d.g.setAttribute('transform', `translate(${p.x - d.element.shape.x} ${p.y - d.element.shape.y})`);
      this.moved.add(id);
    }
  }

  private drawOverlay(): void {
    const { elements, selection, handles } = this.sources.board.getState();
    const { previews } = this.sources.motion.getState();
    const { culled, drawnFor } = this.view;
    this.dom.overlay.innerHTML = overlayMarkup(elements, selection, previews, culled, drawnFor.zoom, this.sources.selfSessionId, this.sources.nameOf, this.sources.colorOf, handles);
  }

  private inkBounds(): Bounds | null {
    const { ordered } = this.sources.board.getState();
    if (this.ink?.ordered !== ordered) this.ink = { ordered, bounds: boardInkBounds(ordered) };
    return this.ink.bounds;
  }
}

/** The element's state as data attributes, for tests and for styling. */
function describe({ g, element }: DrawnElement): void {
  g.dataset.kind = element.shape.kind;
  g.dataset.version = String(element.version);
  if (element.lock) g.dataset.lockedBy = element.lock.userId;
  else delete g.dataset.lockedBy;
  if (element.pinned) g.dataset.pinned = 'true';
  else delete g.dataset.pinned;
}
