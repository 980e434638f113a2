/**
 * The teacher's page actions behind one "Page actions" button in the pages strip (PagesStrip.tsx):
 * add a page on the paper chosen beside it, duplicate, rename or delete the page on the stage (and
 * undo the delete), and, where the strip's row has no room for it (smaller than a laptop's window),
 * let the class browse or bring everyone back. A row of these buttons took a second row of the strip and
 * ran off a phone's width; one button keeps the strip one row.
 *
 * A disclosure, not an ARIA menu: it holds a select and a text field, which a `role="menu"` may
 * not. The button says whether it is open (aria-expanded); opening puts the focus on the first
 * item, the arrow keys move between the items, Escape closes it with the focus back on the button,
 * and a press or the focus elsewhere closes it. Each item is a real button that runs its action
 * and closes the panel; Rename opens its field in place.
 */
import { useCallback, useEffect, useId, useRef, useState, type FocusEvent, type FormEvent, type KeyboardEvent } from 'react';
import type { Page, Paper } from '@wb/protocol';
import type { PagesClient } from './pagesClient.ts';
import { useT } from '../i18n/useT.ts';
import './PageActions.css';

/** The papers a new page may start on (the board's paper picker has them all). */
const NEW_PAGE_PAPERS: readonly Paper[] = ['blank', 'lined', 'grid', 'graph'];

interface PageActionsProps {
  pages: PagesClient;
  /** The page on the stage: the one Duplicate, Rename and Delete act on. */
  current: Page;
  /** Its name as the strip shows it ("Page 2" when untitled). */
  currentName: string;
  /** False on the lesson's last page: a lesson keeps one. */
  canDelete: boolean;
  canUndoDelete: boolean;
  paced: boolean;
  /** The pacing button is in the panel, not beside it in the strip's row (PagesStrip.tsx). */
  withPacing: boolean;
}

export function PageActions({ pages, current, currentName, canDelete, canUndoDelete, paced, withPacing }: PageActionsProps) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState('');
  const [paper, setPaper] = useState<Paper>('blank');
  const panelId = useId();
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);

  const close = useCallback((focusButton: boolean) => {
    setOpen(false);
    setRenaming(false);
    if (focusButton) buttonRef.current?.focus();
  }, []);

  // Opened: the focus on the first item, and a press anywhere else closes it.
  useEffect(() => {
    if (!open) return;
    items(rootRef.current)[0]?.focus();
    const onPointer = (e: PointerEvent) => {
      if (!rootRef.current?.contains(e.target as Node)) close(false);
    };
    document.addEventListener('pointerdown', onPointer);
    return () => document.removeEventListener('pointerdown', onPointer);
  }, [open, close]);

  /** An item's click: the action runs, the panel closes, the focus goes back to the button. */
  const run = (action: () => Promise<void>) => () => {
    close(true);
    void action();
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (!open) return;
    if (e.key === 'Escape') {
      // Not the board's or the top bar's Escape as well.
      e.stopPropagation();
      close(true);
      return;
    }
    // The arrows move between the buttons; in the paper's select and the title's field they are theirs.
    const list = items(rootRef.current);
    const at = list.indexOf(document.activeElement as HTMLButtonElement);
    if (at < 0) return;
    const to = { ArrowDown: at + 1, ArrowUp: at - 1 + list.length, Home: 0, End: list.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    list[to % list.length]?.focus();
  };

  // The focus moved on past the panel (Tab from its last item): it closes, as a press outside does.
  const onBlur = (e: FocusEvent) => {
    if (open && e.relatedTarget instanceof Node && !rootRef.current?.contains(e.relatedTarget)) close(false);
  };

  const submitRename = (e: FormEvent) => {
    e.preventDefault();
    const title = name.trim();
    close(true);
    void pages.rename(current.id, title);
  };

  return (
    <div className="page-actions" ref={rootRef} onKeyDown={onKeyDown} onBlur={onBlur}>
      <button ref={buttonRef} type="button" className="button button-secondary page-actions-button" aria-expanded={open} aria-controls={open ? panelId : undefined}
        title={t('pages.actions')} onClick={() => (open ? close(false) : setOpen(true))}>
        {/* On a phone the dots stand for the words; they still name it for screen readers. */}
        <span className="page-actions-label">{t('pages.actions')}</span>
        <svg className="page-actions-chevron" width="10" height="10" viewBox="0 0 10 10" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round">
          <path d="M2 3.5l3 3 3-3" />
        </svg>
        <svg className="page-actions-dots" width="18" height="18" viewBox="0 0 16 16" aria-hidden="true" fill="currentColor">
          <circle cx="3" cy="8" r="1.5" /><circle cx="8" cy="8" r="1.5" /><circle cx="13" cy="8" r="1.5" />
        </svg>
      </button>
      {open && (
        <div id={panelId} className="page-actions-panel panel" role="group" aria-label={t('pages.actions')}>
          <div className="page-actions-add">
            <button type="button" className="button button-secondary" onClick={run(() => pages.add(paper))}>
              {t('pages.add')}
            </button>
            <select aria-label={t('pages.newPaper')} value={paper} onChange={(e) => setPaper(e.target.value as Paper)}>
              {NEW_PAGE_PAPERS.map((p) => (
                <option key={p} value={p}>
                  {t(`paper.${p}`)}
                </option>
              ))}
            </select>
          </div>
          {/* What the next items act on: the page on the stage. */}
          <p className="page-actions-page" title={currentName}>{currentName}</p>
          <button type="button" className="button button-secondary" onClick={run(() => pages.duplicate(current.id))}>
            {t('pages.duplicate')}
          </button>
          {renaming ? (
            <form className="page-actions-rename" onSubmit={submitRename}>
              <input aria-label={t('pages.title')} value={name} placeholder={currentName} maxLength={60} autoFocus onChange={(e) => setName(e.target.value)} />
              <button type="submit" className="button button-primary">{t('action.save')}</button>
            </form>
          ) : (
            <button type="button" className="button button-secondary" onClick={() => { setRenaming(true); setName(current.title); }}>
              {t('pages.rename')}
            </button>
          )}
          <button type="button" className="button button-danger-quiet" disabled={!canDelete} onClick={run(() => pages.remove(current.id))}>
            {t('pages.delete')}
          </button>
          {canUndoDelete && (
            <button type="button" className="button button-secondary" onClick={run(() => pages.undoDelete())}>
              {t('pages.undoDelete')}
            </button>
          )}
          {withPacing && <PacingButton pages={pages} paced={paced} onDone={() => close(true)} />}
        </div>
      )}
    </div>
  );
}

/**
 * Let the class browse, or bring everyone back to the teacher's page. Beside the page actions on a
 * laptop's window (the class's pacing changes during the lesson, more often than the rest), in
 * their panel where the row has no room for it.
 */
export function PacingButton({ pages, paced, onDone }: { pages: PagesClient; paced: boolean; onDone?: () => void }) {
  const t = useT();
  const set = (pacing: 'free' | 'paced') => () => {
    onDone?.();
    void pages.setPacing(pacing);
  };
  return paced ? (
    <button type="button" className="button button-secondary" onClick={set('free')}>
      {t('pages.letBrowse')}
    </button>
  ) : (
    <button type="button" className="button button-primary" onClick={set('paced')}>
      {t('pages.bringEveryone')}
    </button>
  );
}

/** The panel's buttons that take the focus, in order. */
function items(root: HTMLElement | null): HTMLButtonElement[] {
  return [...(root?.querySelectorAll<HTMLButtonElement>('.page-actions-panel button:not(:disabled)') ?? [])];
}
