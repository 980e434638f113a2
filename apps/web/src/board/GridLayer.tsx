import { useEffect, useRef } from 'react';
import type { StoreApi } from 'zustand/vanilla';
import { gridPlacement, gridStep, type GridDrawn } from './gridPlacement.ts';
import type { Viewport } from './viewport.ts';

/** The grid is its own compositor layer until this long after the last view change (ms). */
const SETTLE_MS = 200;

/**
 * The dotted background, no React render per pan or zoom. The grid is a repeating CSS background
 * on a layer larger than the board by at least a screen on every side, placed by a CSS transform
 * (gridPlacement.ts). During a gesture it is its own compositor layer and keeps the tile size it
 * was drawn with: a pan moves the raster and a zoom scales it, so neither repaints the screen
 * (changing `background-size` on every zoom step did). The tile is redrawn at the right size when
 * the gesture settles, or mid-gesture when the zoom has halved or doubled since. At rest it paints
 * with the page (fewer layers for Chromium to layerize under moving cursors).
 */
export function GridLayer({ viewport }: { viewport: StoreApi<Viewport> }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    const board = el?.parentElement;
    if (!el || !board) return;
    let drawn: GridDrawn | null = null;
    let screen = Math.max(board.clientWidth, board.clientHeight);
    let settleTimer: ReturnType<typeof setTimeout> | undefined;

    const draw = (vp: Viewport) => {
      const step = gridStep(vp.zoom);
      // A whole number of tiles past each edge, at least a screen: a zoom-out to half still covers.
      const pad = Math.ceil(Math.max(screen, 1) / step) * step;
      drawn = { zoom: vp.zoom, step, pad };
      el.style.backgroundSize = `${step}px ${step}px`;
      el.style.inset = `${-pad}px`;
      el.style.transformOrigin = `${pad}px ${pad}px`;
    };
    const place = (vp: Viewport, gesture: boolean) => {
      let placement = drawn && gesture ? gridPlacement(drawn, vp) : null;
      if (!placement) {
        draw(vp);
        placement = gridPlacement(drawn!, vp)!;
      }
      const { tx, ty, scale } = placement;
      el.style.transform = scale === 1 ? `translate(${tx}px, ${ty}px)` : `translate(${tx}px, ${ty}px) scale(${scale})`;
    };
    const settle = () => {
      settleTimer = undefined;
      el.style.willChange = '';
      place(viewport.getState(), false);
    };
    const resized = new ResizeObserver(() => {
      screen = Math.max(board.clientWidth, board.clientHeight);
      place(viewport.getState(), false);
    });
    resized.observe(board);
    place(viewport.getState(), false);
    const unsubscribe = viewport.subscribe((vp) => {
      if (settleTimer === undefined) el.style.willChange = 'transform';
      clearTimeout(settleTimer);
      settleTimer = setTimeout(settle, SETTLE_MS);
      place(vp, true);
    });
    return () => {
      unsubscribe();
      resized.disconnect();
      clearTimeout(settleTimer);
    };
  }, [viewport]);
  return <div ref={ref} className="layer layer-grid" aria-hidden="true" />;
}
