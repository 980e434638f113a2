import './centerPage.css';
import { DisplayName, ErrorCode, RoomCode, type RoomInfo, type SessionGrant } from '@wb/protocol';
import { Trans } from '@lingui/react';
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, getRoom, joinRoom } from '../api/roomsApi.ts';
import { forgetGrant, loadGrant, saveGrant } from '../session/grantStorage.ts';
import { memberKey } from '../session/memberKey.ts';
import { hasLeft, markLeft, rememberedMembership, type RememberedMembership } from '../session/membershipMemory.ts';
import { Field } from './Field.tsx';
import { Logo } from './HomePage.tsx';
import { LessonPage } from './LessonPage.tsx';
import { WaitingPage } from './WaitingPage.tsx';
import { rememberName, rememberedName } from './rememberedName.ts';
import { i18n } from '../i18n/i18n.ts';
import { errorMessage, fieldProblem, refusalMessage } from '../i18n/errors.ts';
import { useT } from '../i18n/useT.ts';

/** `/r/:code`: the board if this tab holds a session for the room, else the join form. */
export function RoomPage({ code }: { code: string }) {
  const t = useT();
  const [grant, setGrant] = useState<SessionGrant | null>(() => loadGrant(code));
  if (!RoomCode.safeParse(code).success) {
    return <Problem title={t('room.badCodeTitle')} text={t('room.badCodeText')} />;
  }
  if (grant?.admission === 'pending') {
    return (
      <WaitingPage
        grant={grant}
        onAdmitted={() => {
          // The same session goes on: the teacher's admission is what it waited for.
          const admitted = { ...grant, admission: 'admitted' as const };
          saveGrant(admitted);
          setGrant(admitted);
        }}
        onRejoin={() => {
          forgetGrant(code);
          setGrant(null);
        }}
      />
    );
  }
  if (grant) {
    return (
      <LessonPage
        grant={grant}
        onRejoin={() => {
          forgetGrant(code);
          setGrant(null);
        }}
        onLeft={() => {
          forgetGrant(code);
          markLeft(code);
          setGrant(null);
        }}
      />
    );
  }
  const remembered = rememberedMembership(code);
  if (remembered && hasLeft(code)) return <LeftPage code={code} remembered={remembered} onJoined={setGrant} />;
  // The teacher opening their own lesson in a new tab: this browser's member key is the teacher's.
  if (remembered?.role === 'teacher') return <ReturningTeacher code={code} displayName={remembered.displayName} onJoined={setGrant} />;
  return <JoinPage code={code} onJoined={setGrant} />;
}

/** Joins again as the member this browser already is (the server recognises its member key). */
async function joinAgain(code: string, remembered: RememberedMembership): Promise<SessionGrant> {
  const grant = await joinRoom(code, { displayName: remembered.displayName, memberKey: memberKey() });
  saveGrant(grant);
  return grant;
}

function ReturningTeacher({ code, displayName, onJoined }: { code: string; displayName: string; onJoined: (grant: SessionGrant) => void }) {
  const t = useT();
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    joinAgain(code, { displayName, role: 'teacher' }).then(
      (grant) => !cancelled && onJoined(grant),
      (err: unknown) => !cancelled && setError(joinErrorText(err, 'room.openFailed')),
    );
    return () => {
      cancelled = true;
    };
  }, [code, displayName, onJoined]);
  if (error) return <Problem title={t('room.openFailed')} text={error} retry />;
  return (
    <main className="center-page">
      <section className="card" aria-busy="true">
        <Logo />
        <p>{t('room.openingAs', { name: displayName })}</p>
      </section>
    </main>
  );
}

