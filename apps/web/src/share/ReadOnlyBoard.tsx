import './ReadOnlyBoard.css';
import type { Element, Paper } from '@wb/protocol';
import { useEffect, useMemo, useRef } from 'react';
import { createStore, type StoreApi } from 'zustand/vanilla';
import { fitView } from '../attention/attentionClient.ts';
import { ZoomControls } from '../board/Board.tsx';
import { boardInkBounds } from '../board/culling.ts';
import { ElementLayer } from '../board/ElementLayer.tsx';
import { GridLayer } from '../board/GridLayer.tsx';
import type { DraftView } from '../board/toolState.ts';
import { createViewportStore, panBy, type Viewport } from '../board/viewport.ts';
import { ViewportGestures, type PointerTool } from '../board/viewportGestures.ts';
import type { InkView } from '../connection/boardEngine.ts';
import type { BoardView, MotionView } from '../elements/boardEditor.ts';
import { inDrawingOrder } from '../elements/geometry.ts';
import { DEFAULT_LESSON_SETTINGS } from '@wb/protocol';

/** Margin around the content when the view is fitted to it (board units are scaled, so a fraction). */
const FIT_MARGIN = 1.15;
/** A fitted view never magnifies: the board as it was drawn (100 %), or smaller to fit it all. */
const FIT_MAX_ZOOM = 1;

/** A board nobody edits: what the element renderer reads, with nothing selected, unsynced or editable. */
function readOnlyView(elements: ReadonlyMap<string, Element>): BoardView {
  return {
    elements,
    ordered: inDrawingOrder(elements.values()),
    selection: new Set(),
    unsynced: 0,
    kept: true,
    syncing: false,
    canUndo: false,
    canRedo: false,
    editPolicy: 'look',
    settings: { ...DEFAULT_LESSON_SETTINGS, editPolicy: 'look' },
    penMuted: false,
    readOnly: true,
    handles: false,
    notice: null,
  };
}

/** The view that shows all of `elements` on a screen of this size (or the board's origin when empty). */
export function fittedViewport(elements: ReadonlyMap<string, Element>, screen: { width: number; height: number }): Viewport {
  const bounds = boardInkBounds([...elements.values()]);
  if (!bounds || screen.width <= 0 || screen.height <= 0) return { x: 0, y: 0, zoom: 1 };
  const view = { cx: bounds.x + bounds.w / 2, cy: bounds.y + bounds.h / 2, w: Math.max(bounds.w, 200) * FIT_MARGIN, h: Math.max(bounds.h, 150) * FIT_MARGIN };
  const fitted = fitView(view, screen);
  if (fitted.zoom <= FIT_MAX_ZOOM) return fitted;
  return { zoom: FIT_MAX_ZOOM, x: screen.width / 2 - view.cx * FIT_MAX_ZOOM, y: screen.height / 2 - view.cy * FIT_MAX_ZOOM };
}

/**
 * A board shown read-only (a share link, a replay): the board's own paper and element renderer
 * (ElementLayer), panned by dragging and zoomed by the wheel, a pinch or the zoom controls, with
 * no tool, no socket and no selection. Fitted to its content when it first has some, when
 * `fitKey` changes (another board), and by the zoom's "Fit to content".
 */
export function ReadOnlyBoard({ elements, paper, label, fitKey }: { elements: ReadonlyMap<string, Element>; paper: Paper; label: string; fitKey: string }) {
  const surfaceRef = useRef<HTMLDivElement>(null);
  const stores = useMemo(
    () => ({
      viewport: createViewportStore(),
      board: createStore<BoardView>(() => readOnlyView(new Map())),
      motion: createStore<MotionView>(() => ({ previews: new Map() })),
      draft: createStore<DraftView>(() => ({ shape: null })),
      ink: createStore<InkView>(() => ({ strokes: new Map() })),
    }),
    [],
  );
  const fittedFor = useRef<string | null>(null);

  useEffect(() => {
    stores.board.setState(readOnlyView(elements), true);
    const surface = surfaceRef.current;
    if (surface && elements.size > 0 && fittedFor.current !== fitKey) {
      fittedFor.current = fitKey;
      stores.viewport.setState(fittedViewport(elements, { width: surface.clientWidth, height: surface.clientHeight }), true);
    }
  }, [elements, fitKey, stores]);

  useEffect(() => {
    const surface = surfaceRef.current;
    if (!surface) return;
    const fitContent = () => fittedViewport(stores.board.getState().elements, { width: surface.clientWidth, height: surface.clientHeight });
    const gestures = new ViewportGestures({ surface, viewport: stores.viewport, tool: dragToPan(stores.viewport), onPointer: () => {}, onSpaceHeld: () => {}, onPanning: () => {}, fitContent });
    gestures.attach();
    return () => gestures.detach();
  }, [stores]);

  return (
    <div className="read-only-board">
      <div ref={surfaceRef} className="board board-read-only" role="img" aria-label={label} dir="ltr" tabIndex={0} data-testid="shared-board" data-elements={elements.size}>
        <GridLayer viewport={stores.viewport} paper={paper} />
        <ElementLayer viewport={stores.viewport} board={stores.board} motion={stores.motion} draft={stores.draft} ink={stores.ink} selfSessionId="" nameOf={() => ''} colorOf={() => 'transparent'} />
      </div>
      <ZoomControls
        viewport={stores.viewport}
        onFit={() => {
          const surface = surfaceRef.current;
          if (surface) stores.viewport.setState(fittedViewport(stores.board.getState().elements, { width: surface.clientWidth, height: surface.clientHeight }), true);
        }}
      />
    </div>
  );
}

/** With no tool to draw with, a one-finger or mouse drag pans the board. */
function dragToPan(viewport: StoreApi<Viewport>): PointerTool {
  let last: { id: number; x: number; y: number } | null = null;
  return {
    down(e) {
      last = { id: e.pointerId, x: e.clientX, y: e.clientY };
      (e.currentTarget as HTMLElement | null)?.setPointerCapture?.(e.pointerId);
    },
    move(e) {
      if (!last || last.id !== e.pointerId) return;
      viewport.setState(panBy(viewport.getState(), e.clientX - last.x, e.clientY - last.y), true);
      last = { id: e.pointerId, x: e.clientX, y: e.clientY };
    },
    up() {
      last = null;
    },
    cancel() {
      last = null;
    },
    abandon() {
      last = null;
    },
  };
}
