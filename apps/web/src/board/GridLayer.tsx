import { useEffect, useRef } from 'react';
import type { StoreApi } from 'zustand/vanilla';
import type { Viewport } from './viewport.ts';

/** Board units between grid dots at 100%. */
const GRID_STEP = 24;
/** Dots closer than this on screen (px) are thinned out by doubling the step: no grey mush. */
const MIN_GRID_PX = 12;

/** The dotted background: a CSS background moved by the viewport, no React render per pan. */
export function GridLayer({ viewport }: { viewport: StoreApi<Viewport> }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const place = ({ x, y, zoom }: Viewport) => {
      let step = GRID_STEP * zoom;
      while (step < MIN_GRID_PX) step *= 2;
      el.style.backgroundSize = `${step}px ${step}px`;
      el.style.backgroundPosition = `${x}px ${y}px`;
    };
    place(viewport.getState());
    return viewport.subscribe(place);
  }, [viewport]);
  return <div ref={ref} className="layer layer-grid" aria-hidden="true" />;
}
