import './Board.css';
import type { SharedView } from '@wb/protocol';
import { Suspense, lazy, useEffect, useRef, useState } from 'react';
import { useStore } from 'zustand';
import type { StoreApi } from 'zustand/vanilla';
import { createStore } from 'zustand/vanilla';
import type { CursorView, InkView } from '../connection/roomClient.ts';
import type { BoardEditor } from '../elements/boardEditor.ts';
import { clampCoordinate, fitText, stickyAt, textBoxAt } from '../elements/geometry.ts';
import { AttentionBar } from '../attention/AttentionBar.tsx';
import { fitView, sharedViewOf, type AttentionClient } from '../attention/attentionClient.ts';
import { LaserLayer } from '../attention/LaserLayer.tsx';
import { CursorLayer } from './CursorLayer.tsx';
import { ElementLayer } from './ElementLayer.tsx';
import type { EquationDraft } from './EquationEditor.tsx';
import { GridLayer } from './GridLayer.tsx';
import { TextEditor } from './TextEditor.tsx';
import { attachClipboard } from './clipboardKeys.ts';
import type { ImageLibrary } from '../images/imageLibrary.ts';
import { ImageInput, type PdfImportView, type PdfPagesPort } from '../images/imageInput.ts';
import { ElementList } from './ElementList.tsx';
import { attachKeyboardAccess, selectAndReveal } from './keyboardAccess.ts';
import { attachSelectionKeys } from './selectionKeys.ts';
import { createToolInput } from './toolInput.ts';
import { Toolbar } from './Toolbar.tsx';
import { createToolStore, type DraftView, type TextEdit, type ToolState } from './toolState.ts';
import { ZOOM_STEP, createViewportStore, initialViewport, screenToBoard, zoomAt, type Point, type Viewport } from './viewport.ts';
import { FirstView, fittedView, measureBoardArea } from './firstView.ts';
import { recallView, rememberView } from './viewMemory.ts';
import { ViewportGestures } from './viewportGestures.ts';
import { useT } from '../i18n/useT.ts';

/** A board without the attention kit (a private board) hides no cursors. */
const NO_ATTENTION = createStore(() => ({ hideCursors: false }));

/** The equation editor comes with KaTeX, on first use: neither is in the initial bundle. */
const EquationEditor = lazy(() => import('./EquationEditor.tsx').then((m) => ({ default: m.EquationEditor })));

interface BoardProps {
  cursors: StoreApi<CursorView>;
  /** Other people's strokes being drawn (live ink). */
  ink: StoreApi<InkView>;
  editor: BoardEditor;
  selfSessionId: string;
  /** The lesson's title, for export file names. */
  title: string;
  nameOf: (userId: string) => string;
  /** A member's colour (cursors, lock outlines). */
  colorOf: (userId: string) => string;
  /** Our pointer in board coordinates, whenever it or the viewport moves. */
  onPointer: (x: number, y: number) => void;
  /** The attention kit: hidden cursors, laser trails, follow the teacher (every lesson page's; no private board's). */
  attention?: AttentionClient | undefined;
  /** What the board is called for assistive technology ("Whiteboard", "Your board", "Ana's board"). */
  label?: string;
  /** The board's id (the lesson's for the class board): laser points and followed views are per board; tests read it. */
  boardId: string;
  /** A private board: it opens with the pen in hand and the lesson's settings are not set from it (Toolbar). */
  privateBoard?: boolean;
  /** Tools shared with other boards (the lesson's pages); else the board has its own. */
  tools?: StoreApi<ToolState> | undefined;
  /** Whose cursors the board shows (CursorLayer's `shows`); all when absent. */
  showsCursorOf?: (userId: string) => boolean;
  /** The lesson's images: pasted, dropped or picked pictures are uploaded there. */
  images: ImageLibrary;
  /** A PDF import's progress, shown by the page over the board (PdfImportBar.tsx). */
  pdfImports: StoreApi<PdfImportView | null>;
  /** The teacher's: where a PDF's pages go as lesson pages (pages/pdfPages.ts); absent, onto this board. */
  pdfPages?: PdfPagesPort | undefined;
  /** The teacher also imports PDF worksheets. */
  isTeacher: boolean;
}

/**
 * The board: one full-window surface with a layer per concern (grid, elements, cursors), all
 * placed by the same viewport. Pan with space-drag, middle-drag, scroll, two fingers or the arrow
 * keys; zoom with ctrl/cmd+scroll (and trackpad pinch), a two-finger pinch, +/- and 0
 * (viewportGestures.ts); draw with the tools (toolInput.ts).
 */
