import './HomePage.css';
import { DisplayName, RoomCode, RoomTitle } from '@wb/protocol';
import { useState, type FormEvent } from 'react';
import { ApiError, createRoom } from '../api/roomsApi.ts';
import { roomPath, navigate } from '../routing.ts';
import { saveGrant } from '../session/grantStorage.ts';
import { memberKey } from '../session/memberKey.ts';
import { Field } from './Field.tsx';
import { rememberName, rememberedName } from './rememberedName.ts';

/** The start page: a teacher starts a lesson, a student types the code they were given. */
export function HomePage() {
  return (
    <main className="home">
      <header className="home-header">
        <Logo />
        <h1>Classroom whiteboard</h1>
        <p className="lede">One board for the whole class. Share a code, and everyone sees each other live.</p>
        <p className="muted">
          Teachers: <a href="/teacher">sign in to keep your lessons and their attendance</a> (optional).
        </p>
      </header>
      <div className="home-cards">
        <StartLessonCard />
        <JoinWithCodeCard />
      </div>
    </main>
  );
}

function StartLessonCard() {
  const [name, setName] = useState(rememberedName);
  const [title, setTitle] = useState('');
  const [requireApproval, setRequireApproval] = useState(false);
  const [nameError, setNameError] = useState<string | null>(null);
  const [titleError, setTitleError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const teacherName = DisplayName.safeParse(name);
    const trimmedTitle = title.trim();
    const lessonTitle = trimmedTitle ? RoomTitle.safeParse(trimmedTitle) : null;
    setNameError(teacherName.success ? null : (teacherName.error.issues[0]?.message ?? 'Check your name'));
    setTitleError(lessonTitle && !lessonTitle.success ? 'A title is at most 80 characters, without control characters' : null);
    if (!teacherName.success || (lessonTitle && !lessonTitle.success)) return;
    setBusy(true);
    setFormError(null);
    try {
      const grant = await createRoom({
        teacherName: teacherName.data,
        memberKey: memberKey(),
        ...(lessonTitle?.success ? { title: lessonTitle.data } : {}),
        ...(requireApproval ? { requireApproval } : {}),
      });
      rememberName(teacherName.data);
      saveGrant(grant);
      navigate(roomPath(grant.room.code));
    } catch (err) {
      setFormError(err instanceof ApiError ? err.message : 'Could not start the lesson. Try again.');
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-labelledby="start-heading">
      <h2 id="start-heading">Start a lesson</h2>
      <p className="card-lede">You will get a code and a link to share with your class.</p>
      <form onSubmit={submit} noValidate>
        <Field label="Your name" name="teacherName" autoComplete="name" value={name} maxLength={40} required
          onChange={(e) => setName(e.target.value)} error={nameError} />
        <Field label="Lesson title (optional)" name="title" value={title} maxLength={80} placeholder="e.g. Fractions, week 3"
          onChange={(e) => setTitle(e.target.value)} error={titleError} />
        <ApprovalCheckbox checked={requireApproval} onChange={setRequireApproval} />
        {formError && <p className="form-error" role="alert">{formError}</p>}
        <button type="submit" className="button button-primary button-wide" disabled={busy}>
          {busy ? 'Starting…' : 'Start lesson'}
        </button>
      </form>
    </section>
  );
}

function JoinWithCodeCard() {
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    // People paste whole links too: take the code from the end of one.
    const fromLink = /\/r\/([A-Za-z0-9]+)\/?$/.exec(code.trim())?.[1] ?? code.replace(/[\s-]/g, '');
    const parsed = RoomCode.safeParse(fromLink);
    if (!parsed.success) {
      setError('A lesson code is 6 letters or digits, like K7QM3X.');
      return;
    }
    navigate(roomPath(parsed.data));
  };

  return (
    <section className="card" aria-labelledby="join-heading">
      <h2 id="join-heading">Join with a code</h2>
      <p className="card-lede">Your teacher shows the code on their screen.</p>
      <form onSubmit={submit} noValidate>
        <Field label="Lesson code" name="code" className="code-input" value={code} autoComplete="off" autoCapitalize="characters"
          spellCheck={false} placeholder="K7QM3X" onChange={(e) => setCode(e.target.value.toUpperCase())} error={error} />
        <button type="submit" className="button button-secondary button-wide">
          Join lesson
        </button>
      </form>
    </section>
  );
}

/** "Students wait until I let them in": the lobby, chosen when a lesson starts (changeable later on the board). */
export function ApprovalCheckbox({ checked, onChange }: { checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <label className="checkbox-field">
      <input type="checkbox" name="requireApproval" checked={checked} onChange={(e) => onChange(e.currentTarget.checked)} />
      Students wait until I let them in
    </label>
  );
}

export function Logo({ size = 40 }: { size?: number }) {
  return (
    <svg className="logo" width={size} height={size} viewBox="0 0 32 32" aria-hidden="true">
      <rect width="32" height="32" rx="8" fill="var(--accent)" />
      <path d="M8 21c4-9 8-9 8-3s4 6 8-5" stroke="white" strokeWidth="3" fill="none" strokeLinecap="round" />
    </svg>
  );
}
