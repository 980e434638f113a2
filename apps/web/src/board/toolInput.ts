import type { StoreApi } from 'zustand/vanilla';
import type { Element } from '@wb/protocol';
import type { BoardEditor, BoardView } from '../elements/boardEditor.ts';
import { isTooSmall, shapeFromDrag, topmostAt, type Point } from '../elements/geometry.ts';
import { penShapeFromSamples, type PenSample } from '../elements/penStroke.ts';
import { elementsInMarquee, marqueeRect, toggled } from '../elements/selection.ts';
import { HANDLE_REACH_PX, HANDLE_REACH_TOUCH_PX, handleAt, selectionFrame, type Frame } from '../elements/transform.ts';
import { editOf, fillFor, newEditAt, type DraftView, type TextEdit, type ToolState } from './toolState.ts';
import type { Viewport } from './viewport.ts';
import { boardPointOf, type PointerTool } from './viewportGestures.ts';

/** How close (screen px) a pointer must come to an element's ink to hit it. */
const HIT_SLOP_PX = 6;

type Gesture =
  | { kind: 'drag-element' }
  | { kind: 'shape'; tool: 'rect' | 'ellipse' | 'line' | 'arrow'; start: Point }
  | { kind: 'pen'; samples: PenSample[] }
  | { kind: 'erase' }
  /** A box dragged on empty board selects what it contains; with shift, added to the selection. */
  | { kind: 'marquee'; start: Point; base: ReadonlySet<string> }
  /** A text box or sticky note opens on pointer-up, once focus has settled. */
  | { kind: 'text'; edit: TextEdit }
  | { kind: 'none' };

interface ToolInputOptions {
  surface: HTMLElement;
  viewport: StoreApi<Viewport>;
  tools: StoreApi<ToolState>;
  draft: StoreApi<DraftView>;
  editor: BoardEditor;
  startTextEdit: (edit: TextEdit) => void;
}

/**
 * Turns pointer events on the board into tool gestures. Pointer events cover mouse, pen and touch
 * alike; pen pressure comes from `PointerEvent.pressure` and coalesced events keep fast strokes
 * smooth. The viewport gestures (viewportGestures.ts) listen on the board and hand on the events
 * they do not take: pans (space or the middle button) and two-finger pinches never reach a tool.
 * Not React: gestures run at pointer rate and only the draft store and the editor hear of them.
 */
