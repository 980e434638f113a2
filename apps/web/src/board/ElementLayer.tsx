import { useEffect, useRef } from 'react';
import type { StoreApi } from 'zustand/vanilla';
import type { Viewport } from './viewport.ts';

/**
 * Where board elements (strokes, shapes, text, notes) will render, in board coordinates: one SVG
 * group carries the viewport transform, so elements never need to know about pan or zoom. Empty
 * until the drawing tools land; it is its own layer so elements and cursors never re-render each
 * other.
 */
export function ElementLayer({ viewport }: { viewport: StoreApi<Viewport> }) {
  const groupRef = useRef<SVGGElement>(null);
  useEffect(() => {
    const group = groupRef.current;
    if (!group) return;
    const place = ({ x, y, zoom }: Viewport) => group.setAttribute('transform', `matrix(${zoom} 0 0 ${zoom} ${x} ${y})`);
    place(viewport.getState());
    return viewport.subscribe(place);
  }, [viewport]);
  return (
    <svg className="layer layer-elements" aria-hidden="true">
      <g ref={groupRef} data-layer="elements" />
    </svg>
  );
}
