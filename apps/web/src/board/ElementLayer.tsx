import './ElementLayer.css';
import { useEffect, useRef } from 'react';
import type { StoreApi } from 'zustand/vanilla';
import type { InkView } from '../connection/roomClient.ts';
import type { BoardView, MotionView } from '../elements/boardEditor.ts';
import { onImageReady } from '../images/imageRefs.ts';
import { onEquationRendererLoaded } from '../elements/equationRenderer.ts';
import { ElementRenderer } from './elementRenderer.ts';
import { LiveInkLayer } from './liveInkLayer.ts';
import type { DraftView } from './toolState.ts';
import type { Viewport } from './viewport.ts';

interface ElementLayerProps {
  viewport: StoreApi<Viewport>;
  board: StoreApi<BoardView>;
  motion: StoreApi<MotionView>;
  draft: StoreApi<DraftView>;
  /** Other people's strokes being drawn (live ink). */
  ink: StoreApi<InkView>;
  selfSessionId: string;
  nameOf: (userId: string) => string;
  colorOf: (userId: string) => string;
}

/**
 * Board elements, drawn by an ElementRenderer (elementRenderer.ts: culling, SVG nodes or the
 * overview canvas, gestures on a raster). React renders only the empty containers once; the
 * effect mounts the renderer, feeds it the stores' changes and the layer's size, and disposes it.
 */
export function ElementLayer({ viewport, board, motion, draft, ink, selfSessionId, nameOf, colorOf }: ElementLayerProps) {
  const layerRef = useRef<HTMLDivElement>(null);
  const planeRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const rootRef = useRef<SVGGElement>(null);
  const elementsRef = useRef<SVGGElement>(null);
  const draftRef = useRef<SVGGElement>(null);
  const inkRef = useRef<SVGGElement>(null);
  const overlayRef = useRef<SVGGElement>(null);
  const nameOfRef = useRef(nameOf);
  nameOfRef.current = nameOf;
  const colorOfRef = useRef(colorOf);
  colorOfRef.current = colorOf;

  useEffect(() => {
    const container = layerRef.current;
    const plane = planeRef.current;
    const canvas = canvasRef.current;
    const root = rootRef.current;
    const elements = elementsRef.current;
    const draftGroup = draftRef.current;
    const overlay = overlayRef.current;
    if (!container || !plane || !canvas || !root || !elements || !draftGroup || !overlay) return;
    const renderer = new ElementRenderer(
      { container, plane, canvas, root, elements, draft: draftGroup, overlay },
      { viewport, board, motion, selfSessionId, nameOf: (userId) => nameOfRef.current(userId), colorOf: (userId) => colorOfRef.current(userId) },
    );
    const resized = new ResizeObserver(() => renderer.resized(container.clientWidth, container.clientHeight));
    resized.observe(container);
    renderer.mount();
    const unsubscribers = [
      viewport.subscribe((vp) => renderer.viewChanged(vp)),
      board.subscribe((view, prev) => renderer.boardChanged(view, prev)),
      motion.subscribe((view) => renderer.motionChanged(view)),
      draft.subscribe((view) => renderer.draftChanged(view)),
      onImageReady((sha256) => renderer.imageReady(sha256)),
      onEquationRendererLoaded(() => renderer.equationsTypeset()),
    ];
    return () => {
      for (const u of unsubscribers) u();
      resized.disconnect();
      renderer.dispose();
    };
  }, [viewport, board, motion, draft, selfSessionId]);

  useEffect(() => {
    const group = inkRef.current;
    if (!group) return;
    const layer = new LiveInkLayer(group, ink);
    return () => layer.dispose();
  }, [ink]);

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
            <g ref={inkRef} data-layer="ink" />
            <g ref={draftRef} data-layer="draft" opacity="0.85" />
            <g ref={overlayRef} data-layer="overlay" />
          </g>
        </svg>
      </div>
    </div>
  );
}
