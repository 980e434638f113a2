import './PdfImportBar.css';
import { useStore, type StoreApi } from 'zustand';
import { useT } from '../i18n/useT.ts';
import type { PdfImportView } from './imageInput.ts';

/**
 * A PDF import's progress over the board: the file, "page 3 of 12" with a bar, and Cancel. The
 * pages already placed stay on the board; Cancel stops before the next one.
 */
export function PdfImportBar({ imports }: { imports: StoreApi<PdfImportView | null> }) {
  const t = useT();
  const view = useStore(imports);
  if (!view) return null;
  const { name, done, total } = view;
  return (
    <div className="pdf-import-bar" role="status" data-testid="pdf-import">
      <span className="pdf-import-text">
        {total === null ? t('image.readingPdf', { name }) : t('image.pdfProgress', { name, done, total })}
      </span>
      <progress className="pdf-import-progress" max={total ?? 1} value={total === null ? undefined : done} aria-label={t('image.pdfProgressLabel', { name })} />
      <button type="button" className="button button-secondary pdf-import-cancel" onClick={view.cancel}>
        {t('image.pdfCancel')}
      </button>
    </div>
  );
}
