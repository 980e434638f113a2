import { useEffect, useRef } from 'react';
import type { StoreApi } from 'zustand/vanilla';
import type { Viewport } from './viewport.ts';

/** Board units between grid dots at 100%. */
const GRID_STEP = 24;
/** Dots closer than this on screen (px) are thinned out by doubling the step: no grey mush. */
const MIN_GRID_PX = 12;
/** The grid is its own compositor layer until this long after the last view change (ms). */
const SETTLE_MS = 200;

/**
 * The dotted background, no React render per pan. The grid is a repeating CSS background one step
 * larger than the board on every side, moved by a CSS transform by the view's offset modulo one
 * step. During a gesture it is its own compositor layer, so a pan moves a raster instead of
 * repainting the whole screen (which, painted with the page, it did on every wheel event); at
 * rest it paints with the page (fewer layers for Chromium to layerize under moving cursors).
 */
export function GridLayer({ viewport }: { viewport: StoreApi<Viewport> }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    let drawnStep = 0;
    let settleTimer: ReturnType<typeof setTimeout> | undefined;
    const place = ({ x, y, zoom }: Viewport) => {
      let step = GRID_STEP * zoom;
      while (step < MIN_GRID_PX) step *= 2;
      if (step !== drawnStep) {
        drawnStep = step;
        el.style.backgroundSize = `${step}px ${step}px`;
        el.style.inset = `${-step}px`;
      }
      // Dots sit at the view's offset modulo a step; the layer's edge one step out covers the board.
      const tx = ((x % step) + step) % step;
      const ty = ((y % step) + step) % step;
      el.style.transform = `translate(${tx}px, ${ty}px)`;
    };
    const settle = () => {
      settleTimer = undefined;
      el.style.willChange = '';
    };
    place(viewport.getState());
    const unsubscribe = viewport.subscribe((vp) => {
      if (settleTimer === undefined) el.style.willChange = 'transform';
      clearTimeout(settleTimer);
      settleTimer = setTimeout(settle, SETTLE_MS);
      place(vp);
    });
    return () => {
      unsubscribe();
      clearTimeout(settleTimer);
    };
  }, [viewport]);
  return <div ref={ref} className="layer layer-grid" aria-hidden="true" />;
}