/** After "Leave lesson": say so, and offer to come back as the same member with one click. */
function LeftPage({ code, remembered, onJoined }: { code: string; remembered: RememberedMembership; onJoined: (grant: SessionGrant) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const t = useT();
  useEffect(() => {
    document.title = t('app.pageTitle', { page: t('left.title') });
  }, [t]);
  const rejoin = async () => {
    setBusy(true);
    setError(null);
    try {
      onJoined(await joinAgain(code, remembered));
    } catch (err) {
      setBusy(false);
      setError(joinErrorText(err, 'join.failed'));
    }
  };
  return (
    <main className="center-page">
      <section className="card" aria-labelledby="left-title" data-testid="left-page">
        <Logo />
        <h1 id="left-title">{t('left.title')}</h1>
        <p>
          <Trans id="left.comeBack" values={{ name: remembered.displayName }} components={{ 0: <strong /> }} />
        </p>
        {error && <p className="form-error" role="alert">{error}</p>}
        <div className="actions">
          <button type="button" className="button button-primary" onClick={() => void rejoin()} disabled={busy}>
            {busy ? t('join.joining') : t('left.rejoin')}
          </button>
          <a className="button button-secondary" href="/">
            {t('nav.startPage')}
          </a>
        </div>
      </section>
    </main>
  );
}

type Lookup = { status: 'loading' } | { status: 'found'; room: RoomInfo } | { status: 'failed'; error: ApiError };

/** Why joining failed, in the words a joining student needs (a few codes say more than the refusal's text). */
function joinErrorText(err: unknown, fallback: 'join.failed' | 'room.openFailed'): string {
  if (!(err instanceof ApiError)) return i18n._(fallback);
  switch (err.code) {
    case ErrorCode.MEMBERSHIP_REVOKED:
      return i18n._('join.revoked');
    case ErrorCode.ROOM_NOT_FOUND:
      return i18n._('join.notFound');
    case ErrorCode.LESSON_ENDED:
      return i18n._('join.ended');
    case ErrorCode.RATE_LIMITED:
      return i18n._('join.rateLimited');
    default:
      return errorMessage(err, fallback);
  }
}

/** How often a student waiting for a prepared lesson to start asks again (ms). */
const NOT_STARTED_RETRY_MS = 3_000;

function JoinPage({ code, onJoined }: { code: string; onJoined: (grant: SessionGrant) => void }) {
  const t = useT();
  const [lookup, setLookup] = useState<Lookup>({ status: 'loading' });
  const [name, setName] = useState(rememberedName);
  const [nameError, setNameError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  /** A prepared lesson not started yet (issue 39): the name to join under once it starts. */
  const [waiting, setWaiting] = useState<string | null>(null);

  // Not started yet: the same join again every few seconds until the teacher starts the lesson.
  useEffect(() => {
    if (waiting === null) return;
    let stopped = false;
    const timer = setInterval(() => {
      joinRoom(code, { displayName: waiting, memberKey: memberKey() }).then(
        (grant) => {
          if (stopped) return;
          stopped = true;
          clearInterval(timer);
          rememberName(waiting);
          saveGrant(grant);
          onJoined(grant);
        },
        (err: unknown) => {
          if (stopped || (err instanceof ApiError && err.code === ErrorCode.LESSON_NOT_STARTED)) return;
          stopped = true;
          clearInterval(timer);
          setWaiting(null);
          setFormError(joinErrorText(err, 'join.failed'));
        },
      );
    }, NOT_STARTED_RETRY_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [waiting, code, onJoined]);

  useEffect(() => {
    let cancelled = false;
    getRoom(code).then(
      (room) => !cancelled && setLookup({ status: 'found', room }),
      (error: unknown) =>
        !cancelled &&
        setLookup({ status: 'failed', error: error instanceof ApiError ? error : new ApiError(0, 'unavailable', 'Could not load the lesson.') }),
    );
    return () => {
      cancelled = true;
    };
  }, [code]);

  useEffect(() => {
    document.title = t('app.pageTitle', { page: lookup.status === 'found' ? t('join.pageTitle', { title: lookup.room.title }) : t('join.pageTitleLoading') });
  }, [lookup, t]);

  if (lookup.status === 'failed') {
    const { error } = lookup;
    if (error.code === 'room_not_found') return <Problem title={t('join.notFoundTitle')} text={t('join.notFoundText', { code })} />;
    if (error.code === 'room_archived' || error.code === 'lesson_ended') return <Problem title={t('join.endedTitle')} text={t('join.endedText')} />;
    return <Problem title={t('join.loadFailed')} text={errorMessage(error, 'join.loadFailed')} retry />;
  }

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const displayName = DisplayName.safeParse(name);
    if (!displayName.success) {
      setNameError(fieldProblem('name', displayName.error.issues[0]));
      return;
    }
    setNameError(null);
    setFormError(null);
    setBusy(true);
    try {
      const grant = await joinRoom(code, { displayName: displayName.data, memberKey: memberKey() });
      rememberName(displayName.data);
      saveGrant(grant);
      onJoined(grant);
    } catch (err) {
      setBusy(false);
      if (!(err instanceof ApiError)) return setFormError(t('join.failed'));
      // The server names the field it refused; a name problem belongs next to the name.
      if (err.code === 'bad_request' && /name/i.test(err.message)) return setNameError(t('field.nameInvalid'));
      if (err.code === ErrorCode.NAME_RESERVED) return setNameError(refusalMessage(ErrorCode.NAME_RESERVED));
      if (err.code === ErrorCode.LESSON_NOT_STARTED) return setWaiting(displayName.data);
      setFormError(joinErrorText(err, 'join.failed'));
    }
  };

  if (lookup.status === 'found' && lookup.room.status === 'ended') {
    return <Problem title={t('join.endedTitle')} text={t('join.endedAskReopen')} />;
  }
  const title = lookup.status === 'found' ? lookup.room.title : null;
  if (waiting !== null) {
    return (
      <main className="center-page">
        <section className="card" aria-labelledby="not-started-title" data-testid="not-started" aria-busy="true">
          <Logo />
          <h1 id="not-started-title">{title ?? t('join.loading')}</h1>
          <p role="status">{refusalMessage(ErrorCode.LESSON_NOT_STARTED)}</p>
          <p className="card-foot"><a href="/">{t('nav.startPage')}</a></p>
        </section>
      </main>
    );
  }
  return (
    <main className="center-page">
      <section className="card join-card" aria-labelledby="join-title" aria-busy={lookup.status === 'loading'}>
        <Logo />
        <p className="eyebrow">{t('join.eyebrow')} <span className="code-chip">{code}</span></p>
        <h1 id="join-title">{title ?? t('join.loading')}</h1>
        <form onSubmit={submit} noValidate>
          <Field label={t('field.yourName')} name="displayName" autoComplete="name" value={name} maxLength={40} required autoFocus
            hint={t('join.nameHint')} onChange={(e) => setName(e.target.value)} error={nameError} />
          {lookup.status === 'found' && lookup.room.startedAt === null && (
            <p className="muted" data-testid="not-started-note">{t('join.notStartedNote')}</p>
          )}
          {lookup.status === 'found' && lookup.room.requireApproval && (
            <p className="muted" data-testid="approval-note">{t('join.approvalNote')}</p>
          )}
          {formError && <p className="form-error" role="alert">{formError}</p>}
          <button type="submit" className="button button-primary button-wide" disabled={busy || lookup.status !== 'found'}>
            {busy ? t('join.joining') : t('join.submit')}
          </button>
        </form>
        <p className="card-foot"><a href="/">{t('nav.startPage')}</a></p>
      </section>
    </main>
  );
}

function Problem({ title, text, retry = false }: { title: string; text: string; retry?: boolean }) {
  const t = useT();
  return (
    <main className="center-page">
      <section className="card" aria-labelledby="problem-title">
        <Logo />
        <h1 id="problem-title">{title}</h1>
        <p>{text}</p>
        <div className="actions">
          {retry && (
            <button type="button" className="button button-primary" onClick={() => location.reload()}>
              {t('action.tryAgain')}
            </button>
          )}
          <a className="button button-secondary" href="/">
            {t('nav.startPage')}
          </a>
        </div>
      </section>
    </main>
  );
}
