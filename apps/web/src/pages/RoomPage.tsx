import './centerPage.css';
import { DisplayName, ErrorCode, RoomCode, refusalText, type RoomInfo, type SessionGrant } from '@wb/protocol';
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

/** `/r/:code`: the board if this tab holds a session for the room, else the join form. */
export function RoomPage({ code }: { code: string }) {
  const [grant, setGrant] = useState<SessionGrant | null>(() => loadGrant(code));
  if (!RoomCode.safeParse(code).success) {
    return <Problem title="That is not a lesson code" text="A lesson code is 6 letters or digits. Check the link you were given." />;
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
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    joinAgain(code, { displayName, role: 'teacher' }).then(
      (grant) => !cancelled && onJoined(grant),
      (err: unknown) => !cancelled && setError(err instanceof ApiError ? (joinErrorText[err.code] ?? err.message) : 'Could not open the lesson.'),
    );
    return () => {
      cancelled = true;
    };
  }, [code, displayName, onJoined]);
  if (error) return <Problem title="Could not open the lesson" text={error} retry />;
  return (
    <main className="center-page">
      <section className="card" aria-busy="true">
        <Logo />
        <p>Opening your lesson as {displayName}…</p>
      </section>
    </main>
  );
}

/** After "Leave lesson": say so, and offer to come back as the same member with one click. */
function LeftPage({ code, remembered, onJoined }: { code: string; remembered: RememberedMembership; onJoined: (grant: SessionGrant) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    document.title = 'You left the lesson · Classroom whiteboard';
  }, []);
  const rejoin = async () => {
    setBusy(true);
    setError(null);
    try {
      onJoined(await joinAgain(code, remembered));
    } catch (err) {
      setBusy(false);
      setError(err instanceof ApiError ? (joinErrorText[err.code] ?? err.message) : 'Could not join. Try again.');
    }
  };
  return (
    <main className="center-page">
      <section className="card" aria-labelledby="left-title" data-testid="left-page">
        <Logo />
        <h1 id="left-title">You left the lesson</h1>
        <p>
          You can come back as <strong>{remembered.displayName}</strong> while the lesson is open.
        </p>
        {error && <p className="form-error" role="alert">{error}</p>}
        <div className="actions">
          <button type="button" className="button button-primary" onClick={() => void rejoin()} disabled={busy}>
            {busy ? 'Joining…' : 'Rejoin'}
          </button>
          <a className="button button-secondary" href="/">
            Start page
          </a>
        </div>
      </section>
    </main>
  );
}

type Lookup = { status: 'loading' } | { status: 'found'; room: RoomInfo } | { status: 'failed'; error: ApiError };

const joinErrorText: Partial<Record<string, string>> = {
  membership_revoked: 'You were removed from this lesson, so you cannot join it again.',
  admission_denied: 'The teacher declined your request to join this lesson.',
  room_not_found: 'This lesson does not exist. Check the code with your teacher.',
  room_archived: 'This lesson has ended.',
  lesson_ended: 'The lesson has ended. Ask your teacher to reopen it.',
  rate_limited: 'Too many attempts. Wait a moment and try again.',
};

function JoinPage({ code, onJoined }: { code: string; onJoined: (grant: SessionGrant) => void }) {
  const [lookup, setLookup] = useState<Lookup>({ status: 'loading' });
  const [name, setName] = useState(rememberedName);
  const [nameError, setNameError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

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
    document.title = lookup.status === 'found' ? `Join ${lookup.room.title} · Classroom whiteboard` : 'Join a lesson · Classroom whiteboard';
  }, [lookup]);

  if (lookup.status === 'failed') {
    const { error } = lookup;
    if (error.code === 'room_not_found') return <Problem title="Lesson not found" text={`There is no lesson with the code ${code}. Check the code with your teacher.`} />;
    if (error.code === 'room_archived' || error.code === 'lesson_ended') return <Problem title="The lesson has ended" text="The teacher has ended this lesson." />;
    return <Problem title="Could not load the lesson" text={error.message} retry />;
  }

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const displayName = DisplayName.safeParse(name);
    if (!displayName.success) {
      setNameError(displayName.error.issues[0]?.message ?? 'Check your name');
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
      if (!(err instanceof ApiError)) return setFormError('Could not join. Try again.');
      // The server names the field it refused; a name problem belongs next to the name.
      if (err.code === 'bad_request' && /name/i.test(err.message)) return setNameError(err.message);
      if (err.code === ErrorCode.NAME_RESERVED) return setNameError(refusalText[ErrorCode.NAME_RESERVED]);
      setFormError(joinErrorText[err.code] ?? err.message);
    }
  };

  if (lookup.status === 'found' && lookup.room.status === 'ended') {
    return <Problem title="The lesson has ended" text="The teacher has ended this lesson. Ask them to reopen it to join." />;
  }
  const title = lookup.status === 'found' ? lookup.room.title : null;
  return (
    <main className="center-page">
      <section className="card join-card" aria-labelledby="join-title" aria-busy={lookup.status === 'loading'}>
        <Logo />
        <p className="eyebrow">Joining lesson <span className="code-chip">{code}</span></p>
        <h1 id="join-title">{title ?? 'Loading lesson…'}</h1>
        <form onSubmit={submit} noValidate>
          <Field label="Your name" name="displayName" autoComplete="name" value={name} maxLength={40} required autoFocus
            hint="This is how your teacher and classmates will see you." onChange={(e) => setName(e.target.value)} error={nameError} />
          {lookup.status === 'found' && lookup.room.requireApproval && (
            <p className="muted" data-testid="approval-note">The teacher lets each student in: you will wait a moment after joining.</p>
          )}
          {formError && <p className="form-error" role="alert">{formError}</p>}
          <button type="submit" className="button button-primary button-wide" disabled={busy || lookup.status !== 'found'}>
            {busy ? 'Joining…' : 'Join lesson'}
          </button>
        </form>
        <p className="card-foot"><a href="/">Start page</a></p>
      </section>
    </main>
  );
}

function Problem({ title, text, retry = false }: { title: string; text: string; retry?: boolean }) {
  return (
    <main className="center-page">
      <section className="card" aria-labelledby="problem-title">
        <Logo />
        <h1 id="problem-title">{title}</h1>
        <p>{text}</p>
        <div className="actions">
          {retry && (
            <button type="button" className="button button-primary" onClick={() => location.reload()}>
              Try again
            </button>
          )}
          <a className="button button-secondary" href="/">
            Start page
          </a>
        </div>
      </section>
    </main>
  );
}
