/**
 * A class-grid tile's board on canvases (tilePainter.ts): the elements on one, others' live ink on
 * one above, each sized to the tile in device pixels. React renders it when the board changes;
 * the painter then draws only what changed. Live ink comes from the boards client's ink store
 * without React, as the open board's does.
 */
import { memo, useLayoutEffect, useRef } from 'react';
import { drawElementsOnCanvas } from '../elements/elementCanvas.ts';
import { onImageReady } from '../images/imageRefs.ts';
import { orderedElements, type BoardView, type BoardsClient } from './boardsClient.ts';
import { TilePainter, type TileSurface } from './tilePainter.ts';
import { tileDescription } from './tileDescription.ts';

/** A canvas as a painter's surface; the ink layer says how many strokes it shows (`data-strokes`). */
function surface(canvas: HTMLCanvasElement): TileSurface<CanvasRenderingContext2D> | null {
  const ctx = canvas.getContext('2d');
  if (!ctx) return null;
  return {
    ctx,
    get width() {
      return canvas.width;
    },
    get height() {
      return canvas.height;
    },
    setSize(width, height) {
      canvas.width = width;
      canvas.height = height;
    },
    showStrokes(count) {
      if (canvas.dataset.strokes !== String(count)) canvas.dataset.strokes = String(count);
    },
  };
}

/** The canvas's content box in device pixels: exact where the browser says it (Chromium, Firefox). */
function devicePixels(entry: ResizeObserverEntry): { width: number; height: number } {
  const exact = entry.devicePixelContentBoxSize?.[0];
  if (exact) return { width: exact.inlineSize, height: exact.blockSize };
  const dpr = window.devicePixelRatio || 1;
  return { width: entry.contentRect.width * dpr, height: entry.contentRect.height * dpr };
}

export const TileBoard = memo(function TileBoard({ view, liveInk }: { view: BoardView; liveInk: BoardsClient['ink'] }) {
  const boardRef = useRef<HTMLCanvasElement>(null);
  const inkRef = useRef<HTMLCanvasElement>(null);
  const painter = useRef<TilePainter<CanvasRenderingContext2D> | null>(null);
  const viewRef = useRef(view);
  viewRef.current = view;
  const boardId = view.info.id;

  useLayoutEffect(() => {
    const board = boardRef.current && surface(boardRef.current);
    const ink = inkRef.current && surface(inkRef.current);
    if (!board || !ink || !boardRef.current) return;
    const p = new TilePainter(board, ink, drawElementsOnCanvas);
    painter.current = p;
    const rect = boardRef.current.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    p.resize(rect.width * dpr, rect.height * dpr);
    p.paint(orderedElements(viewRef.current));
    p.drawInk(liveInk.getState().byBoard.get(boardId));
    const resized = new ResizeObserver(([entry]) => {
      if (!entry) return;
      const { width, height } = devicePixels(entry);
      p.resize(width, height);
    });
    try {
      resized.observe(boardRef.current, { box: 'device-pixel-content-box' });
    } catch {
      resized.observe(boardRef.current);
    }
    const unsubscribeInk = liveInk.subscribe((now, before) => {
      const strokes = now.byBoard.get(boardId);
      if (strokes !== before.byBoard.get(boardId)) p.drawInk(strokes);
    });
    // A picture the tile shows as its placeholder arrived: drawn again with it.
    const unsubscribeImages = onImageReady((sha256) => {
      for (const e of viewRef.current.elements.values()) {
        if (e.shape.kind === 'image' && e.shape.sha256 === sha256) return p.repaint();
      }
    });
    return () => {
      resized.disconnect();
      unsubscribeInk();
      unsubscribeImages();
      p.clear();
      painter.current = null;
    };
  }, [liveInk, boardId]);

  useLayoutEffect(() => {
    painter.current?.paint(orderedElements(view));
  }, [view]);

  return (
    <div className="activity-board class-tile-board">
      <canvas ref={boardRef} role="img" aria-label={tileDescription(view.info.ownerName, view.info.ownerUserId, view.elements.values())}
        data-testid="tile-board" data-board-id={boardId} data-owner={view.info.ownerName} data-elements={view.elements.size} />
      <canvas ref={inkRef} aria-hidden="true" data-testid="tile-ink" data-strokes="0" />
    </div>
  );
});
