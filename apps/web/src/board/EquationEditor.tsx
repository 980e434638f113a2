import './EquationEditor.css';
import { MAX_LATEX_LENGTH } from '@wb/protocol';
import { useEffect, useId, useLayoutEffect, useRef, useState, type FormEvent } from 'react';
import { EQUATION_PADDING, equationHtml } from '../elements/elementSvg.ts';
import { equationError, equationRendererReady, loadEquationRenderer } from '../elements/equationRenderer.ts';
import { Trans } from '@lingui/react';
import { useT } from '../i18n/useT.ts';

/** The equation sizes offered (board units at 100 %), as the text sizes are named. */
export const EQUATION_SIZES: ReadonlyArray<{ readonly value: number; readonly name: string }> = [
  { value: 20, name: 'S' },
  { value: 28, name: 'M' },
  { value: 40, name: 'L' },
  { value: 56, name: 'XL' },
];
export const DEFAULT_EQUATION_SIZE = 28;

export interface EquationDraft {
  readonly latex: string;
  readonly fontSize: number;
  /** The typeset formula's box (board units): what the board draws it in. */
  readonly w: number;
  readonly h: number;
}

interface EquationEditorProps {
  /** The equation being changed; absent, a new one. */
  initial?: { latex: string; fontSize: number };
  color: string;
  onPlace: (draft: EquationDraft) => void;
  onClose: () => void;
}

/**
 * Writing an equation: LaTeX in, a live preview typeset by KaTeX (loaded when the editor first
 * opens), KaTeX's own message under it when the LaTeX does not parse. The preview is the board's
 * markup at the board's size, so its measured box is the element's box.
 */
export function EquationEditor({ initial, color, onPlace, onClose }: EquationEditorProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const previewRef = useRef<HTMLDivElement>(null);
  const [latex, setLatex] = useState(initial?.latex ?? '');
  const [fontSize, setFontSize] = useState(initial?.fontSize ?? DEFAULT_EQUATION_SIZE);
  const [ready, setReady] = useState(equationRendererReady());
  const [failed, setFailed] = useState(false);
  const t = useT();
  const sourceId = useId();
  const errorId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    if (!ready) {
      loadEquationRenderer().then(
        () => setReady(true),
        () => setFailed(true),
      );
    }
  }, [ready]);

  const html = ready && latex.trim() !== '' ? equationHtml(latex, fontSize, color) : null;
  const error = ready && latex.trim() !== '' ? equationError(latex) : null;
  const tooLong = latex.length > MAX_LATEX_LENGTH;

  // The preview is set as markup (KaTeX's output, trust off), then measured for the element's box.
  useLayoutEffect(() => {
    const preview = previewRef.current;
    if (preview) preview.innerHTML = html ?? '';
  }, [html]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // LaTeX that does not parse stays in the editor (the board would show it in red).
    if (latex.trim() === '' || tooLong || !ready || equationError(latex) !== null) return;
    const body = previewRef.current?.firstElementChild;
    const box = body?.getBoundingClientRect();
    const w = box && box.width > 0 ? Math.ceil(box.width) : Math.max(40, latex.length * fontSize * 0.5) + EQUATION_PADDING * 2;
    const h = box && box.height > 0 ? Math.ceil(box.height) : fontSize * 1.6 + EQUATION_PADDING * 2;
    onPlace({ latex, fontSize, w, h });
    onClose();
  };

  return (
    <dialog ref={ref} className="dialog equation-dialog" aria-labelledby="equation-title" onCancel={onClose} data-testid="equation-dialog">
      <form onSubmit={submit}>
        <h2 id="equation-title">{initial ? t('equation.change') : t('toolbar.equationWrite')}</h2>
        <div className="field">
          <label htmlFor={sourceId}>
            <Trans id="equation.source" values={{ a: '\\frac{a}{b}', b: 'x^2', c: '\\sqrt{x}' }} components={{ 0: <code dir="ltr" /> }} />
          </label>
          <textarea
            id={sourceId}
            dir="ltr"
            value={latex}
            rows={3}
            spellCheck={false}
            autoComplete="off"
            autoFocus
            data-testid="equation-source"
            aria-describedby={error || tooLong ? errorId : undefined}
            aria-invalid={error !== null || tooLong}
            onChange={(e) => setLatex(e.target.value)}
            onKeyDown={(e) => {
              // Ctrl+Enter places it (Enter alone makes a new line of LaTeX).
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                e.currentTarget.form?.requestSubmit();
              }
            }}
          />
        </div>
        <div className="toolbar-group equation-sizes" role="group" aria-label={t('equation.size')}>
          {EQUATION_SIZES.map((s) => (
            <button key={s.value} type="button" className="tool-button text-size-button" aria-pressed={fontSize === s.value} aria-label={t('equation.sizeNamed', { size: s.name })}
              onClick={() => setFontSize(s.value)}>
              {s.name}
            </button>
          ))}
        </div>
        <div className="equation-preview" aria-live="polite" aria-label={t('equation.preview')} data-testid="equation-preview">
          {!ready && !failed && <span className="equation-preview-note">{t('equation.loading')}</span>}
          {failed && <span className="form-error">{t('equation.loadFailed')}</span>}
          {ready && latex.trim() === '' && <span className="equation-preview-note">{t('equation.previewNote')}</span>}
          <div ref={previewRef} />
        </div>
        {(error || tooLong) && (
          <p id={errorId} className="form-error equation-error" data-testid="equation-error">
            {tooLong ? t('equation.tooLong', { max: MAX_LATEX_LENGTH }) : error}
          </p>
        )}
        <div className="actions">
          <button type="submit" className="button button-primary" disabled={!ready || latex.trim() === '' || tooLong || error !== null} data-testid="equation-place">
            {initial ? t('action.save') : t('equation.place')}
          </button>
          <button type="button" className="button button-secondary" onClick={onClose}>
            {t('action.cancel')}
          </button>
        </div>
      </form>
    </dialog>
  );
}
