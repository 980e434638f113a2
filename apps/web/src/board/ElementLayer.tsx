import { colorForUser, type Element } from '@wb/protocol';
import { useEffect, useRef } from 'react';
import type { StoreApi } from 'zustand/vanilla';
import type { BoardView, MotionView } from '../elements/boardEditor.ts';
import { shapeSvg, escapeXml } from '../elements/elementSvg.ts';
import { shapeBounds } from '../elements/geometry.ts';
import { labelTextColor } from './labelColor.ts';
import type { DraftView } from './toolState.ts';
import type { Viewport } from './viewport.ts';

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
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * Board elements in one SVG group that carries the viewport transform, so elements never know
 * about pan or zoom. React renders only the empty groups; element nodes are created, updated and
 * removed from store subscriptions:
 * - an element's markup is rebuilt only when its shape object changed (the edit queue and the
 *   sync engine keep identities of unchanged elements), so 2,000 elements cost nothing per event;
 * - drags in progress (own and others') move a node by a transform from the motion store, without
 *   touching its markup or React;
 * - lock outlines and the selection are a separate overlay group, redrawn when they change.
 */
export function ElementLayer({ viewport, board, motion, draft, selfSessionId, nameOf }: ElementLayerProps) {
  const rootRef = useRef<SVGGElement>(null);
  const elementsRef = useRef<SVGGElement>(null);
  const draftRef = useRef<SVGGElement>(null);
  const overlayRef = useRef<SVGGElement>(null);
  const nameOfRef = useRef(nameOf);
  nameOfRef.current = nameOf;

  useEffect(() => {
    const root = rootRef.current;
    const layer = elementsRef.current;
    const draftGroup = draftRef.current;
    const overlay = overlayRef.current;
    if (!root || !layer || !draftGroup || !overlay) return;
    const drawn = new Map<string, DrawnElement>();
    let zoom = viewport.getState().zoom;

    const place = ({ x, y, zoom: z }: Viewport) => {
      root.setAttribute('transform', `matrix(${z} 0 0 ${z} ${x} ${y})`);
      if (z !== zoom) {
        zoom = z;
        drawOverlay(); // labels and outlines keep their screen size
      }
    };

    const offsetOf = (e: Element): { dx: number; dy: number } | null => {
      const p = motion.getState().previews.get(e.id);
      return p ? { dx: p.x - e.shape.x, dy: p.y - e.shape.y } : null;
    };

    const drawElements = ({ ordered }: BoardView) => {
      const seen = new Set<string>();
      let previous: SVGGElement | null = null;
      for (const element of ordered) {
        seen.add(element.id);
        let d = drawn.get(element.id);
        if (!d) {
          const g = document.createElementNS(SVG_NS, 'g');
          g.dataset.testid = 'element';
          g.dataset.elementId = element.id;
          g.innerHTML = shapeSvg(element.shape);
          d = { g, element };
          drawn.set(element.id, d);
        } else if (d.element.shape !== element.shape) {
          d.g.innerHTML = shapeSvg(element.shape);
        }
        d.element = element;
        d.g.dataset.kind = element.shape.kind;
        d.g.dataset.version = String(element.version);
        if (element.lock) d.g.dataset.lockedBy = element.lock.userId;
        else delete d.g.dataset.lockedBy;
        if (element.pinned) d.g.dataset.pinned = 'true';
        else delete d.g.dataset.pinned;
        // Keep DOM order = drawing order, moving a node only when it is out of place.
        const expectedNext: ChildNode | null = previous ? previous.nextSibling : layer.firstChild;
        if (expectedNext !== d.g) layer.insertBefore(d.g, expectedNext);
        previous = d.g;
      }
      for (const [id, d] of drawn) {
        if (!seen.has(id)) {
          d.g.remove();
          drawn.delete(id);
        }
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
        const off = d ? offsetOf(d.element) : null;
        if (!d || !off) continue;
        d.g.setAttribute('transform', `translate(${off.dx} ${off.dy})`);
        moved.add(id);
      }
    };

    const drawOverlay = () => {
      const { elements, selection } = board.getState();
      const parts: string[] = [];
      const px = 1 / zoom;
      for (const e of elements.values()) {
        const lockedByOther = e.lock !== null && e.lock.sessionId !== selfSessionId;
        const selected = selection.has(e.id);
        if (!lockedByOther && !selected && !e.pinned) continue;
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

    place(viewport.getState());
    drawElements(board.getState());
    const unsubscribers = [
      viewport.subscribe(place),
      board.subscribe((view, prev) => {
        if (view.ordered !== prev.ordered) drawElements(view);
        else if (view.selection !== prev.selection) drawOverlay();
      }),
      motion.subscribe(() => {
        applyMotion();
        drawOverlay();
      }),
      draft.subscribe(drawDraft),
    ];
    return () => {
      for (const u of unsubscribers) u();
      layer.replaceChildren();
      overlay.replaceChildren();
    };
  }, [viewport, board, motion, draft, selfSessionId]);

  return (
    <svg className="layer layer-elements" aria-hidden="true" data-testid="element-layer">
      <g ref={rootRef}>
        <g ref={elementsRef} data-layer="elements" />
        <g ref={draftRef} data-layer="draft" opacity="0.85" />
        <g ref={overlayRef} data-layer="overlay" />
      </g>
    </svg>
  );
}
