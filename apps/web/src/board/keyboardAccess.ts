import type { Element } from '@wb/protocol';
import type { StoreApi } from 'zustand/vanilla';
import type { BoardEditor } from '../elements/boardEditor.ts';
import { rotatedBounds, shapeFromDrag } from '../elements/geometry.ts';
import { readingOrder, revealBounds, stepSelection } from './keyboardFocus.ts';
import { editOf, fillFor, newEditAt, type TextEdit, type ToolState } from './toolState.ts';
import { screenToBoard, type Viewport } from './viewport.ts';

/** A shape made with Enter is this big on screen (px), whatever the zoom. */
export const KEYBOARD_SHAPE_PX = { w: 160, h: 100 };

interface KeyboardAccessOptions {
  surface: HTMLElement;
  viewport: StoreApi<Viewport>;
  tools: StoreApi<ToolState>;
  editor: BoardEditor;
  startTextEdit: (edit: TextEdit) => void;
  /** Opens the equation editor on a selected equation (Enter, as on a text box). */
  startEquationEdit?: (elementId: string) => void;
}

/** Selects an element and pans the view to it if it is not fully on screen. */
export function selectAndReveal(o: Pick<KeyboardAccessOptions, 'surface' | 'viewport' | 'editor'>, el: Element): void {
  o.editor.select([el.id]);
  const size = { width: o.surface.clientWidth || window.innerWidth, height: o.surface.clientHeight || window.innerHeight };
  const vp = o.viewport.getState();
  const next = revealBounds(vp, rotatedBounds(el.shape), size);
  if (next !== vp) o.viewport.setState(next, true);
}

/**
 * The board's keys for people without a pointer, while the board itself has focus:
 * - Tab / Shift+Tab select the next / previous element in reading order (the selection frame is
 *   the focus ring) and pan to it; past either end the selection clears and focus moves on.
 * - Enter with a shape tool makes that shape in the middle of the view and selects it; with the
 *   text or note tool it opens a new one there; with a text box or note selected it edits it.
 * Returns the detach function.
 */
export function attachKeyboardAccess(o: KeyboardAccessOptions): () => void {
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.target !== o.surface || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === 'Tab') {
      const { elements, selection } = o.editor.board.getState();
      const next = stepSelection(readingOrder(elements.values()), selection, !e.shiftKey);
      if (!next) {
        o.editor.select([]);
        return;
      }
      e.preventDefault();
      selectAndReveal(o, next);
      return;
    }
    if (e.key !== 'Enter' || e.shiftKey) return;
    const board = o.editor.board.getState();
    if (board.readOnly) return;
    const state = o.tools.getState();
    const vp = o.viewport.getState();
    const centre = screenToBoard(vp, { x: o.surface.clientWidth / 2, y: o.surface.clientHeight / 2 });
    const w = KEYBOARD_SHAPE_PX.w / vp.zoom;
    const h = KEYBOARD_SHAPE_PX.h / vp.zoom;
    const corner = { x: centre.x - w / 2, y: centre.y - h / 2 };
    switch (state.tool) {
      case 'rect':
      case 'ellipse':
      case 'line':
      case 'arrow': {
        e.preventDefault();
        const id = o.editor.create(shapeFromDrag(state.tool, corner, { x: corner.x + w, y: corner.y + h }, { ...state.style, fill: fillFor(state) }));
        if (id) {
          o.editor.select([id]);
          o.tools.setState({ tool: 'select' });
        }
        return;
      }
      case 'text':
      case 'sticky':
        e.preventDefault();
        o.startTextEdit(newEditAt(state.tool, corner, state));
        return;
      default: {
        const only = board.selection.size === 1 ? board.elements.get([...board.selection][0]!) : undefined;
        if (only && (only.shape.kind === 'text' || only.shape.kind === 'sticky') && !o.editor.refusalFor(only)) {
          e.preventDefault();
          o.startTextEdit(editOf(only.id, only.shape));
        } else if (only?.shape.kind === 'equation' && o.startEquationEdit && !o.editor.refusalFor(only)) {
          e.preventDefault();
          o.startEquationEdit(only.id);
        }
      }
    }
  };
  o.surface.addEventListener('keydown', onKeyDown);
  return () => o.surface.removeEventListener('keydown', onKeyDown);
}
