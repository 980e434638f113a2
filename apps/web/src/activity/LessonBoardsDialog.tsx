/**
 * The boards kept with a lesson, on the teacher's page (docs/boards.md): every activity, newest
 * first, with each student's board as a thumbnail and its PNG (one per student, or all of them in
 * one zip, a PNG per student named for them).
 */
import type { LessonBoards } from '@wb/protocol';
import { useEffect, useRef, useState } from 'react';
import { listMyLessonBoards } from '../api/teacherAccountApi.ts';
import { exportPng, exportPngZip } from '../board/exportImage.ts';
import { BoardPicture } from './ActivityLayer.tsx';
import './activity.css';

type Loaded = { status: 'loading' } | { status: 'failed'; message: string } | { status: 'loaded'; boards: LessonBoards };

export function LessonBoardsDialog({ code, title, onClose }: { code: string; title: string; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [loaded, setLoaded] = useState<Loaded>({ status: 'loading' });
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    listMyLessonBoards(code).then(
      (boards) => setLoaded({ status: 'loaded', boards }),
      (error: unknown) => setLoaded({ status: 'failed', message: error instanceof Error ? error.message : 'Could not load the boards.' }),
    );
  }, [code]);
  return (
    <dialog ref={ref} className="dialog lesson-boards-dialog" aria-labelledby="lesson-boards-title" onCancel={onClose} data-testid="lesson-boards">
      <h2 id="lesson-boards-title">Boards of {title}</h2>
      {loaded.status === 'loading' && <p className="muted">Loading…</p>}
      {loaded.status === 'failed' && <p className="form-error" role="alert">{loaded.message}</p>}
      {loaded.status === 'loaded' && loaded.boards.activities.length === 0 && <p className="muted">No activity in this lesson yet.</p>}
      {loaded.status === 'loaded' &&
        loaded.boards.activities.map(({ activity, boards }) => (
          <section key={activity.id} className="lesson-boards-activity">
            <h3>
              {activity.title}{' '}
              <span className="muted">
                ({new Date(activity.startedAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}, {boards.length} boards)
              </span>
            </h3>
            <button type="button" className="roster-action"
              onClick={() => void exportPngZip(boards.map((b) => ({ name: b.board.ownerName, elements: b.elements })), activity.title)}>
              Download all (zip)
            </button>
            <ul className="class-grid">
              {boards.map(({ board, elements }) => {
                return (
                  <li key={board.id} className="class-tile">
                    <BoardPicture elements={elements} label={`${board.ownerName}'s board`} boardId={board.id} owner={board.ownerName} />
                    <span className="class-tile-name">{board.ownerName}</span>
                    <button type="button" className="roster-action" onClick={() => void exportPng(elements, `${activity.title} ${board.ownerName}`)}>
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
          Close
        </button>
      </div>
    </dialog>
  );
}
