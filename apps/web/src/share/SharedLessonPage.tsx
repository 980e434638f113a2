import './SharedLessonPage.css';
import { ErrorCode, type Element, type SharedBoardRef, type SharedLesson } from '@wb/protocol';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { ApiError } from '../api/roomsApi.ts';
import { errorMessage } from '../i18n/errors.ts';
import { LanguageSelect } from '../i18n/LanguageSelect.tsx';
import { useT } from '../i18n/useT.ts';
import { ImageLibrary } from '../images/imageLibrary.ts';
import { registerImagePictures } from '../images/imageRefs.ts';
import { ThemeToggle } from '../theme/ThemeToggle.tsx';
import { NOBODY } from './replayPlayer.ts';
import { ReadOnlyBoard } from './ReadOnlyBoard.tsx';
import { ReplayPlayer } from './ReplayPlayer.tsx';
import { getSharedBoard, getSharedLesson, getSharedReplayPage, sharedImagesBase } from './shareApi.ts';

type Loaded<T> = { status: 'loading' } | { status: 'ready'; value: T } | { status: 'failed'; code: ErrorCode | null; text: string };

/** How a board of a shared lesson is named: "Page 2", the student's name when included, or "Student board 3". */
export function useBoardName(): (board: SharedBoardRef, boards: readonly SharedBoardRef[]) => string {
  const t = useT();
  return (board, boards) => {
    const ofKind = boards.filter((b) => b.kind === board.kind);
    const n = ofKind.indexOf(board) + 1;
    if (board.kind === 'page') return board.title ?? t('share.pageName', { n });
    return board.owner ?? t('share.studentBoardName', { n });
  };
}

/**
 * What a share link opens (`/shared/<token>`): the ended lesson's boards, read-only, for someone
 * with no account and no session (an absent student). No socket: each board is one HTTP read, and
 * replay (when the teacher included it) a page of history per request. A link the teacher turned
 * off shows why and nothing else.
 */
export function SharedLessonPage({ token }: { token: string }) {
  const t = useT();
  const [lesson, setLesson] = useState<Loaded<SharedLesson>>({ status: 'loading' });
  const [index, setIndex] = useState(0);
  const [mode, setMode] = useState<'board' | 'replay'>('board');

  useEffect(() => {
    let cancelled = false;
    getSharedLesson(token).then(
      (value) => !cancelled && setLesson({ status: 'ready', value }),
      (e: unknown) => !cancelled && setLesson({ status: 'failed', code: e instanceof ApiError ? e.code : null, text: errorMessage(e, 'share.loadFailed') }),
    );
    return () => {
      cancelled = true;
    };
  }, [token]);

  useEffect(() => {
    const library = new ImageLibrary('', null, sharedImagesBase(token));
    const unregister = registerImagePictures(library);
    return () => {
      unregister();
      library.dispose();
    };
  }, [token]);

  const title = lesson.status === 'ready' ? lesson.value.title : t('share.title');
  useEffect(() => {
    document.title = t('app.pageTitle', { page: title });
  }, [t, title]);

  if (lesson.status === 'loading') {
    return (
      <main className="center-page">
        <p role="status">{t('share.loading')}</p>
      </main>
    );
  }
  if (lesson.status === 'failed') return <SharedRefusal text={lesson.text} />;

  const { boards, options } = lesson.value;
  const board = boards[index] ?? boards[0];
  return (
    <main className="shared-lesson" data-testid="shared-lesson">
      <header className="shared-header">
        <div className="shared-heading">
          <h1>{lesson.value.title}</h1>
          <span className="shared-note">{t('share.readOnlyNote')}</span>
        </div>
        <div className="shared-header-actions">
          {options.replay && (
            <div className="shared-modes" role="group" aria-label={t('share.viewMode')}>
              <button type="button" className="replay-speed" aria-pressed={mode === 'board'} onClick={() => setMode('board')}>
                {t('share.finalBoard')}
              </button>
              <button type="button" className="replay-speed" aria-pressed={mode === 'replay'} onClick={() => setMode('replay')} data-testid="shared-replay">
                {t('share.replay')}
              </button>
            </div>
          )}
          <LanguageSelect />
          <ThemeToggle />
        </div>
      </header>
      {boards.length > 1 && <BoardTabs boards={boards} index={index} onChoose={setIndex} />}
      {board ? (
        mode === 'replay' && options.replay ? (
          <SharedReplay key={`r${board.index}`} token={token} board={board} boards={boards} />
        ) : (
          <SharedBoardView key={`b${board.index}`} token={token} board={board} boards={boards} onOff={setLesson} />
        )
      ) : (
        <p className="shared-empty">{t('share.noBoards')}</p>
      )}
    </main>
  );
}

