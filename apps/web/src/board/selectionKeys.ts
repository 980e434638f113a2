import type { BoardEditor } from '../elements/boardEditor.ts';
import { nudgeFor } from '../elements/selection.ts';

function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT');
}

/**
 * The selection's keys: Ctrl/Cmd+A selects every element (not the page's text); with a selection,
 * the arrow keys nudge it (shift: the larger step) as an ordinary edit. Listens in the capture
 * phase, before the board's own keys, where arrows pan the view: with nothing selected they still do.
 * Escape (clear) is the toolbar's, with the other single keys. Shift held or let go during a
 * resize or turn changes it at once. Returns the detach function.
 */
export function attachSelectionKeys(editor: BoardEditor): () => void {
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Shift') editor.setDragShift(true);
    if (isTyping(e.target) || e.altKey) return;
    const mod = e.ctrlKey || e.metaKey;
    if (mod && e.key.toLowerCase() === 'a') {
      e.preventDefault();
      editor.select(editor.board.getState().ordered.map((el) => el.id));
      return;
    }
    if (mod) return;
    const nudge = editor.board.getState().selection.size > 0 ? nudgeFor(e.key, e.shiftKey) : null;
    if (!nudge) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    editor.nudgeSelection(nudge.x, nudge.y);
  };
  // Shift during a resize or turn (keep proportions, snap) takes effect without a pointer move.
  const onKeyUp = (e: KeyboardEvent) => {
    if (e.key === 'Shift') editor.setDragShift(false);
  };
  window.addEventListener('keydown', onKeyDown, { capture: true });
  window.addEventListener('keyup', onKeyUp, { capture: true });
  return () => {
    window.removeEventListener('keydown', onKeyDown, { capture: true });
    window.removeEventListener('keyup', onKeyUp, { capture: true });
  };
}
