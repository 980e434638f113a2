import './centerPage.css';
import './WaitingPage.css';
import { isFatalErrorCode, type SessionGrant } from '@wb/protocol';
import { Trans } from '@lingui/react';
import { useEffect, useRef, useState } from 'react';
import { ApiError, getAdmission, signOut } from '../api/roomsApi.ts';
import { navigate } from '../routing.ts';
import { forgetGrant } from '../session/grantStorage.ts';
import { Logo } from './HomePage.tsx';
import type { FatalErrorCode } from '@wb/protocol';
import { refusalMessage } from '../i18n/errors.ts';
import { useT } from '../i18n/useT.ts';

/** How long one admission request may be held by the server (ms); it answers sooner on a decision. */
const ADMISSION_WAIT_MS = 20_000;
/** Pause before asking again after a network or server failure (ms). */
const RETRY_AFTER_FAILURE_MS = 2_000;

/** The waiting page's states: asking (the server holds the question until it has news), or an answer. */
type Lobby =
  | { status: 'waiting'; trouble: boolean }
  | { status: 'denied' }
  | { status: 'over'; code: FatalErrorCode; canRejoin: boolean };

interface WaitingPageProps {
  grant: SessionGrant;
  /** The teacher let this member in: go to the board with the same session. */
  onAdmitted: () => void;
  /** This session cannot go on (expired, left in another tab): back to the join form. */
  onRejoin: () => void;
}

/**
 * `/r/:code` while the room's teacher has not yet let this student in. The student holds a session
 * but no socket: nothing of the board reaches this page. It asks the server whether it has been
 * admitted (a long poll answered as soon as the teacher decides) and enters on its own.
 */
export function WaitingPage({ grant, onAdmitted, onRejoin }: WaitingPageProps) {
  const [lobby, setLobby] = useState<Lobby>({ status: 'waiting', trouble: false });
  const [leaving, setLeaving] = useState(false);
  const admitted = useRef(onAdmitted);
  const t = useT();
  admitted.current = onAdmitted;

  useEffect(() => {
    document.title = t('app.pageTitle', { page: t('waiting.pageTitle', { title: grant.room.title }) });
  }, [grant.room.title, t]);

  useEffect(() => {
    const abort = new AbortController();
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    void (async () => {
      while (!abort.signal.aborted) {
        try {
          const answer = await getAdmission(grant.token, ADMISSION_WAIT_MS, abort.signal);
          if (abort.signal.aborted) return;
          if (answer.admission === 'admitted') return admitted.current();
          if (answer.admission === 'denied') {
            forgetGrant(grant.room.code);
            return setLobby({ status: 'denied' });
          }
          setLobby({ status: 'waiting', trouble: false });
        } catch (error) {
          if (abort.signal.aborted) return;
          if (error instanceof ApiError && isFatalErrorCode(error.code)) {
            const canRejoin = error.code === 'not_authenticated' || error.code === 'token_expired' || error.code === 'session_closed';
            forgetGrant(grant.room.code);
            return setLobby({ status: 'over', code: error.code, canRejoin });
          }
          // The network or the server failed this once: keep the place in the queue and ask again.
          setLobby({ status: 'waiting', trouble: true });
          await pause(RETRY_AFTER_FAILURE_MS);
        }
      }
    })();
    return () => abort.abort();
  }, [grant.token, grant.room.code]);

  const leave = async () => {
    setLeaving(true);
    // Withdraws the request: the teacher's waiting list drops this name.
    await signOut(grant.token).catch(() => {});
    forgetGrant(grant.room.code);
    navigate('/');
  };

  return (
    <main className="center-page">
      <section className="card waiting-card" aria-labelledby="waiting-title" data-testid="waiting-page" data-lobby={lobby.status}>
        <Logo />
        <p className="eyebrow">
          {grant.room.title} <span className="code-chip">{grant.room.code}</span>
        </p>
        {lobby.status === 'waiting' && (
          <>
            <h1 id="waiting-title">{t('waiting.title')}</h1>
            <p role="status">
              <Trans id="waiting.text" values={{ name: grant.displayName }} components={{ 0: <strong className="waiting-name" /> }} />
            </p>
            <div className="waiting-dots" aria-hidden="true">
              <span />
              <span />
              <span />
            </div>
            {lobby.trouble && <p className="muted">{t('waiting.trouble')}</p>}
            <div className="actions">
              <button type="button" className="button button-secondary" onClick={leave} disabled={leaving}>
                {leaving ? t('action.leaving') : t('action.leave')}
              </button>
            </div>
          </>
        )}
        {lobby.status === 'denied' && (
          <>
            <h1 id="waiting-title">{t('waiting.deniedTitle')}</h1>
            <p role="alert">
              <Trans id="waiting.deniedText" values={{ name: grant.displayName }} components={{ 0: <strong className="waiting-name" /> }} />
            </p>
            <div className="actions">
              <a className="button button-primary" href="/">
                {t('nav.startPage')}
              </a>
            </div>
          </>
        )}
        {lobby.status === 'over' && (
          <>
            <h1 id="waiting-title">{t('waiting.overTitle')}</h1>
            <p role="alert">{refusalMessage(lobby.code)}</p>
            <div className="actions">
              {lobby.canRejoin && (
                <button type="button" className="button button-primary" onClick={onRejoin}>
                  {t('action.joinAgain')}
                </button>
              )}
              <a className={lobby.canRejoin ? 'button button-secondary' : 'button button-primary'} href="/">
                {t('nav.startPage')}
              </a>
            </div>
          </>
        )}
      </section>
    </main>
  );
}
