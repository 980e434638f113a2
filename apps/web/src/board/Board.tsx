import { useEffect, useRef, useState, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import { useStore } from 'zustand';
import type { StoreApi } from 'zustand/vanilla';
import { createStore } from 'zustand/vanilla';
import type { CursorView } from '../connection/roomClient.ts';
import type { BoardEditor } from '../elements/boardEditor.ts';
import { fitText, stickyAt, textBoxAt } from '../elements/geometry.ts';
import { CursorLayer } from './CursorLayer.tsx';
import { ElementLayer } from './ElementLayer.tsx';
import { GridLayer } from './GridLayer.tsx';
import { TextEditor } from './TextEditor.tsx';
import { attachToolInput } from './toolInput.ts';
import { Toolbar } from './Toolbar.tsx';
import { createToolStore, type DraftView, type TextEdit } from './toolState.ts';
import {
  KEY_PAN_PX,
  ZOOM_STEP,
  createViewportStore,
  initialViewport,
  panBy,
  screenToBoard,
  wheelZoomFactor,
  zoomAt,
  zoomTo,
  type Point,
  type Viewport,
} from './viewport.ts';

interface BoardProps {
  cursors: StoreApi<CursorView>;
  editor: BoardEditor;
  selfSessionId: string;
  /** The lesson's title, for export file names. */
  title: string;
  nameOf: (userId: string) => string;
  /** Our pointer in board coordinates, whenever it or the viewport moves. */
  onPointer: (x: number, y: number) => void;
}

/**
 * The board: one full-window surface with a layer per concern (grid, elements, cursors), all
 * placed by the same viewport. Pan with space-drag, middle-drag, scroll or the arrow keys; zoom
 * with ctrl/cmd+scroll (and trackpad pinch), +/- and 0.
 */
export function Board({ cursors, editor, selfSessionId, title, nameOf, onPointer }: BoardProps) {
  const [viewport] = useState(createViewportStore);
  const [tools] = useState(createToolStore);
  const [draft] = useState(() => createStore<DraftView>(() => ({ shape: null })));
  const [textEdit, setTextEdit] = useState<TextEdit | null>(null);
  const tool = useStore(tools, (s) => s.tool);
  const surfaceRef = useRef<HTMLDivElement>(null);
  /** Space held: the board pans and the tools stand aside. */
  const spaceRef = useRef(false);
  const onPointerRef = useRef(onPointer);
  onPointerRef.current = onPointer;
  const [spaceHeld, setSpaceHeld] = useState(false);
  const [panning, setPanning] = useState(false);

  useEffect(() => {
    const surface = surfaceRef.current;
    if (!surface) return;
    let pointer: Point | null = null;
    let pan: { id: number; last: Point } | null = null;
    let space = false;

    const local = (e: { clientX: number; clientY: number }): Point => {
      const rect = surface.getBoundingClientRect();
      return { x: e.clientX - rect.left, y: e.clientY - rect.top };
    };
    const reportPointer = () => {
      if (!pointer) return;
      const p = screenToBoard(viewport.getState(), pointer);
      onPointerRef.current(p.x, p.y);
    };
    const update = (next: Viewport) => {
      viewport.setState(next, true);
      // The pointer now sits over a different board point: tell the others.
      reportPointer();
    };

    const onPointerDown = (e: PointerEvent) => {
      const wantsPan = e.button === 1 || (e.button === 0 && space);
      if (!wantsPan) return;
      e.preventDefault();
      surface.setPointerCapture(e.pointerId);
      pan = { id: e.pointerId, last: local(e) };
      setPanning(true);
    };
    const onPointerMove = (e: PointerEvent) => {
      pointer = local(e);
      if (pan && pan.id === e.pointerId) {
        const dx = pointer.x - pan.last.x;
        const dy = pointer.y - pan.last.y;
        pan.last = pointer;
        update(panBy(viewport.getState(), dx, dy));
      } else {
        reportPointer();
      }
    };
    const endPan = (e: PointerEvent) => {
      if (!pan || pan.id !== e.pointerId) return;
      pan = null;
      setPanning(false);
    };
    const onPointerLeave = () => {
      pointer = null;
    };
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const vp = viewport.getState();
      if (e.ctrlKey || e.metaKey) {
        update(zoomAt(vp, local(e), wheelZoomFactor(e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY)));
      } else {
        const scale = e.deltaMode === 1 ? 16 : 1;
        // Shift+wheel scrolls sideways on mice that only report deltaY.
        const dx = e.shiftKey && e.deltaX === 0 ? e.deltaY : e.deltaX;
        const dy = e.shiftKey && e.deltaX === 0 ? 0 : e.deltaY;
        update(panBy(vp, -dx * scale, -dy * scale));
      }
    };
    const isTyping = (target: EventTarget | null) =>
      target instanceof HTMLElement &&
      (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT', 'BUTTON', 'A'].includes(target.tagName));
    const onKeyDown = (e: KeyboardEvent) => {
      if (isTyping(e.target)) return;
      if (e.code === 'Space' && !e.repeat) {
        space = true;
        spaceRef.current = true;
        setSpaceHeld(true);
        e.preventDefault();
        return;
      }
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const center = { x: surface.clientWidth / 2, y: surface.clientHeight / 2 };
      const vp = viewport.getState();
      if (e.key === '+' || e.key === '=') update(zoomAt(vp, pointer ?? center, ZOOM_STEP));
      else if (e.key === '-' || e.key === '_') update(zoomAt(vp, pointer ?? center, 1 / ZOOM_STEP));
      else if (e.key === '0') update(zoomTo(vp, center, 1));
      else return;
      e.preventDefault();
    };
    const onKeyUp = (e: KeyboardEvent) => {
      if (e.code === 'Space') {
        space = false;
        spaceRef.current = false;
        setSpaceHeld(false);
      }
    };
    const onBlur = () => {
      space = false;
      spaceRef.current = false;
      setSpaceHeld(false);
    };

    surface.addEventListener('pointerdown', onPointerDown);
    surface.addEventListener('pointermove', onPointerMove);
    surface.addEventListener('pointerup', endPan);
    surface.addEventListener('pointercancel', endPan);
    surface.addEventListener('pointerleave', onPointerLeave);
    // Not passive: the board owns the wheel (the page itself never scrolls).
    surface.addEventListener('wheel', onWheel, { passive: false });
    window.addEventListener('keydown', onKeyDown);
    window.addEventListener('keyup', onKeyUp);
    window.addEventListener('blur', onBlur);
    return () => {
      surface.removeEventListener('pointerdown', onPointerDown);
      surface.removeEventListener('pointermove', onPointerMove);
      surface.removeEventListener('pointerup', endPan);
      surface.removeEventListener('pointercancel', endPan);
      surface.removeEventListener('pointerleave', onPointerLeave);
      surface.removeEventListener('wheel', onWheel);
      window.removeEventListener('keydown', onKeyDown);
      window.removeEventListener('keyup', onKeyUp);
      window.removeEventListener('blur', onBlur);
    };
  }, [viewport]);

  useEffect(() => {
    const surface = surfaceRef.current;
    if (!surface) return;
    return attachToolInput({ surface, viewport, tools, draft, editor, panning: () => spaceRef.current, startTextEdit: setTextEdit });
  }, [viewport, tools, draft, editor]);

  const commitText = (edit: TextEdit, text: string) => {
    setTextEdit(null);
    const current = edit.elementId ? editor.board.getState().elements.get(edit.elementId) : undefined;
    if (current && (current.shape.kind === 'text' || current.shape.kind === 'sticky')) {
      if (current.shape.text === text) return;
      if (text.trim() === '' && current.shape.kind === 'text') editor.delete([current.id]);
      else editor.update([{ id: current.id, shape: current.shape.kind === 'text' ? fitText({ ...current.shape, text }) : { ...current.shape, text } }]);
      return;
    }
    if (edit.elementId || (text.trim() === '' && edit.kind === 'text')) return;
    const { style } = tools.getState();
    const textShape = textBoxAt(edit.at, text, style.stroke);
    const shape = edit.kind === 'sticky' ? stickyAt(edit.at, text) : textShape.kind === 'text' ? fitText(textShape) : textShape;
    const id = editor.create(shape);
    if (id) {
      editor.select([id]);
      tools.setState({ tool: 'select' });
    }
  };

  // Arrow keys pan while the board itself has focus (keyboard users cannot drag).
  const onSurfaceKeyDown = (e: ReactKeyboardEvent<HTMLDivElement>) => {
    const moves: Record<string, [number, number]> = {
      ArrowLeft: [KEY_PAN_PX, 0],
      ArrowRight: [-KEY_PAN_PX, 0],
      ArrowUp: [0, KEY_PAN_PX],
      ArrowDown: [0, -KEY_PAN_PX],
    };
    const move = moves[e.key];
    if (!move) return;
    e.preventDefault();
    viewport.setState(panBy(viewport.getState(), move[0], move[1]), true);
  };

  return (
    <>
      <div
        ref={surfaceRef}
        className={`board tool-${tool}${spaceHeld ? ' board-pan-ready' : ''}${panning ? ' board-panning' : ''}`}
        role="application"
        aria-roledescription="whiteboard"
        aria-label="Whiteboard"
        aria-describedby="board-help"
        tabIndex={0}
        onKeyDown={onSurfaceKeyDown}
        data-testid="board"
      >
        <GridLayer viewport={viewport} />
        <ElementLayer viewport={viewport} board={editor.board} motion={editor.motion} draft={draft} selfSessionId={selfSessionId} nameOf={nameOf} />
        <CursorLayer cursors={cursors} viewport={viewport} nameOf={nameOf} />
      </div>
      {textEdit && (
        <TextEditor key={`${textEdit.elementId ?? 'new'}:${textEdit.at.x}:${textEdit.at.y}`} edit={textEdit} viewport={viewport} onCommit={(text) => commitText(textEdit, text)} onCancel={() => setTextEdit(null)} />
      )}
      <p id="board-help" className="visually-hidden">
        Arrow keys or scroll to move around. Hold space and drag to pan. Plus and minus to zoom, zero to reset. Tool shortcuts are shown on the
        toolbar.
      </p>
      <Toolbar tools={tools} editor={editor} title={title} selfSessionId={selfSessionId} nameOf={nameOf} />
      <ZoomControls viewport={viewport} />
    </>
  );
}

function ZoomControls({ viewport }: { viewport: StoreApi<Viewport> }) {
  // Only this small toolbar re-renders on zoom, and only when the rounded percentage changes.
  const percent = useStore(viewport, (vp) => Math.round(vp.zoom * 100));
  const center = (): Point => ({ x: window.innerWidth / 2, y: window.innerHeight / 2 });
  const zoomBy = (factor: number) => viewport.setState(zoomAt(viewport.getState(), center(), factor), true);
  return (
    <div className="zoom-controls panel" role="group" aria-label="Zoom">
      <button type="button" className="icon-button" onClick={() => zoomBy(1 / ZOOM_STEP)} aria-label="Zoom out" title="Zoom out (−)">
        −
      </button>
      <button
        type="button"
        className="zoom-readout"
        onClick={() => viewport.setState(initialViewport, true)}
        aria-label={`Zoom ${percent}%. Reset view`}
        title="Reset view (0)"
      >
        {percent}%
      </button>
      <button type="button" className="icon-button" onClick={() => zoomBy(ZOOM_STEP)} aria-label="Zoom in" title="Zoom in (+)">
        +
      </button>
    </div>
  );
}
