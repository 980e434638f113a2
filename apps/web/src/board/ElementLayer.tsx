import { colorForUser, type Element } from '@wb/protocol';
import { useEffect, useRef } from 'react';
import type { StoreApi } from 'zustand/vanilla';
import type { BoardView, MotionView } from '../elements/boardEditor.ts';
import { shapeSvg, escapeXml } from '../elements/elementSvg.ts';
import { shapeBounds } from '../elements/geometry.ts';
import { containsRect, cullRect, elementsToDraw, visibleRect } from './culling.ts';
import { labelTextColor } from './labelColor.ts';
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
 * Board elements as SVG, drawn so that a large board stays fast:
 * - culling: only elements whose ink reaches into the view plus a margin are in the DOM
 *   (culling.ts); hit tests and export read the store, so culled elements are still on the board;
 * - gestures move a raster: the elements are drawn for one viewport (the SVG group's transform)
 *   inside a plane that becomes a compositor layer for the gesture, and a pan or zoom only
 *   changes the plane's CSS transform, which the compositor applies without repainting. The
 *   drawing catches up when the gesture settles (a zoom is redrawn crisp at its new scale) or,
 *   mid-gesture, when the view leaves the culled area;
 * - React renders only the empty containers. An element's markup is rebuilt only when its shape
 *   object changed and its attributes only when the element did (the edit queue and the sync
 *   engine keep identities of unchanged elements), so a room event costs what it changed;
 * - drags in progress (own and others') move a node by a transform from the motion store;
 * - lock outlines and the selection are a separate overlay group, redrawn when they change.
 */
export function ElementLayer({ viewport, board, motion, draft, selfSessionId, nameOf }: ElementLayerProps) {
  const layerRef = useRef<HTMLDivElement>(null);
  const planeRef = useRef<HTMLDivElement>(null);
  const rootRef = useRef<SVGGElement>(null);
  const elementsRef = useRef<SVGGElement>(null);
  const draftRef = useRef<SVGGElement>(null);
  const overlayRef = useRef<SVGGElement>(null);
  const nameOfRef = useRef(nameOf);
  nameOfRef.current = nameOf;

  useEffect(() => {
    const container = layerRef.current;
    const plane = planeRef.current;
    const root = rootRef.current;
    const layer = elementsRef.current;
    const draftGroup = draftRef.current;
    const overlay = overlayRef.current;
    if (!container || !plane || !root || !layer || !draftGroup || !overlay) return;
    const drawn = new Map<string, DrawnElement>();
    let size = { w: container.clientWidth, h: container.clientHeight };
    /** The viewport the SVG content is drawn for; the plane's CSS transform covers the rest. */
    let drawnFor = viewport.getState();
    /** The board area whose elements are all in the DOM. */
    let culled = cullRect(drawnFor, size.w, size.h);
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

    const drawElements = ({ elements, ordered }: BoardView) => {
      const visible = elementsToDraw(ordered, culled, motion.getState().previews);
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
        // Deleted from the board: forget it. Culled: keep the node for when it comes back.
        if (!elements.has(id)) drawn.delete(id);
      }
      applyMotion();
      drawOverlay();
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
      const parts: string[] = [];
      // Outlines keep their screen size at the zoom the content is drawn for.
      const px = 1 / drawnFor.zoom;
      for (const e of elements.values()) {
        const lockedByOther = e.lock !== null && e.lock.sessionId !== selfSessionId;
        const selected = selection.has(e.id);
        if (!lockedByOther && !selected && !e.pinned) continue;
        if (drawn.get(e.id)?.mounted !== true) continue; // culled: its outline would be off screen too
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

    /** The gesture is over: draw for where it ended and let go of what it left far behind. */
    const settle = () => {
      settleTimer = undefined;
      const vp = viewport.getState();
      drawFor(vp);
      composite(false);
      culled = cullRect(vp, size.w, size.h);
      drawElements(board.getState());
    };

    const place = (vp: Viewport) => {
      if (settleTimer === undefined) composite(true);
      const t = gestureTransform(drawnFor, vp);
      plane.style.transform = t.scale === 1 && t.x === 0 && t.y === 0 ? '' : `translate(${t.x}px, ${t.y}px) scale(${t.scale})`;
      if (!containsRect(culled, visibleRect(vp, size.w, size.h))) {
        // Mid-gesture the view left the drawn area: bring in what it now shows, and more.
        culled = cullRect(vp, size.w, size.h, GESTURE_MARGIN_SCREENS);
        drawElements(board.getState());
      }
      clearTimeout(settleTimer);
      settleTimer = setTimeout(settle, SETTLE_MS);
    };

    const resized = new ResizeObserver(() => {
      size = { w: container.clientWidth, h: container.clientHeight };
      place(viewport.getState());
    });
    resized.observe(container);

    drawFor(drawnFor);
    drawElements(board.getState());
    schedulePrebuild(true);
    const unsubscribers = [
      viewport.subscribe(place),
      board.subscribe((view, prev) => {
        if (view.ordered !== prev.ordered) {
          drawElements(view);
          schedulePrebuild(true);
        }
        else if (view.selection !== prev.selection) drawOverlay();
      }),
      motion.subscribe(({ previews }) => {
        const { elements } = board.getState();
        // A drag can bring a culled element into view: draw it (dragged elements always are).
        for (const id of previews.keys()) {
          if (drawn.get(id)?.mounted !== true && elements.has(id)) {
            drawElements(board.getState());
            return;
          }
        }
        applyMotion();
        drawOverlay();
      }),
      draft.subscribe(drawDraft),
    ];
    return () => {
      for (const u of unsubscribers) u();
      resized.disconnect();
      clearTimeout(settleTimer);
      if (prebuild !== undefined) cancelIdleCallback(prebuild);
      layer.replaceChildren();
      overlay.replaceChildren();
    };
  }, [viewport, board, motion, draft, selfSessionId]);

  // The plane has no size: the SVG overflows it, drawn in board coordinates. The container clips
  // it to the board.
  return (
    <div ref={layerRef} className="layer layer-elements" aria-hidden="true" data-testid="element-layer" style={{ overflow: 'hidden' }}>
      <div ref={planeRef} style={{ position: 'absolute', left: 0, top: 0, transformOrigin: '0 0' }}>
        <svg width="1" height="1" style={{ display: 'block', overflow: 'visible' }}>
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
