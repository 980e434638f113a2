/**
 * A class-grid tile's board on canvases (tilePainter.ts): the elements on one, others' live ink on
 * one above, each sized to the tile in device pixels. React renders it when the board changes;
 * the painter then draws only what changed. Live ink comes from the boards client's ink store
 * without React, as the open board's does.
 */
import type { Element, ElementShape } from '@wb/protocol';
import { memo, useLayoutEffect, useRef } from 'react';
import { useStore } from 'zustand';
import type { BoardEngine } from '../connection/boardEngine.ts';
import { drawElementsOnCanvas } from '../elements/elementCanvas.ts';
import { equationPicture, onEquationPictureReady } from '../elements/equationPicture.ts';
import { inLayerOrder } from '../elements/geometry.ts';
import { onEquationRendererLoaded } from '../elements/equationRenderer.ts';
import { onImageReady } from '../images/imageRefs.ts';
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

/**
 * Keeps the painter at the canvas's size in device pixels: its CSS size times the pixel ratio, on
 * a resize and on a change of ratio (a page zoom, a move to another screen). Not the observer's
 * device-pixel box: Chromium leaves an emulated ratio (the tests' phone) out of it.
 */
function followSize(canvas: HTMLCanvasElement, painter: TilePainter<CanvasRenderingContext2D>): () => void {
  let size = { width: canvas.clientWidth, height: canvas.clientHeight };
  let ratio: MediaQueryList | null = null;
  const paint = () => {
    const dpr = window.devicePixelRatio || 1;
    painter.resize(size.width * dpr, size.height * dpr);
  };
  const watchRatio = () => {
    ratio?.removeEventListener('change', onRatio);
    ratio = typeof matchMedia === 'function' ? matchMedia(`(resolution: ${window.devicePixelRatio || 1}dppx)`) : null;
    ratio?.addEventListener('change', onRatio);
  };
  const onRatio = () => {
    watchRatio();
    paint();
  };
  const resized = new ResizeObserver(([entry]) => {
    if (!entry) return;
    size = { width: entry.contentRect.width, height: entry.contentRect.height };
    paint();
  });
  resized.observe(canvas);
  watchRatio();
  paint();
  return () => {
    resized.disconnect();
    ratio?.removeEventListener('change', onRatio);
  };
}

const NO_ELEMENTS: ReadonlyMap<string, Element> = new Map();

export const TileBoard = memo(function TileBoard({ engine, owner, ownerUserId }: { engine: BoardEngine; owner: string; ownerUserId: string }) {
  const boardRef = useRef<HTMLCanvasElement>(null);
  const inkRef = useRef<HTMLCanvasElement>(null);
  const painter = useRef<TilePainter<CanvasRenderingContext2D> | null>(null);
  const elements = useStore(engine.board, (b) => b.state?.elements ?? NO_ELEMENTS);
  const elementsRef = useRef(elements);
  elementsRef.current = elements;
  const boardId = engine.id;

  useLayoutEffect(() => {
    const board = boardRef.current && surface(boardRef.current);
    const ink = inkRef.current && surface(inkRef.current);
    if (!board || !ink || !boardRef.current) return;
    const p = new TilePainter(board, ink, (ctx, drawn: readonly Element[]) => drawElementsOnCanvas(ctx, drawn, equationPicture));
    painter.current = p;
    const unfollow = followSize(boardRef.current, p);
    p.paint(inLayerOrder(elementsRef.current.values(), ownerUserId));
    p.drawInk(engine.ink.getState().strokes);
    const unsubscribeInk = engine.ink.subscribe((now, before) => {
      if (now.strokes !== before.strokes) p.drawInk(now.strokes);
    });
    // A picture the tile shows as its placeholder arrived: drawn again with it. Equations show
    // their source until KaTeX has loaded and their picture decoded (equationPicture.ts).
    const holds = (test: (shape: ElementShape) => boolean) => [...elementsRef.current.values()].some((e) => test(e.shape));
    const unsubscribeImages = onImageReady((sha256) => {
      if (holds((shape) => shape.kind === 'image' && shape.sha256 === sha256)) p.repaint();
    });
    const equationsReady = () => {
      if (holds((shape) => shape.kind === 'equation')) p.repaint();
    };
    const unsubscribeTypeset = onEquationRendererLoaded(equationsReady);
    const unsubscribePictures = onEquationPictureReady(equationsReady);
    return () => {
      unfollow();
      unsubscribeInk();
      unsubscribeImages();
      unsubscribeTypeset();
      unsubscribePictures();
      p.clear();
      painter.current = null;
    };
  }, [engine, ownerUserId]);

  useLayoutEffect(() => {
    painter.current?.paint(inLayerOrder(elements.values(), ownerUserId));
  }, [elements, ownerUserId]);

  return (
    <div className="activity-board class-tile-board">
      <canvas ref={boardRef} role="img" aria-label={tileDescription(owner, ownerUserId, elements.values())}
        data-testid="tile-board" data-board-id={boardId} data-owner={owner} data-elements={elements.size} />
      <canvas ref={inkRef} aria-hidden="true" data-testid="tile-ink" data-strokes="0" />
    </div>
  );
});