export function createToolInput(o: ToolInputOptions): PointerTool {
  let gesture: Gesture = { kind: 'none' };
  let pointerId: number | null = null;

  const boardPoint = (e: { clientX: number; clientY: number }): Point => boardPointOf(o.surface, o.viewport.getState(), e);
  const tolerance = () => HIT_SLOP_PX / o.viewport.getState().zoom;
  const hit = (p: Point) => topmostAt(o.editor.board.getState().ordered, p, tolerance());
  const sample = (e: PointerEvent): PenSample => {
    const p = boardPoint(e);
    // Mice report 0.5 while a button is down; pens and touch report real pressure.
    return { x: p.x, y: p.y, pressure: e.pointerType === 'mouse' || e.pressure === 0 ? 0.5 : e.pressure };
  };

  const erase = (p: Point) => {
    const target = hit(p);
    // A refused target is explained ("made by …"), once while the notice shows, and left alone.
    if (target) o.editor.delete([target.id], { erased: true });
  };

  const down = (e: PointerEvent) => {
    if (e.button !== 0 || pointerId !== null) return;
    const { tool } = o.tools.getState();
    const p = boardPoint(e);
    const readOnly = o.editor.board.getState().readOnly;
    if (readOnly && tool !== 'select') return;
    pointerId = e.pointerId;
    o.surface.setPointerCapture(e.pointerId);
    o.surface.focus({ preventScroll: true });
    // A handle of the selection (drawn whatever the tool, so taken whatever the tool but the
    // eraser; with shift too, which keeps proportions): resize or turn it, under the same locks as a move.
    const handle = tool === 'eraser' || readOnly ? null : handleUnder(p, e.pointerType);
    if (handle) {
      const refusal = o.editor.beginDrag(
        handle.ids,
        p,
        handle.handle === 'rotate' ? { kind: 'rotate', frame: handle.frame } : { kind: 'resize', handle: handle.handle, frame: handle.frame },
      );
      if ((refusal === 'not_own' || refusal === 'pinned') && handle.first) o.editor.explainRefusal(handle.first, refusal);
      gesture = refusal ? { kind: 'none' } : { kind: 'drag-element' };
      o.surface.dataset.refused = refusal ?? '';
      if (!refusal) e.preventDefault();
      return;
    }
    switch (tool) {
      case 'select': {
        const { selection } = o.editor.board.getState();
        const target = hit(p);
        if (!target) {
          if (!e.shiftKey) o.editor.select([]);
          gesture = { kind: 'marquee', start: p, base: e.shiftKey ? selection : new Set() };
          return;
        }
        if (e.shiftKey) {
          // Shift-click adds or removes; nothing is dragged.
          o.editor.select(toggled(selection, target.id));
          gesture = { kind: 'none' };
          return;
        }
        // Pressing one of several selected elements drags them all (under one group lock).
        const group = selection.has(target.id) && selection.size > 1 ? [...selection] : [target.id];
        if (group.length === 1) o.editor.select([target.id]);
        if (e.detail >= 2 && (target.shape.kind === 'text' || target.shape.kind === 'sticky') && !o.editor.refusalFor(target)) {
          e.preventDefault();
          gesture = { kind: 'text', edit: editOf(target.id, target.shape) };
          return;
        }
        // Refused at once when someone else holds it (outlined in their colour): nothing moves.
        const refusal = o.editor.beginDrag(group, p);
        if (refusal === 'not_own' || refusal === 'pinned') o.editor.explainRefusal(target, refusal);
        gesture = refusal ? { kind: 'none' } : { kind: 'drag-element' };
        o.surface.dataset.refused = refusal ?? '';
        return;
      }
      case 'pen': {
        const first = sample(e);
        gesture = { kind: 'pen', samples: [first] };
        // The others see the stroke as it is drawn (live ink); its element gets the same id.
        o.editor.beginStroke(first, o.tools.getState().style);
        return;
      }
      case 'rect':
      case 'ellipse':
      case 'line':
      case 'arrow':
        gesture = { kind: 'shape', tool, start: p };
        return;
      case 'text':
      case 'sticky': {
        // No focus change on this press: the text field about to open must keep the focus.
        e.preventDefault();
        const target = hit(p);
        const edit: TextEdit =
          target && target.shape.kind === tool && !o.editor.refusalFor(target) ? editOf(target.id, target.shape) : newEditAt(tool, p, o.tools.getState());
        gesture = { kind: 'text', edit };
        return;
      }
      case 'eraser':
        gesture = { kind: 'erase' };
        erase(p);
        return;
    }
  };

  /**
   * The selection and its frame, computed once per board state: hovering asks on every mouse
   * move, and a frame of thousands of selected strokes walks all their points.
   */
  let framed: { board: BoardView; selected: Element[]; frame: Frame | null } | null = null;
  const selectionWithFrame = () => {
    const board = o.editor.board.getState();
    if (framed?.board.selection !== board.selection || framed.board.elements !== board.elements) {
      const selected = [...board.selection].flatMap((id) => board.elements.get(id) ?? []);
      framed = { board, selected, frame: selectionFrame(selected.map((el) => el.shape)) };
    }
    return framed;
  };

  /** The selection's handle under a board point (with the selection and its frame), or null. */
  const handleUnder = (p: Point, pointerType: string) => {
    const { selected, frame } = selectionWithFrame();
    if (selected.length === 0) return null;
    const reach = pointerType === 'touch' ? HANDLE_REACH_TOUCH_PX : HANDLE_REACH_PX;
    const handle = frame ? handleAt(frame, p, o.viewport.getState().zoom, reach) : null;
    return frame && handle ? { handle, frame, ids: selected.map((el) => el.id), first: selected[0] } : null;
  };

  /** Hovering a handle of the selection shows its cursor (Board.css reads `data-handle`). */
  const hover = (e: PointerEvent) => {
    const { readOnly } = o.editor.board.getState();
    const handle = readOnly || o.tools.getState().tool === 'eraser' ? null : (handleUnder(boardPoint(e), e.pointerType)?.handle ?? null);
    if ((o.surface.dataset.handle ?? null) !== handle) {
      if (handle) o.surface.dataset.handle = handle;
      else delete o.surface.dataset.handle;
    }
  };

  const move = (e: PointerEvent) => {
    if (pointerId === null && e.pointerType === 'mouse') hover(e);
    if (e.pointerId !== pointerId) return;
    switch (gesture.kind) {
      case 'drag-element':
        o.editor.moveDrag(boardPoint(e), e.shiftKey);
        return;
      case 'pen': {
        const events = typeof e.getCoalescedEvents === 'function' ? e.getCoalescedEvents() : [e];
        const added = (events.length > 0 ? events : [e]).map(sample);
        gesture.samples.push(...added);
        o.editor.extendStroke(added);
        const { style } = o.tools.getState();
        o.draft.setState({ shape: penShapeFromSamples(gesture.samples, style.stroke, style.strokeWidth) });
        return;
      }
      case 'shape': {
        const state = o.tools.getState();
        o.draft.setState({ shape: shapeFromDrag(gesture.tool, gesture.start, boardPoint(e), { ...state.style, fill: fillFor(state) }, e.shiftKey) });
        return;
      }
      case 'erase':
        erase(boardPoint(e));
        return;
      case 'marquee': {
        const rect = marqueeRect(gesture.start, boardPoint(e));
        o.draft.setState({ marquee: rect });
        const inside = elementsInMarquee(o.editor.board.getState().ordered, rect).map((el) => el.id);
        o.editor.select(new Set([...gesture.base, ...inside]));
        return;
      }
      case 'text':
      case 'none':
        return;
    }
  };

  const finish = (e: PointerEvent, cancelled: boolean) => {
    if (e.pointerId !== pointerId) return;
    pointerId = null;
    const g = gesture;
    gesture = { kind: 'none' };
    delete o.surface.dataset.refused;
    o.draft.setState({ shape: null, marquee: null });
    switch (g.kind) {
      case 'drag-element':
        o.editor.endDrag();
        return;
      case 'pen': {
        const { style } = o.tools.getState();
        o.editor.endStroke(cancelled ? null : penShapeFromSamples(g.samples, style.stroke, style.strokeWidth));
        return;
      }
      case 'shape': {
        if (cancelled) return;
        const state = o.tools.getState();
        const shape = shapeFromDrag(g.tool, g.start, boardPoint(e), { ...state.style, fill: fillFor(state) }, e.shiftKey);
        if (!isTooSmall(shape)) {
          const id = o.editor.create(shape);
          if (id) o.editor.select([id]);
        }
        return;
      }
      case 'text':
        if (!cancelled) o.startTextEdit(g.edit);
        return;
      case 'erase':
      case 'marquee':
      case 'none':
        return;
    }
  };
  /** Drops the gesture in progress as if cancelled: nothing is created, a drag is let go. */
  const abandon = () => {
    if (pointerId === null) return;
    const g = gesture;
    gesture = { kind: 'none' };
    pointerId = null;
    o.draft.setState({ shape: null, marquee: null });
    if (g.kind === 'drag-element') o.editor.endDrag();
    if (g.kind === 'pen') o.editor.endStroke(null);
  };

  return {
    down,
    move,
    up: (e) => finish(e, false),
    cancel: (e) => finish(e, true),
    abandon,
  };
}