export function Board({ cursors, ink, editor, selfSessionId, title, nameOf, colorOf, onPointer, attention, images, pdfImports, pdfPages, isTeacher, label, boardId, privateBoard = false, showsCursorOf, tools: sharedTools }: BoardProps) {
  const t = useT();
  // Where the person left this board, if it was on stage before in this tab (viewMemory.ts).
  const [viewport] = useState(() => createViewportStore(recallView(boardId)?.viewport));
  // The lesson's pages share one tool store (the pen in hand stays in hand from page to page); a
  // private board is an activity's page to draw on: it opens with the pen in hand.
  const [ownTools] = useState(() => (sharedTools ? null : createToolStore(privateBoard ? 'pen' : 'select')));
  const tools = sharedTools ?? ownTools!;
  const [draft] = useState(() => createStore<DraftView>(() => ({ shape: null, marquee: null })));
  const [textEdit, setTextEdit] = useState<TextEdit | null>(null);
  const [imageInput, setImageInput] = useState<ImageInput | null>(null);
  /** The equation editor: open for a new equation (`elementId` null) or for the selected one. */
  const [equationEdit, setEquationEdit] = useState<{ elementId: string | null } | null>(null);
  const tool = useStore(tools, (s) => s.tool);
  const surfaceRef = useRef<HTMLDivElement>(null);
  const onPointerRef = useRef(onPointer);
  onPointerRef.current = onPointer;
  /** Space held: a drag will pan and the tools stand aside. */
  const [spaceHeld, setSpaceHeld] = useState(false);
  const [panning, setPanning] = useState(false);

  useEffect(() => {
    const surface = surfaceRef.current;
    if (!surface) return;
    const toolInput = createToolInput({ surface, viewport, tools, draft, editor, startTextEdit: setTextEdit });
    // Where a paste lands: the last board point under the pointer, else the middle of the view.
    let pointer: Point | null = null;
    const onBoardPointer = (x: number, y: number) => {
      pointer = { x, y };
      onPointerRef.current(x, y);
    };
    const viewCentre = () => screenToBoard(viewport.getState(), { x: surface.clientWidth / 2, y: surface.clientHeight / 2 });
    const fitContent = () => fittedView(surface, editor.board.getState().ordered);
    const gestures = new ViewportGestures({ surface, viewport, tool: toolInput, onPointer: onBoardPointer, onSpaceHeld: setSpaceHeld, onPanning: setPanning, fitContent });
    gestures.attach();
    const detachSelectionKeys = attachSelectionKeys(editor);
    const detachClipboard = attachClipboard(editor, images, () => pointer, viewCentre);
    // Registered after the clipboard's paste: a paste of the board's own copy is claimed there first.
    const pictures = new ImageInput({
      editor,
      library: images,
      acceptPdf: isTeacher,
      pdfImports,
      pdfPages,
      placeAt: () => pointer ?? viewCentre(),
      boardPointOf: (e) => {
        const r = surface.getBoundingClientRect();
        return screenToBoard(viewport.getState(), { x: e.clientX - r.left, y: e.clientY - r.top });
      },
    });
    const detachImages = pictures.attach(surface);
    setImageInput(pictures);
    const detachKeyboard = attachKeyboardAccess({ surface, viewport, tools, editor, startTextEdit: setTextEdit, startEquationEdit: (elementId) => setEquationEdit({ elementId }) });
    return () => {
      detachKeyboard();
      detachImages();
      detachClipboard();
      detachSelectionKeys();
      gestures.detach();
    };
  }, [viewport, tools, draft, editor, images, pdfImports, pdfPages, isTeacher]);

  // The board opens showing its content (firstView.ts): fitted once, unless the person or a follow
  // request moved the view first. Its view is kept for when it comes back on stage. The fit reaches
  // the effect below as any move does: a presenting teacher shares the page as she sees it (a
  // student is never following when one is made).
  useEffect(() => {
    const surface = surfaceRef.current;
    if (!surface) return;
    const first = new FirstView({
      viewport,
      board: editor.board,
      measure: () => measureBoardArea(surface),
      following: () => attention?.view.getState().following ?? false,
      onPress: (pressed) => {
        surface.addEventListener('pointerdown', pressed, true);
        return () => surface.removeEventListener('pointerdown', pressed, true);
      },
      nextFrame: (run) => {
        const frame = requestAnimationFrame(run);
        return () => cancelAnimationFrame(frame);
      },
      settled: recallView(boardId)?.settled ?? false,
    });
    first.attach();
    return () => {
      first.detach();
      rememberView(boardId, { viewport: viewport.getState(), settled: first.settled });
    };
  }, [viewport, editor, attention, boardId]);

  // Follow the teacher: a view requested for this board is fitted to this screen (one asked for
  // before it came on the stage first); any other move of the view is the person's own (a student
  // stops following; a presenting teacher shares it).
  useEffect(() => {
    const surface = surfaceRef.current;
    if (!surface || !attention) return;
    const screen = () => ({ width: surface.clientWidth || window.innerWidth, height: surface.clientHeight || window.innerHeight });
    let moving = false;
    const moveTo = (view: SharedView | null) => {
      if (!view) return;
      moving = true;
      viewport.setState(fitView(view, screen()), true);
      moving = false;
    };
    moveTo(attention.boardShown(boardId, sharedViewOf(viewport.getState(), screen())));
    const unsubscribeRequests = attention.viewRequest.subscribe(() => moveTo(attention.takeView(boardId)));
    const unsubscribeViewport = viewport.subscribe((vp) => {
      if (!moving) attention.viewMoved(sharedViewOf(vp, screen()), boardId);
    });
    return () => {
      unsubscribeRequests();
      unsubscribeViewport();
      attention.boardHidden(boardId);
    };
  }, [attention, viewport, boardId]);
  const hideCursors = useStore(attention?.view ?? NO_ATTENTION, (v) => v.hideCursors);
  const paper = useStore(editor.board, (b) => b.settings.paper);
  const sharedView = () => {
    const surface = surfaceRef.current;
    return sharedViewOf(viewport.getState(), { width: surface?.clientWidth || window.innerWidth, height: surface?.clientHeight || window.innerHeight });
  };

  /** The text field closed: unless focus went somewhere on purpose, it comes back to the board (keyboard users go on from there). */
  const refocusBoard = () => {
    requestAnimationFrame(() => {
      const active = document.activeElement;
      if (!active || active === document.body) surfaceRef.current?.focus({ preventScroll: true });
    });
  };
  const commitText = (edit: TextEdit, text: string) => {
    setTextEdit(null);
    refocusBoard();
    const current = edit.elementId ? editor.board.getState().elements.get(edit.elementId) : undefined;
    if (current && (current.shape.kind === 'text' || current.shape.kind === 'sticky')) {
      if (current.shape.text === text) return;
      if (text.trim() === '' && current.shape.kind === 'text') editor.delete([current.id]);
      else editor.update([{ id: current.id, shape: current.shape.kind === 'text' ? fitText({ ...current.shape, text }) : { ...current.shape, text } }]);
      return;
    }
    if (edit.elementId || (text.trim() === '' && edit.kind === 'text')) return;
    const { style } = tools.getState();
    const setting = { fontSize: edit.fontSize, align: edit.align };
    const textShape = textBoxAt(edit.at, text, style.stroke, setting);
    const shape = edit.kind === 'sticky' ? stickyAt(edit.at, text, edit.fill, setting) : textShape.kind === 'text' ? fitText(textShape) : textShape;
    const id = editor.create(shape);
    if (id) {
      editor.select([id]);
      tools.setState({ tool: 'select' });
    }
  };

  /** A new equation lands in the middle of the view; a changed one keeps its top-left corner. */
  const placeEquation = (elementId: string | null, draft: EquationDraft) => {
    const current = elementId ? editor.board.getState().elements.get(elementId) : undefined;
    const { style } = tools.getState();
    if (current?.shape.kind === 'equation') {
      editor.update([{ id: current.id, shape: { ...current.shape, latex: draft.latex, fontSize: draft.fontSize, w: draft.w, h: draft.h } }]);
      return;
    }
    const surface = surfaceRef.current;
    const centre = screenToBoard(viewport.getState(), { x: (surface?.clientWidth ?? window.innerWidth) / 2, y: (surface?.clientHeight ?? window.innerHeight) / 2 });
    const id = editor.create({
      kind: 'equation',
      x: clampCoordinate(centre.x - draft.w / 2),
      y: clampCoordinate(centre.y - draft.h / 2),
      w: draft.w,
      h: draft.h,
      latex: draft.latex,
      stroke: style.stroke,
      fontSize: draft.fontSize,
    });
    if (id) {
      editor.select([id]);
      tools.setState({ tool: 'select' });
    }
  };
  const equationShown = equationEdit?.elementId ? editor.board.getState().elements.get(equationEdit.elementId)?.shape : undefined;

  return (
    <>
      <div
        ref={surfaceRef}
        className={`board tool-${tool}${spaceHeld ? ' board-pan-ready' : ''}${panning ? ' board-panning' : ''}`}
        role="application"
        // The board's coordinates are the same on every screen: it does not mirror with the page.
        dir="ltr"
        aria-roledescription={t('board.roleDescription')}
        aria-label={label ?? t('stage.whiteboard')}
        aria-describedby="board-help"
        tabIndex={0}
        data-testid="board"
        data-board-id={boardId}
      >
        <GridLayer viewport={viewport} paper={paper} />
        <ElementLayer viewport={viewport} board={editor.board} motion={editor.motion} draft={draft} ink={ink} selfSessionId={selfSessionId} nameOf={nameOf} colorOf={colorOf} />
        {attention && <LaserLayer attention={attention} viewport={viewport} boardId={boardId} />}
        <CursorLayer cursors={cursors} viewport={viewport} nameOf={nameOf} colorOf={colorOf} hidden={hideCursors} shows={showsCursorOf} />
      </div>
      <ElementList
        editor={editor}
        nameOf={nameOf}
        onChoose={(el) => {
          const surface = surfaceRef.current;
          if (surface) {
            selectAndReveal({ surface, viewport, editor }, el);
            // Back on the board: the arrows move the chosen element, Tab goes on from it.
            surface.focus({ preventScroll: true });
          }
        }}
      />
      {textEdit && (
        <TextEditor key={`${textEdit.elementId ?? 'new'}:${textEdit.at.x}:${textEdit.at.y}`} edit={textEdit} viewport={viewport} onCommit={(text) => commitText(textEdit, text)} onCancel={() => {
          setTextEdit(null);
          refocusBoard();
        }} />
      )}
      <p id="board-help" className="visually-hidden">
        {t('board.help')}
      </p>
      <Toolbar tools={tools} editor={editor} title={title} selfSessionId={selfSessionId} nameOf={nameOf} imageInput={imageInput} acceptPdf={isTeacher} onEquation={(elementId) => setEquationEdit({ elementId })} lessonControls={!privateBoard} />
      {equationEdit && (
        <Suspense fallback={null}>
        <EquationEditor
          initial={equationShown?.kind === 'equation' ? { latex: equationShown.latex, fontSize: equationShown.fontSize } : undefined}
          color={equationShown?.kind === 'equation' ? equationShown.stroke : tools.getState().style.stroke}
          onPlace={(draft) => placeEquation(equationEdit.elementId, draft)}
          onClose={() => {
            setEquationEdit(null);
            refocusBoard();
          }}
        />
        </Suspense>
      )}
      <ZoomControls
        viewport={viewport}
        onFit={() => {
          const surface = surfaceRef.current;
          const fitted = surface && fittedView(surface, editor.board.getState().ordered);
          if (fitted) viewport.setState(fitted, true);
        }}
      />
      {attention && <AttentionBar attention={attention} editor={editor} sharedView={sharedView} boardId={boardId} />}
    </>
  );
}

