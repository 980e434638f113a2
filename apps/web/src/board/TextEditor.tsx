import './TextEditor.css';
import { useEffect, useRef, useState } from 'react';
import type { StoreApi } from 'zustand/vanilla';
import { DEFAULT_STICKY, DEFAULT_TEXT_BOX } from '../elements/geometry.ts';
import type { TextEdit } from './toolState.ts';
import { boardToScreen, type Viewport } from './viewport.ts';
import { useT } from '../i18n/useT.ts';

interface TextEditorProps {
  edit: TextEdit;
  viewport: StoreApi<Viewport>;
  onCommit: (text: string) => void;
  onCancel: () => void;
}

/**
 * Typing into a text box or sticky note: a real textarea over the board (so the keyboard, IME,
 * spell check and screen readers all work), placed by the viewport, set in the size, alignment
 * and colour the element will have. Enter (or Ctrl/Cmd+Enter, or leaving the field) saves,
 * Shift+Enter starts a new line (a hint under the field says so); Escape cancels.
 */
export function TextEditor({ edit, viewport, onCommit, onCancel }: TextEditorProps) {
  const ref = useRef<HTMLTextAreaElement>(null);
  const boxRef = useRef<HTMLDivElement>(null);
  const [text, setText] = useState(edit.text);
  const done = useRef(false);

  useEffect(() => {
    const el = ref.current;
    const box = boxRef.current;
    if (!el || !box) return;
    const place = (vp: Viewport) => {
      const s = boardToScreen(vp, edit.at);
      box.style.transform = `translate(${s.x}px, ${s.y}px) scale(${vp.zoom})`;
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
  const size = edit.size ?? (edit.kind === 'sticky' ? DEFAULT_STICKY : DEFAULT_TEXT_BOX);
  const t = useT();
  const label = edit.kind === 'sticky' ? t('textEditor.sticky') : t('tool.text');
  return (
    <div ref={boxRef} className="text-editor-box">
      <textarea
        ref={ref}
        className={`text-editor text-editor-${edit.kind}`}
        aria-label={t('textEditor.label', { label })}
        dir="auto"
        aria-describedby="text-editor-hint"
        data-testid="text-editor"
        value={text}
        maxLength={4_000}
        style={{
          width: size.w,
          minHeight: size.h,
          fontSize: edit.fontSize,
          textAlign: edit.align,
          ...(edit.fill ? { background: edit.fill } : {}),
        }}
        onChange={(e) => setText(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => {
          e.stopPropagation(); // typing is not a shortcut
          if (e.key === 'Escape') {
            done.current = true;
            onCancel();
          } else if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            // Enter finishes (an input method's Enter confirms its text instead); Shift+Enter is a new line.
            e.preventDefault();
            commit();
          }
        }}
      />
      <p id="text-editor-hint" className="text-editor-hint" data-testid="text-editor-hint">
        {t('textEditor.hint')}
      </p>
    </div>
  );
}