/** The boards of the lesson as tabs: pages first, then students' boards when included. */
export function BoardTabs({ boards, index, onChoose }: { boards: readonly SharedBoardRef[]; index: number; onChoose: (index: number) => void }) {
  const t = useT();
  const nameOf = useBoardName();
  return (
    <nav className="shared-tabs" aria-label={t('share.boards')}>
      {boards.map((b) => (
        <button key={b.index} type="button" className="shared-tab" aria-current={b.index === index ? 'page' : undefined} onClick={() => onChoose(b.index)}>
          {nameOf(b, boards)}
        </button>
      ))}
    </nav>
  );
}

function SharedRefusal({ text }: { text: string }) {
  const t = useT();
  return (
    <main className="center-page">
      <div className="card" role="alert" data-testid="shared-refused">
        <h1>{t('share.unavailable')}</h1>
        <p>{text}</p>
      </div>
    </main>
  );
}

const toElements = (board: { elements: readonly { id: string; shape: Element['shape']; z: number }[] }): ReadonlyMap<string, Element> =>
  new Map(board.elements.map((e) => [e.id, { id: e.id, shape: e.shape, z: e.z, version: 1, pinned: false, createdBy: NOBODY, updatedBy: NOBODY, lock: null }]));

function SharedBoardView({ token, board, boards, onOff }: { token: string; board: SharedBoardRef; boards: readonly SharedBoardRef[]; onOff: (failed: Loaded<SharedLesson>) => void }) {
  const t = useT();
  const nameOf = useBoardName();
  const [elements, setElements] = useState<ReadonlyMap<string, Element> | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    getSharedBoard(token, board.index).then(
      (read) => !cancelled && setElements(toElements(read)),
      (e: unknown) => {
        if (cancelled) return;
        // Turned off while open: the whole page says so, as a fresh visit would.
        if (e instanceof ApiError && e.code === ErrorCode.SHARE_LINK_OFF) onOff({ status: 'failed', code: e.code, text: errorMessage(e, 'share.loadFailed') });
        else setError(errorMessage(e, 'share.loadFailed'));
      },
    );
    return () => {
      cancelled = true;
    };
  }, [token, board.index, onOff]);
  const empty = useMemo(() => new Map<string, Element>(), []);
  return (
    <div className="shared-stage">
      <ReadOnlyBoard elements={elements ?? empty} paper={board.paper} label={t('share.boardLabel', { name: nameOf(board, boards) })} fitKey={`board-${board.index}`} />
      {(error || !elements) && (
        <p className="shared-stage-status panel" role="status">
          {error ?? t('share.loading')}
        </p>
      )}
    </div>
  );
}

function SharedReplay({ token, board, boards }: { token: string; board: SharedBoardRef; boards: readonly SharedBoardRef[] }) {
  const t = useT();
  const nameOf = useBoardName();
  const loadPage = useCallback((after: string | null) => getSharedReplayPage(token, board.index, after), [token, board.index]);
  return (
    <div className="shared-stage">
      <ReplayPlayer loadPage={loadPage} paper={board.paper} label={t('share.replayLabel', { name: nameOf(board, boards) })} fitKey={`replay-${board.index}`} />
    </div>
  );
}
