import './HomePage.css';
import { DisplayName, RoomCode, RoomTitle } from '@wb/protocol';
import { Trans } from '@lingui/react';
import { useState, type FormEvent } from 'react';
import { createRoom } from '../api/roomsApi.ts';
import { roomPath, navigate } from '../routing.ts';
import { saveGrant } from '../session/grantStorage.ts';
import { memberKey } from '../session/memberKey.ts';
import { Field } from './Field.tsx';
import { rememberName, rememberedName } from './rememberedName.ts';
import { errorMessage, fieldProblem } from '../i18n/errors.ts';
import { LanguageSelect } from '../i18n/LanguageSelect.tsx';
import { useT } from '../i18n/useT.ts';

/** The start page: a teacher starts a lesson, a student types the code they were given. */
export function HomePage() {
  const t = useT();
  return (
    <main className="home">
      <header className="home-header">
        <LanguageSelect />
        <Logo />
        <h1>{t('app.title')}</h1>
        <p className="lede">{t('home.lede')}</p>
        <p className="muted">
          <Trans id="home.teachers" components={{ 0: <a href="/teacher" /> }} />
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
  const t = useT();
  const [name, setName] = useState(rememberedName);
  const [title, setTitle] = useState('');
  const [requireApproval, setRequireApproval] = useState(false);
  const [prepare, setPrepare] = useState(false);
  const [nameError, setNameError] = useState<string | null>(null);
  const [titleError, setTitleError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const teacherName = DisplayName.safeParse(name);
    const trimmedTitle = title.trim();
    const lessonTitle = trimmedTitle ? RoomTitle.safeParse(trimmedTitle) : null;
    setNameError(teacherName.success ? null : fieldProblem('name', teacherName.error.issues[0]));
    setTitleError(lessonTitle && !lessonTitle.success ? fieldProblem('title', undefined) : null);
    if (!teacherName.success || (lessonTitle && !lessonTitle.success)) return;
    setBusy(true);
    setFormError(null);
    try {
      const grant = await createRoom({
        teacherName: teacherName.data,
        memberKey: memberKey(),
        ...(lessonTitle?.success ? { title: lessonTitle.data } : {}),
        ...(requireApproval ? { requireApproval } : {}),
        ...(prepare ? { prepare } : {}),
      });
      rememberName(teacherName.data);
      saveGrant(grant);
      navigate(roomPath(grant.room.code));
    } catch (err) {
      setFormError(errorMessage(err, 'home.startFailed'));
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-labelledby="start-heading">
      <h2 id="start-heading">{t('home.startHeading')}</h2>
      <p className="card-lede">{t('home.startLede')}</p>
      <form onSubmit={submit} noValidate>
        <Field label={t('field.yourName')} name="teacherName" autoComplete="name" value={name} maxLength={40} required
          onChange={(e) => setName(e.target.value)} error={nameError} />
        <Field label={t('home.titleLabel')} name="title" value={title} maxLength={80} placeholder={t('home.titlePlaceholder')}
          onChange={(e) => setTitle(e.target.value)} error={titleError} />
        <ApprovalCheckbox checked={requireApproval} onChange={setRequireApproval} />
        <PrepareCheckbox checked={prepare} onChange={setPrepare} />
        {formError && <p className="form-error" role="alert">{formError}</p>}
        <button type="submit" className="button button-primary button-wide" disabled={busy}>
          {busy ? t('home.starting') : prepare ? t('library.prepareSubmit') : t('home.start')}
        </button>
      </form>
    </section>
  );
}

function JoinWithCodeCard() {
  const t = useT();
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    // People paste whole links too: take the code from the end of one.
    const fromLink = /\/r\/([A-Za-z0-9]+)\/?$/.exec(code.trim())?.[1] ?? code.replace(/[\s-]/g, '');
    const parsed = RoomCode.safeParse(fromLink);
    if (!parsed.success) {
      setError(t('home.codeInvalid'));
      return;
    }
    navigate(roomPath(parsed.data));
  };

  return (
    <section className="card" aria-labelledby="join-heading">
      <h2 id="join-heading">{t('home.joinHeading')}</h2>
      <p className="card-lede">{t('home.joinLede')}</p>
      <form onSubmit={submit} noValidate>
        <Field label={t('home.codeLabel')} name="code" className="code-input" value={code} autoComplete="off" autoCapitalize="characters"
          spellCheck={false} placeholder={t('home.codePlaceholder')} onChange={(e) => setCode(e.target.value.toUpperCase())} error={error} />
        <button type="submit" className="button button-secondary button-wide">
          {t('join.submit')}
        </button>
      </form>
    </section>
  );
}

/** "Students wait until I let them in": the lobby, chosen when a lesson starts (changeable later on the board). */
export function ApprovalCheckbox({ checked, onChange }: { checked: boolean; onChange: (checked: boolean) => void }) {
  const t = useT();
  return (
    <label className="checkbox-field">
      <input type="checkbox" name="requireApproval" checked={checked} onChange={(e) => onChange(e.currentTarget.checked)} />
      {t('lobby.requireApproval')}
    </label>
  );
}

/** Prepare the lesson now and start it later (issue 39): students wait until the teacher starts it. */
export function PrepareCheckbox({ checked, onChange }: { checked: boolean; onChange: (checked: boolean) => void }) {
  const t = useT();
  return (
    <label className="checkbox-field">
      <input type="checkbox" name="prepare" checked={checked} onChange={(e) => onChange(e.currentTarget.checked)} />
      {t('library.prepare')}
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
