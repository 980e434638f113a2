/**
 * The boards kept with a lesson, on the teacher's page (docs/boards.md): every activity, newest
 * first, with each student's board as a thumbnail and its PNG (one per student, or all of them in
 * one zip, a PNG per student named for them).
 */
import type { LessonBoards } from '@wb/protocol';
import { useEffect, useRef, useState } from 'react';
import { listMyLessonBoards } from '../api/teacherAccountApi.ts';
import { downloadClassPack } from '../api/teacherApi.ts';
import { exportPng, exportPngZip } from '../board/exportImage.ts';
import { inLayerOrder } from '../elements/geometry.ts';
import { BoardPicture } from './ActivityLayer.tsx';
import './activity.css';
import { formatDateTime } from '../i18n/format.ts';
import { errorMessage } from '../i18n/errors.ts';
import { useT } from '../i18n/useT.ts';

type Loaded = { status: 'loading' } | { status: 'failed'; message: string } | { status: 'loaded'; boards: LessonBoards };

export function LessonBoardsDialog({ code, title, onClose }: { code: string; title: string; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const t = useT();
  const [loaded, setLoaded] = useState<Loaded>({ status: 'loading' });
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    listMyLessonBoards(code).then(
      (boards) => setLoaded({ status: 'loaded', boards }),
      (error: unknown) => setLoaded({ status: 'failed', message: errorMessage(error, 'boards.loadFailed') }),
    );
  }, [code]);
  return (
    <dialog ref={ref} className="dialog lesson-boards-dialog" aria-labelledby="lesson-boards-title" onCancel={onClose} data-testid="lesson-boards">
      <h2 id="lesson-boards-title">{t('boards.title', { title })}</h2>
      {loaded.status === 'loading' && <p className="muted">{t('common.loading')}</p>}
      {loaded.status === 'failed' && <p className="form-error" role="alert">{loaded.message}</p>}
      {loaded.status === 'loaded' && loaded.boards.activities.length === 0 && <p className="muted">{t('boards.none')}</p>}
      {loaded.status === 'loaded' &&
        loaded.boards.activities.map(({ activity, boards }) => (
          <section key={activity.id} className="lesson-boards-activity">
            <h3>
              {activity.title}{' '}
              <span className="muted">
                {t('boards.meta', { when: formatDateTime(activity.startedAt, { dateStyle: 'medium', timeStyle: 'short' }), count: boards.length })}
              </span>
            </h3>
            <button type="button" className="roster-action"
              onClick={() => void exportPngZip(boards.map((b) => ({ name: b.board.ownerName, elements: inLayerOrder(b.elements, b.board.ownerUserId) })), activity.title)}>
              {t('activity.downloadAll')}
            </button>
            <button type="button" className="roster-action"
              onClick={() => void downloadClassPack({ kind: 'account', code }, activity.id).catch((error: unknown) => setLoaded({ status: 'failed', message: errorMessage(error, 'export.pdfFailed') }))}>
              {t('export.classPack')}
            </button>
            <ul className="class-grid">
              {boards.map(({ board, elements }) => {
                return (
                  <li key={board.id} className="class-tile">
                    <BoardPicture elements={elements} label={t('stage.studentBoard', { name: board.ownerName })} boardId={board.id} owner={board.ownerName} ownerUserId={board.ownerUserId} />
                    <span className="class-tile-name">{board.ownerName}</span>
                    <button type="button" className="roster-action" onClick={() => void exportPng(inLayerOrder(elements, board.ownerUserId), `${activity.title} ${board.ownerName}`)}>
                      PNG
                    </button>
                  </li>
                );
              })}
            </ul>
          </section>
        ))}
      <div className="actions">
        <button type="button" className="button button-secondary" onClick={onClose} autoFocus>
          {t('action.close')}
        </button>
      </div>
    </dialog>
  );
}
