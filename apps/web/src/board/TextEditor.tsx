import { useEffect, useRef, useState } from 'react';
import type { StoreApi } from 'zustand/vanilla';
import { DEFAULT_STICKY, DEFAULT_TEXT_BOX, TEXT_FONT_SIZE } from '../elements/geometry.ts';
import type { TextEdit } from './toolState.ts';
import { boardToScreen, type Viewport } from './viewport.ts';

interface TextEditorProps {
  edit: TextEdit;
  viewport: StoreApi<Viewport>;
  onCommit: (text: string) => void;
  onCancel: () => void;
}

/**
 * Typing into a text box or sticky note: a real textarea over the board (so the keyboard, IME,
 * spell check and screen readers all work), placed by the viewport. Ctrl/Cmd+Enter or leaving the
 * field saves; Escape cancels.
 */
export function TextEditor({ edit, viewport, onCommit, onCancel }: TextEditorProps) {
  const ref = useRef<HTMLTextAreaElement>(null);
  const [text, setText] = useState(edit.text);
  const done = useRef(false);

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const place = (vp: Viewport) => {
      const s = boardToScreen(vp, edit.at);
      el.style.transform = `translate(${s.x}px, ${s.y}px) scale(${vp.zoom})`;
    };
    place(viewport.getState());
    el.focus();
    el.select();
    return viewport.subscribe(place);
  }, [edit, viewport]);

  const commit = () => {
    if (done.current) return;
    done.current = true;
    onCommit(text);
  };
  const size = edit.kind === 'sticky' ? DEFAULT_STICKY : DEFAULT_TEXT_BOX;
  const label = edit.kind === 'sticky' ? 'Sticky note text' : 'Text';
  return (
    <textarea
      ref={ref}
      className={`text-editor text-editor-${edit.kind}`}
      aria-label={`${label}. Control Enter to save, Escape to cancel`}
      data-testid="text-editor"
      value={text}
      maxLength={4_000}
      style={{ width: size.w, minHeight: edit.kind === 'sticky' ? size.h : size.h, fontSize: edit.kind === 'sticky' ? 20 : TEXT_FONT_SIZE }}
      onChange={(e) => setText(e.target.value)}
      onBlur={commit}
      onKeyDown={(e) => {
        e.stopPropagation(); // typing is not a shortcut
        if (e.key === 'Escape') {
          done.current = true;
          onCancel();
        } else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
          e.preventDefault();
          commit();
        }
      }}
    />
  );
}
