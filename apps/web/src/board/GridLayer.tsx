import './GridLayer.css';
import type { Paper } from '@wb/protocol';
import { useEffect, useRef } from 'react';
import type { StoreApi } from 'zustand/vanilla';
import { GRID_STEP, gridPlacement, gridStep, type GridDrawn } from './gridPlacement.ts';
import { PAPER_TILES, paperAxes, paperTileImage } from './paper.ts';
import type { Viewport } from './viewport.ts';

/** The grid is its own compositor layer until this long after the last view change (ms). */
const SETTLE_MS = 200;

/**
 * The board's paper (paper.ts: dots, squares, lines, graph paper, staves, or blank), no React
 * render per pan or zoom. Dots are a CSS radial gradient; the other papers are their tile as an
 * SVG image: one repeating background either way, never a node per line. The grid is a repeating CSS background
 * on a layer larger than the board by at least a screen on every side, placed by a CSS transform
 * (gridPlacement.ts). During a gesture it is its own compositor layer and keeps the tile size it
 * was drawn with: a pan moves the raster and a zoom scales it, so neither repaints the screen
 * (changing `background-size` on every zoom step did). The tile is redrawn at the right size when
 * the gesture settles, or mid-gesture when the zoom has halved or doubled since. At rest it paints
 * with the page (fewer layers for Chromium to layerize under moving cursors).
 */
export function GridLayer({ viewport, paper }: { viewport: StoreApi<Viewport>; paper: Paper }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    const board = el?.parentElement;
    if (!el || !board) return;
    const tile = PAPER_TILES[paper];
    if (!tile) return;
    // Dots keep the stylesheet's gradient (the rendering benchmark's layer); other papers their tile.
    el.style.backgroundImage = paper === 'dots' ? '' : paperTileImage(tile);
    const across = tile.w / GRID_STEP;
    const down = tile.h / GRID_STEP;
    let drawn: GridDrawn | null = null;
    let screen = Math.max(board.clientWidth, board.clientHeight);
    let settleTimer: ReturnType<typeof setTimeout> | undefined;

    const draw = (vp: Viewport) => {
      const step = gridStep(vp.zoom);
      const tileW = step * across;
      const tileH = step * down;
      // A whole number of tiles past each edge, at least a screen: a zoom-out to half still covers.
      const big = Math.max(tileW, tileH);
      const pad = Math.ceil(Math.max(screen, 1) / big) * big;
      drawn = { zoom: vp.zoom, step, pad, tileW, tileH };
      el.style.backgroundSize = `${tileW}px ${tileH}px`;
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
  }, [viewport, paper]);
  return (
    <>
      <div ref={ref} className="layer layer-grid" aria-hidden="true" data-paper={paper} hidden={PAPER_TILES[paper] === null} />
      {paperAxes(paper) && <PaperAxes viewport={viewport} />}
    </>
  );
}

/** Graph paper's x and y axes through the board's origin: two lines moved by transforms. */
function PaperAxes({ viewport }: { viewport: StoreApi<Viewport> }) {
  const xAxis = useRef<HTMLDivElement>(null);
  const yAxis = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const place = (vp: Viewport) => {
      if (xAxis.current) xAxis.current.style.transform = `translateY(${vp.y}px)`;
      if (yAxis.current) yAxis.current.style.transform = `translateX(${vp.x}px)`;
    };
    place(viewport.getState());
    return viewport.subscribe(place);
  }, [viewport]);
  return (
    <div className="layer layer-axes" aria-hidden="true" data-testid="paper-axes">
      <div ref={xAxis} className="paper-axis paper-axis-x" />
      <div ref={yAxis} className="paper-axis paper-axis-y" />
    </div>
  );
}
