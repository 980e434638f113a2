import { colorForUser, type Element, type ElementShape } from '@wb/protocol';
import { useEffect, useRef } from 'react';
import type { StoreApi } from 'zustand/vanilla';
import type { BoardView, MotionView } from '../elements/boardEditor.ts';
import { canvasBounds, drawElementsOnCanvas } from '../elements/elementCanvas.ts';
import { shapeSvg, escapeXml } from '../elements/elementSvg.ts';
import { shapeBounds, type Bounds } from '../elements/geometry.ts';
import { boardInkBounds, containsRect, countInRect, cullRect, CULL_MARGIN_SCREENS, elementsToDraw, inRect, intersects, visibleRect } from './culling.ts';
import { labelTextColor } from './labelColor.ts';
import {
  canvasArea,
  canvasFrame,
  changedAreas,
  gestureCanvasViewport,
  overviewLayers,
  overviewMode,
  sameCanvasFrame,
  type CanvasContent,
  type CanvasFrame,
} from './overview.ts';
import type { DraftView } from './toolState.ts';
import { gestureTransform, type Viewport } from './viewport.ts';

interface ElementLayerProps {
  viewport: StoreApi<Viewport>;
  board: StoreApi<BoardView>;
  motion: StoreApi<MotionView>;
  draft: StoreApi<DraftView>;
  selfSessionId: string;
  nameOf: (userId: string) => string;
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
 * Mid-gesture re-culls draw this many screens around the view instead of the usual margin: a
 * zoom-out grows the view on every wheel event, and re-culling on each one would rebuild the layer
 * every frame. The settle trims back to the usual margin.
 */
const GESTURE_MARGIN_SCREENS = 1;

/**
 * Board elements as SVG, or on one canvas when the view holds many, drawn so that a large board
 * stays fast:
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
 * - React renders only the empty containers. An element's markup is rebuilt only when its shape
 *   object changed and its attributes only when the element did (the edit queue and the sync
 *   engine keep identities of unchanged elements), so a room event costs what it changed;
 * - drags in progress (own and others') move a node by a transform from the motion store;
 * - lock outlines and the selection are a separate overlay group, redrawn when they change.
 */
export function ElementLayer({ viewport, board, motion, draft, selfSessionId, nameOf }: ElementLayerProps) {
  const layerRef = useRef<HTMLDivElement>(null);
  const planeRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const rootRef = useRef<SVGGElement>(null);
  const elementsRef = useRef<SVGGElement>(null);
  const draftRef = useRef<SVGGElement>(null);
  const overlayRef = useRef<SVGGElement>(null);
  const nameOfRef = useRef(nameOf);
  nameOfRef.current = nameOf;

  useEffect(() => {
    const container = layerRef.current;
    const plane = planeRef.current;
    const canvas = canvasRef.current;
    const root = rootRef.current;
    const layer = elementsRef.current;
    const draftGroup = draftRef.current;
    const overlay = overlayRef.current;
    if (!container || !plane || !canvas || !root || !layer || !draftGroup || !overlay) return;
    // No 2D context (a browser out of memory for canvases): the layer stays SVG.
    const ctx = canvas.getContext('2d');
    const drawn = new Map<string, DrawnElement>();
    let size = { w: container.clientWidth, h: container.clientHeight };
    /** The viewport the SVG content and the canvas are drawn for; the plane's CSS transform covers the rest. */
    let drawnFor = viewport.getState();
    /** The board area whose elements are all drawn (as nodes, or on the canvas in overview mode). */
    let culled = cullRect(drawnFor, size.w, size.h);
    let overview = false;
    /** Elements drawn live instead of on the canvas at its last paint (drags in progress). */
    let leftOut: ReadonlySet<string> = new Set();
    /** What the canvas shows and for which frame; null when it shows nothing yet. */
    let painted: (CanvasContent & { readonly frame: CanvasFrame }) | null = null;
    let canvasShown = false;
    let paintRequest: number | undefined;
    let settleTimer: ReturnType<typeof setTimeout> | undefined;

    const drawFor = (vp: Viewport) => {
      root.setAttribute('transform', `matrix(${vp.zoom} 0 0 ${vp.zoom} ${vp.x} ${vp.y})`);
      plane.style.transform = '';
      drawnFor = vp;
    };
    /**
     * The plane is its own compositor layer only during a gesture. At rest it paints with the
     * page: measured in Chromium, a composited plane under 30 moving cursors made every frame's
     * layerization about twice as slow, and at rest nothing needs it.
     */
    const composite = (on: boolean) => {
      plane.style.willChange = on ? 'transform' : '';
    };
    const frameFor = (vp: Viewport) => canvasFrame(vp, size.w, size.h, window.devicePixelRatio || 1);

    /**
     * Overview mode on or off for the view as it is now, counted in the usual cull rect (not the
     * wider one a gesture draws), so a mid-gesture count and the settle's agree. True on a change.
     */
    const updateMode = (ordered: readonly Element[]): boolean => {
      const inView = countInRect(ordered, cullRect(viewport.getState(), size.w, size.h));
      container.dataset.inView = String(inView);
      const next = ctx !== null && overviewMode(overview, inView);
      if (next === overview) return false;
      overview = next;
      container.dataset.mode = next ? 'overview' : 'elements';
      return true;
    };

    const offsetOf = (e: Element): { dx: number; dy: number } | null => {
      const p = motion.getState().previews.get(e.id);
      return p ? { dx: p.x - e.shape.x, dy: p.y - e.shape.y } : null;
    };

    /** The element's node, built or brought up to date (not placed in the layer). */
    const nodeFor = (element: Element): DrawnElement => {
      let d = drawn.get(element.id);
      if (!d) {
        const g = document.createElementNS(SVG_NS, 'g');
        g.dataset.testid = 'element';
        g.dataset.elementId = element.id;
        g.innerHTML = shapeSvg(element.shape);
        d = { g, element, mounted: false };
        drawn.set(element.id, d);
        describe(d);
      } else if (d.element !== element) {
        if (d.element.shape !== element.shape) d.g.innerHTML = shapeSvg(element.shape);
        d.element = element;
        describe(d);
      }
      return d;
    };

    /**
     * Culled elements' nodes are built ahead, a few at a time in idle time, so a pan or zoom that
     * brings them into view only inserts nodes: parsing their markup then (about 0.1 ms each) is
     * what made a zoom-out's mid-gesture re-cull a 400 ms frame.
     */
    let prebuild: number | undefined;
    let prebuildFrom = 0;
    const prebuildStep = (deadline: IdleDeadline) => {
      prebuild = undefined;
      const { ordered } = board.getState();
      while (prebuildFrom < ordered.length && deadline.timeRemaining() > 1) {
        const element = ordered[prebuildFrom++]!;
        const d = drawn.get(element.id);
        if (!d || (!d.mounted && d.element !== element)) nodeFor(element);
      }
      if (prebuildFrom < ordered.length) schedulePrebuild(false);
    };
    const schedulePrebuild = (restart: boolean) => {
      if (restart) prebuildFrom = 0;
      if (prebuild === undefined && typeof requestIdleCallback === 'function') prebuild = requestIdleCallback(prebuildStep, { timeout: 2_000 });
    };

    /** Puts exactly `visible` in the layer, in order, and lets go of deleted elements' nodes. */
    const mountNodes = (visible: readonly Element[], elements: ReadonlyMap<string, Element>) => {
      const seen = new Set<string>();
      let previous: SVGGElement | null = null;
      for (const element of visible) {
        seen.add(element.id);
        const d = nodeFor(element);
        d.mounted = true;
        // Keep DOM order = drawing order, moving a node only when it is out of place.
        const expectedNext: ChildNode | null = previous ? previous.nextSibling : layer.firstChild;
        if (expectedNext !== d.g) layer.insertBefore(d.g, expectedNext);
        previous = d.g;
      }
      for (const [id, d] of drawn) {
        if (seen.has(id)) continue;
        if (d.mounted) {
          d.g.remove();
          d.mounted = false;
          if (moved.delete(id)) d.g.removeAttribute('transform');
        }
        // Deleted from the board: forget it. Culled or on the canvas: keep the node for later.
        if (!elements.has(id)) drawn.delete(id);
      }
    };

    /**
     * The settled elements in the canvas's area, drawn for `drawnFor`; drags in progress left out.
     * For the view it was last painted for, only the areas that changed are cleared and redrawn
     * (clipped, every element reaching into them in drawing order, so the pixels are those of a
     * full paint); a new view, size or pixel ratio repaints it all.
     */
    const paintCanvas = () => {
      if (paintRequest !== undefined) cancelAnimationFrame(paintRequest);
      paintRequest = undefined;
      if (!ctx) return;
      const frame = frameFor(drawnFor);
      // Assigning a size clears the canvas and its state even when unchanged: only on a change.
      if (canvas.width !== frame.pixelWidth) canvas.width = frame.pixelWidth;
      if (canvas.height !== frame.pixelHeight) canvas.height = frame.pixelHeight;
      const style = canvas.style;
      style.left = `${frame.left}px`;
      style.top = `${frame.top}px`;
      style.width = `${frame.cssWidth}px`;
      style.height = `${frame.cssHeight}px`;
      if (!canvasShown) {
        style.display = 'block';
        canvasShown = true;
      }
      const { elements, ordered } = board.getState();
      const { canvas: settled, live } = overviewLayers(ordered, frame.covers, motion.getState().previews);
      const now = { elements, leftOut: new Set(live.map((e) => e.id)), frame };
      const boundsOf = (shape: ElementShape) => canvasBounds(ctx, shape);
      const areas = painted !== null && sameCanvasFrame(painted.frame, frame) ? changedAreas(painted, now, frame.covers, boundsOf) : null;
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
      painted = now;
      leftOut = now.leftOut;
    };
    /** Board and drag changes repaint once per frame, however many arrive in it. */
    const requestPaint = () => {
      paintRequest ??= requestAnimationFrame(paintCanvas);
    };
    /** Out of overview mode the canvas gives its memory back. */
    const hideCanvas = () => {
      if (paintRequest !== undefined) cancelAnimationFrame(paintRequest);
      paintRequest = undefined;
      if (!canvasShown) return;
      canvas.style.display = 'none';
      canvas.width = 0;
      canvas.height = 0;
      canvasShown = false;
      leftOut = new Set();
      painted = null;
    };

    /**
     * Draws what `culled` holds for the current mode. `now` paints the canvas in this task (the
     * viewport it is drawn for just changed, and the plane's transform with it); otherwise the
     * paint waits for the next frame.
     */
    const drawElements = ({ elements, ordered }: BoardView, now: boolean) => {
      const { previews } = motion.getState();
      if (overview) {
        mountNodes(overviewLayers(ordered, culled, previews).live, elements);
        if (now) paintCanvas();
        else requestPaint();
      } else {
        mountNodes(elementsToDraw(ordered, culled, previews), elements);
        hideCanvas();
      }
      applyMotion();
      drawOverlay();
    };

    /**
     * Draws for a new viewport: at a settle, or mid-gesture when the view left the drawn area. A
     * gesture draws more than the view: SVG nodes a screen around it, the canvas (its size is
     * the screen's) for half the zoom when zooming out.
     */
    const redrawFor = (vp: Viewport, gesture: boolean) => {
      const view = board.getState();
      updateMode(view.ordered);
      if (overview) {
        drawFor(gesture ? gestureCanvasViewport(drawnFor, vp, size.w, size.h) : vp);
        culled = frameFor(drawnFor).covers;
      } else {
        drawFor(vp);
        culled = cullRect(vp, size.w, size.h, gesture ? GESTURE_MARGIN_SCREENS : CULL_MARGIN_SCREENS);
      }
      drawElements(view, true);
    };

    /** The board changed (not the view): the same viewport, perhaps the other mode. */
    const boardChanged = (view: BoardView) => {
      if (updateMode(view.ordered)) culled = overview ? frameFor(drawnFor).covers : cullRect(drawnFor, size.w, size.h);
      drawElements(view, false);
    };

    const moved = new Set<string>();
    const applyMotion = () => {
      const { previews } = motion.getState();
      for (const id of moved) {
        if (previews.has(id)) continue;
        drawn.get(id)?.g.removeAttribute('transform');
        moved.delete(id);
      }
      for (const id of previews.keys()) {
        const d = drawn.get(id);
        const off = d?.mounted ? offsetOf(d.element) : null;
        if (!d || !off) continue;
        d.g.setAttribute('transform', `translate(${off.dx} ${off.dy})`);
        moved.add(id);
      }
    };

    const drawOverlay = () => {
      const { elements, selection } = board.getState();
      const { previews } = motion.getState();
      const parts: string[] = [];
      // Outlines keep their screen size at the zoom the content is drawn for.
      const px = 1 / drawnFor.zoom;
      for (const e of elements.values()) {
        const lockedByOther = e.lock !== null && e.lock.sessionId !== selfSessionId;
        const selected = selection.has(e.id);
        if (!lockedByOther && !selected && !e.pinned) continue;
        // Culled: its outline would be off screen too.
        if (!previews.has(e.id) && !inRect(e, culled)) continue;
        const off = offsetOf(e) ?? { dx: 0, dy: 0 };
        const b = shapeBounds(e.shape);
        const pad = 6 * px;
        const x = b.x - pad + off.dx;
        const y = b.y - pad + off.dy;
        const w = b.w + 2 * pad;
        const h = b.h + 2 * pad;
        if (lockedByOther && e.lock) {
          const color = colorForUser(e.lock.userId);
          const name = escapeXml(nameOfRef.current(e.lock.userId));
          parts.push(
            `<g data-testid="lock-outline" data-element-id="${e.id}" data-user-id="${e.lock.userId}">` +
              `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="${4 * px}" fill="none" stroke="${color}" stroke-width="${2 * px}"/>` +
              `<rect x="${x}" y="${y - 20 * px}" width="${Math.max(40, name.length * 7 + 14) * px}" height="${18 * px}" rx="${4 * px}" fill="${color}"/>` +
              `<text x="${x + 7 * px}" y="${y - 7 * px}" font-size="${12 * px}" font-weight="600" font-family="system-ui, sans-serif" fill="${labelTextColor(color)}">${name}</text></g>`,
          );
        } else if (selected) {
          parts.push(
            `<rect data-testid="selection-outline" data-element-id="${e.id}" x="${x}" y="${y}" width="${w}" height="${h}" rx="${4 * px}" fill="none" stroke="#264de4" stroke-width="${1.5 * px}" stroke-dasharray="${4 * px} ${3 * px}"/>`,
          );
        }
        if (e.pinned) {
          parts.push(`<circle data-testid="pin-mark" data-element-id="${e.id}" cx="${x + w}" cy="${y}" r="${6 * px}" fill="#b42318" stroke="#ffffff" stroke-width="${1.5 * px}"/>`);
        }
      }
      overlay.innerHTML = parts.join('');
    };

    const drawDraft = ({ shape }: DraftView) => {
      draftGroup.innerHTML = shape ? shapeSvg(shape) : '';
    };

    /**
     * Whether a drag began or ended in a way the drawing must follow: in overview mode the canvas
     * is repainted without (or again with) the element; otherwise a drag can bring a culled
     * element into view, and dragged elements are always drawn.
     */
    const dragsChanged = (previews: MotionView['previews']): boolean => {
      const { elements } = board.getState();
      let moving = 0;
      for (const id of previews.keys()) {
        if (!elements.has(id)) continue;
        if (overview ? !leftOut.has(id) : drawn.get(id)?.mounted !== true) return true;
        moving++;
      }
      return overview && moving !== leftOut.size;
    };

    /** The gesture is over: draw for where it ended and let go of what it left far behind. */
    const settle = () => {
      settleTimer = undefined;
      redrawFor(viewport.getState(), false);
      composite(false);
    };

    /** The board's ink, computed once per `ordered` (the board's identity changes on every edit). */
    let ink: { ordered: readonly Element[]; bounds: Bounds | null } | null = null;
    const allInkDrawn = () => {
      const { ordered } = board.getState();
      if (ink?.ordered !== ordered) ink = { ordered, bounds: boardInkBounds(ordered) };
      return ink.bounds === null || containsRect(culled, ink.bounds);
    };

    const place = (vp: Viewport) => {
      if (settleTimer === undefined) composite(true);
      // Mid-gesture the view left the drawn area: bring in what it now shows, and more; unless
      // every element's ink is already drawn (zooming out past the board's edges: a redraw of
      // the whole board would show only more empty board, and cost a long frame).
      if (!containsRect(culled, visibleRect(vp, size.w, size.h)) && !allInkDrawn()) redrawFor(vp, true);
      // (The canvas may be drawn for less zoom than the view has.)
      const t = gestureTransform(drawnFor, vp);
      plane.style.transform = t.scale === 1 && t.x === 0 && t.y === 0 ? '' : `translate(${t.x}px, ${t.y}px) scale(${t.scale})`;
      clearTimeout(settleTimer);
      settleTimer = setTimeout(settle, SETTLE_MS);
    };

    const resized = new ResizeObserver(() => {
      size = { w: container.clientWidth, h: container.clientHeight };
      place(viewport.getState());
    });
    resized.observe(container);

    container.dataset.mode = 'elements';
    redrawFor(drawnFor, false);
    schedulePrebuild(true);
    const unsubscribers = [
      viewport.subscribe(place),
      board.subscribe((view, prev) => {
        if (view.ordered !== prev.ordered) {
          boardChanged(view);
          schedulePrebuild(true);
        }
        else if (view.selection !== prev.selection) drawOverlay();
      }),
      motion.subscribe(({ previews }) => {
        if (dragsChanged(previews)) drawElements(board.getState(), false);
        else {
          applyMotion();
          drawOverlay();
        }
      }),
      draft.subscribe(drawDraft),
    ];
    return () => {
      for (const u of unsubscribers) u();
      resized.disconnect();
      clearTimeout(settleTimer);
      if (prebuild !== undefined) cancelIdleCallback(prebuild);
      hideCanvas();
      layer.replaceChildren();
      overlay.replaceChildren();
    };
  }, [viewport, board, motion, draft, selfSessionId]);

  // The plane has no size: the SVG overflows it, drawn in board coordinates, and the canvas sits
  // around it (overview.ts's canvasFrame). The container clips them to the board. The SVG is
  // positioned too, so that it stays above the canvas.
  return (
    <div ref={layerRef} className="layer layer-elements" aria-hidden="true" data-testid="element-layer" style={{ overflow: 'hidden' }}>
      <div ref={planeRef} style={{ position: 'absolute', left: 0, top: 0, transformOrigin: '0 0' }}>
        <canvas ref={canvasRef} data-testid="element-canvas" width={0} height={0} style={{ position: 'absolute', display: 'none' }} />
        <svg width="1" height="1" style={{ display: 'block', position: 'relative', overflow: 'visible' }}>
          <g ref={rootRef}>
            <g ref={elementsRef} data-layer="elements" />
            <g ref={draftRef} data-layer="draft" opacity="0.85" />
            <g ref={overlayRef} data-layer="overlay" />
          </g>
        </svg>
      </div>
    </div>
  );
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
