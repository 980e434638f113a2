import './ShareLessonPanel.css';
import type { ShareLinkState, ShareOptions, SharedLesson } from '@wb/protocol';
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import type { ReportSource } from '../api/teacherApi.ts';
import { errorMessage } from '../i18n/errors.ts';
import { formatDateTime } from '../i18n/format.ts';
import { useT } from '../i18n/useT.ts';
import { copyText } from '../platform/systemClipboard.ts';
import { ReplayPlayer } from './ReplayPlayer.tsx';
import { BoardTabs, useBoardName } from './SharedLessonPage.tsx';
import { createShareLink, getLessonReplayBoards, getLessonReplayPage, getShareLink, setShareOptions, sharedPageUrl, turnOffShareLink } from './shareApi.ts';

/**
 * The teacher's controls for an ended lesson: **Share** (a read-only link for absent students,
 * what it includes, turning it off) and **Replay** (each board played back as it was built).
 * `source` is how she is known: her lesson session (the ended lesson's banner) or her account
 * (the lesson library). The server decides every rule; this only shows its answers.
 */
export function ShareLessonPanel({ source, buttonClass = 'button button-secondary' }: { source: ReportSource; buttonClass?: string }) {
  const t = useT();
  const [open, setOpen] = useState<'share' | 'replay' | null>(null);
  return (
    <>
      <button type="button" className={buttonClass} onClick={() => setOpen('share')} data-testid="share-open">
        {t('share.open')}
      </button>
      <button type="button" className={buttonClass} onClick={() => setOpen('replay')} data-testid="replay-open">
        {t('share.replay')}
      </button>
      {open === 'share' && <ShareDialog source={source} onClose={() => setOpen(null)} />}
      {open === 'replay' && <LessonReplay source={source} onClose={() => setOpen(null)} />}
    </>
  );
}

const OPTION_KEYS = ['names', 'privateBoards', 'replay'] as const satisfies readonly (keyof ShareOptions)[];

function ShareDialog({ source, onClose }: { source: ReportSource; onClose: () => void }) {
  const t = useT();
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [state, setState] = useState<ShareLinkState | null>(null);
  const [options, setOptions] = useState<ShareOptions>({ names: false, privateBoards: false, replay: false });
  const [url, setUrl] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    getShareLink(source).then(
      (s) => {
        setState(s);
        if (s.on) setOptions(s.options);
      },
      (e: unknown) => setMessage(errorMessage(e, 'share.failed')),
    );
  }, [source]);

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setMessage(null);
    try {
      await work();
    } catch (e) {
      setMessage(errorMessage(e, 'share.failed'));
    } finally {
      setBusy(false);
    }
  };

  const make = () =>
    run(async () => {
      const made = await createShareLink(source, options);
      setState(made);
      setUrl(sharedPageUrl(made.token));
    });

  const toggle = (key: (typeof OPTION_KEYS)[number], value: boolean) => {
    const next = { ...options, [key]: value };
    setOptions(next);
    // A link that is on changes at once; before one is made, the choice waits for "Make link".
    if (state?.on) void run(async () => setState(await setShareOptions(source, { [key]: value })));
  };

  const labels: Record<(typeof OPTION_KEYS)[number], string> = {
    names: t('share.optionNames'),
    privateBoards: t('share.optionPrivate'),
    replay: t('share.optionReplay'),
  };

  return (
    <dialog ref={ref} className="dialog share-dialog" aria-labelledby={titleId} onCancel={onClose} onClose={onClose} data-testid="share-dialog">
      <h2 id={titleId}>{t('share.dialogTitle')}</h2>
      <p>{t('share.dialogText')}</p>
      <fieldset className="share-options" disabled={busy || state === null}>
        <legend>{t('share.includes')}</legend>
        {OPTION_KEYS.map((key) => (
          <label key={key} className="share-option">
            <input type="checkbox" checked={options[key]} onChange={(e) => toggle(key, e.currentTarget.checked)} />
            <span>{labels[key]}</span>
          </label>
        ))}
      </fieldset>
      {url && (
        <div className="share-url">
          <label className="share-url-label">
            <span>{t('share.linkLabel')}</span>
            <input type="text" readOnly value={url} onFocus={(e) => e.currentTarget.select()} data-testid="share-url" />
          </label>
          <button type="button" className="button button-primary" onClick={() => void copyText(url).then((ok) => setMessage(t(ok ? 'share.copied' : 'share.copyByHand')))}>
            {t('share.copy')}
          </button>
        </div>
      )}
      {state?.on && !url && state.createdAt && (
        <p className="share-on" data-testid="share-on">
          {t('share.onSince', { time: formatDateTime(state.createdAt, { dateStyle: 'medium', timeStyle: 'short' }) })}
        </p>
      )}
      {message && (
        <p className="share-message" role="status">
          {message}
        </p>
      )}
      <div className="actions">
        {state?.on ? (
          <>
            <button type="button" className="button button-danger" disabled={busy} onClick={() => void run(async () => {
              await turnOffShareLink(source);
              setState({ on: false, createdAt: null, options });
              setUrl(null);
              setMessage(t('share.turnedOff'));
            })} data-testid="share-turn-off">
              {t('share.turnOff')}
            </button>
            {!url && (
              <button type="button" className="button button-secondary" disabled={busy} onClick={() => void make()}>
                {t('share.makeNew')}
              </button>
            )}
          </>
        ) : (
          <button type="button" className="button button-primary" disabled={busy || state === null} onClick={() => void make()} data-testid="share-make">
            {t('share.make')}
          </button>
        )}
        <button type="button" className="button button-secondary" onClick={() => ref.current?.close()}>
          {t('action.close')}
        </button>
      </div>
    </dialog>
  );
}

/** The teacher's replay of her lesson: every board (pages, then students' boards by name). */
function LessonReplay({ source, onClose }: { source: ReportSource; onClose: () => void }) {
  const t = useT();
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const nameOf = useBoardName();
  const [lesson, setLesson] = useState<SharedLesson | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [index, setIndex] = useState(0);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    getLessonReplayBoards(source).then(setLesson, (e: unknown) => setError(errorMessage(e, 'share.replayFailed')));
  }, [source]);
  const loadPage = useCallback((after: string | null) => getLessonReplayPage(source, index, after), [source, index]);
  const board = lesson?.boards[index];
  return (
    <dialog ref={ref} className="replay-dialog" aria-labelledby={titleId} onCancel={onClose} onClose={onClose} data-testid="replay-dialog">
      <header className="replay-dialog-header">
        <h2 id={titleId}>{t('share.replayTitle', { title: lesson?.title ?? '' })}</h2>
        <button type="button" className="button button-secondary" onClick={() => ref.current?.close()}>
          {t('action.close')}
        </button>
      </header>
      {lesson && lesson.boards.length > 1 && <BoardTabs boards={lesson.boards} index={index} onChoose={setIndex} />}
      {error && <p role="alert">{error}</p>}
      {lesson && board && (
        <ReplayPlayer key={index} loadPage={loadPage} paper={board.paper} label={t('share.replayLabel', { name: nameOf(board, lesson.boards) })} fitKey={`teacher-${index}`} />
      )}
    </dialog>
  );
}
