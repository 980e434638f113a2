import './PaperPicker.css';
import type { Paper } from '@wb/protocol';
import { useEffect, useRef, useState } from 'react';
import { useStore } from 'zustand';
import type { BoardEditor } from '../elements/boardEditor.ts';
import { GRID_STEP } from './gridPlacement.ts';
import { PAPER_CHOICES, PAPER_TILES, paperAxes, paperTileImage } from './paper.ts';
import { useT } from '../i18n/useT.ts';

/** A preview swatch shows its paper at this fraction of the board's scale. */
const PREVIEW_SCALE = 0.5;

/** A small square of the paper itself (its tile), with the axes for graph paper. */
export function PaperPreview({ paper }: { paper: Paper }) {
  const tile = PAPER_TILES[paper];
  const style = tile
    ? {
        backgroundImage: paper === 'dots' ? `radial-gradient(circle, #aab0be 1px, transparent 1.3px)` : paperTileImage(tile),
        backgroundSize: `${tile.w * PREVIEW_SCALE}px ${tile.h * PREVIEW_SCALE}px`,
        backgroundPosition: paper === 'dots' ? '0 0' : `${GRID_STEP * PREVIEW_SCALE}px ${GRID_STEP * PREVIEW_SCALE}px`,
      }
    : {};
  return <span className={`paper-preview${paperAxes(paper) ? ' paper-preview-axes' : ''}`} style={style} aria-hidden="true" />;
}

/**
 * The teacher's choice of the board's paper: one button showing the current paper, opening a
 * group of radio choices with previews. The server keeps the choice (on the class board the
 * lesson's setting, on another page that page's own paper) and sends it to everyone; this sends
 * it and shows the current one.
 */
export function PaperPicker({ editor }: { editor: BoardEditor }) {
  const paper = useStore(editor.board, (b) => b.settings.paper);
  const [open, setOpen] = useState(false);
  const rootRef = useRef<HTMLDivElement>(null);
  const t = useT();
  const choice = PAPER_CHOICES.find((c) => c.paper === paper);
  const current = choice ? t(choice.name) : paper;
  useEffect(() => {
    if (!open) return;
    const onPointer = (e: PointerEvent) => {
      if (!rootRef.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setOpen(false);
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);
  return (
    <div className="paper-picker" ref={rootRef}>
      <button type="button" className="tool-button text-button paper-button" aria-expanded={open} aria-controls="paper-choices"
        aria-label={t('paper.current', { name: current })} title={t('paper.title')} data-testid="paper-button" onClick={() => setOpen((o) => !o)}>
        <PaperPreview paper={paper} />
        <span>{t('paper.button')}</span>
      </button>
      {open && (
        <fieldset id="paper-choices" className="paper-choices panel" data-testid="paper-choices">
          <legend>{t('paper.legend')}</legend>
          {PAPER_CHOICES.map((c) => (
            <label key={c.paper} className="paper-choice">
              <input type="radio" name="paper" value={c.paper} checked={paper === c.paper} data-paper={c.paper}
                onChange={() => void editor.setPaper(c.paper)} />
              <PaperPreview paper={c.paper} />
              <span>{t(c.name)}</span>
            </label>
          ))}
        </fieldset>
      )}
    </div>
  );
}