/** The zoom's buttons; with `onFit`, also "Fit to content" (the board's content whole in view). */
export function ZoomControls({ viewport, onFit }: { viewport: StoreApi<Viewport>; onFit?: () => void }) {
  // Only this small toolbar re-renders on zoom, and only when the rounded percentage changes.
  const percent = useStore(viewport, (vp) => Math.round(vp.zoom * 100));
  const center = (): Point => ({ x: window.innerWidth / 2, y: window.innerHeight / 2 });
  const zoomBy = (factor: number) => viewport.setState(zoomAt(viewport.getState(), center(), factor), true);
  const t = useT();
  return (
    <div className="zoom-controls panel" data-over-board role="group" aria-label={t('zoom.label')}>
      <button type="button" className="icon-button" onClick={() => zoomBy(1 / ZOOM_STEP)} aria-label={t('zoom.out')} title={t('zoom.outTitle')}>
        −
      </button>
      <button
        type="button"
        className="zoom-readout"
        onClick={() => viewport.setState(initialViewport, true)}
        aria-label={t('zoom.reset', { percent })}
        title={t('zoom.resetTitle')}
      >
        {percent}%
      </button>
      <button type="button" className="icon-button" onClick={() => zoomBy(ZOOM_STEP)} aria-label={t('zoom.in')} title={t('zoom.inTitle')}>
        +
      </button>
      {onFit && (
        <button type="button" className="icon-button" onClick={onFit} aria-label={t('zoom.fit')} title={t('zoom.fitTitle')} aria-keyshortcuts="Shift+1">
          {/* Four corners around the content: a frame it is fitted to. */}
          <svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round">
            <path d="M1.5 5V1.5H5M11 1.5h3.5V5M14.5 11v3.5H11M5 14.5H1.5V11" />
            <rect x="5" y="5" width="6" height="6" rx="1" />
          </svg>
        </button>
      )}
    </div>
  );
}
