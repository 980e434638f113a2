import '../pages/HomePage.css';
import { DisplayName, Email, Password, RoomTitle, type SignInOptions, type TeacherAccount, type TeacherRoom } from '@wb/protocol';
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { ApiError, createRoom } from '../api/roomsApi.ts';
import { ErrorCode } from '@wb/protocol';
import { archiveMyRoom, currentTeacher, enterMyRoom, listMyRooms, renameMyRoom, signIn, signInOptions, signOutTeacher, signUp } from '../api/teacherAccountApi.ts';
import type { ReportSource } from '../api/teacherApi.ts';
import { Field } from '../pages/Field.tsx';
import { ApprovalCheckbox, Logo, PrepareCheckbox } from '../pages/HomePage.tsx';
import { AttendanceReport } from '../people/AttendanceReport.tsx';
import { LessonBoardsDialog } from '../activity/LessonBoardsDialog.tsx';
import { roomPath, navigate } from '../routing.ts';
import { saveGrant } from '../session/grantStorage.ts';
import { memberKey } from '../session/memberKey.ts';
import { AdminPanel } from './AdminPanel.tsx';
import { DeleteLessonDialog } from './DeleteLessonDialog.tsx';
import { LessonThumb } from './LessonThumb.tsx';
import { ShareLessonPanel } from '../share/ShareLessonPanel.tsx';
import { PasswordResetCard, resetTokenFromAddress } from './PasswordResetCard.tsx';
import { SchoolSignInCard, takeSignInError } from './SchoolSignIn.tsx';
import '../people/teacher.css';
import './teacherPage.css';
import { formatDateTime } from '../i18n/format.ts';
import { errorMessage, fieldProblem } from '../i18n/errors.ts';
import type { MessageId } from '@lingui/core';
import { Trans } from '@lingui/react';
import { downloadLessonPdf } from '../api/teacherApi.ts';
import { useT } from '../i18n/useT.ts';

type Account = { status: 'loading' } | { status: 'signed_out' } | { status: 'signed_in'; teacher: TeacherAccount } | { status: 'failed'; message: string };

const messageOf = (error: unknown, fallback: MessageId) => errorMessage(error, fallback);

/** `/teacher`: sign in or up, then the teacher's lessons, past and present. */
export function TeacherPage() {
  const [account, setAccount] = useState<Account>({ status: 'loading' });
  const t = useT();

  useEffect(() => {
    document.title = t('app.pageTitle', { page: t('teacher.yourLessons') });
    let cancelled = false;
    currentTeacher().then(
      (teacher) => !cancelled && setAccount(teacher ? { status: 'signed_in', teacher } : { status: 'signed_out' }),
      (error: unknown) => !cancelled && setAccount({ status: 'failed', message: messageOf(error, 'error.unreachable') }),
    );
    return () => {
      cancelled = true;
    };
  }, [t]);

  return (
    <main className="home teacher-page">
      <header className="home-header">
        <a href="/" aria-label={t('lesson.homeLink')}>
          <Logo />
        </a>
        <h1>{t('teacher.yourLessons')}</h1>
        {account.status === 'signed_in' && (
          <p className="lede">
            <Trans id="teacher.signedInAs" values={{ name: account.teacher.displayName, email: account.teacher.email }} components={{ 0: <span className="teacher-name" /> }} />{' '}
            <button type="button" className="link-button" onClick={async () => {
              await signOutTeacher().catch(() => {});
              setAccount({ status: 'signed_out' });
            }}>
              {t('teacher.signOut')}
            </button>
          </p>
        )}
      </header>
      {account.status === 'loading' && <p className="muted">{t('common.loading')}</p>}
      {account.status === 'failed' && <p className="form-error" role="alert">{account.message}</p>}
      {account.status === 'signed_out' && <SignedOut onSignedIn={(teacher) => setAccount({ status: 'signed_in', teacher })} />}
      {account.status === 'signed_in' && <Dashboard teacher={account.teacher} />}
    </main>
  );
}

function SignedOut({ onSignedIn }: { onSignedIn: (teacher: TeacherAccount) => void }) {
  const [resetToken] = useState(resetTokenFromAddress);
  // An admin's one-time link (`/teacher#reset=<token>`) asks for a new password instead.
  if (resetToken) return <PasswordResetCard token={resetToken} onSignedIn={onSignedIn} />;
  return <SignInCards onSignedIn={onSignedIn} />;
}

function SignInCards({ onSignedIn }: { onSignedIn: (teacher: TeacherAccount) => void }) {
  const [options, setOptions] = useState<SignInOptions | null>(null);
  const [providerError] = useState(takeSignInError);
  useEffect(() => {
    let cancelled = false;
    // Without the options (an old server, a hiccup) the password cards still work.
    signInOptions().then(
      (found) => !cancelled && setOptions(found),
      () => !cancelled && setOptions({ providers: [], signUp: 'open' }),
    );
    return () => {
      cancelled = true;
    };
  }, []);
  const providers = options?.providers ?? [];
  return (
    <div className="home-cards">
      {(providers.length > 0 || providerError) && <SchoolSignInCard providers={providers} error={providerError} />}
      <SignInCard onSignedIn={onSignedIn} />
      {options && options.signUp !== 'closed' && <SignUpCard onSignedIn={onSignedIn} domainsOnly={options.signUp === 'domains'} />}
    </div>
  );
}

function SignInCard({ onSignedIn }: { onSignedIn: (teacher: TeacherAccount) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const t = useT();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await signIn({ email, password }));
    } catch (failure) {
      setError(failure instanceof ApiError && failure.code === ErrorCode.NOT_AUTHENTICATED ? t('teacher.wrongCredentials') : messageOf(failure, 'teacher.signInFailed'));
      setBusy(false);
    }
  };
  return (
    <section className="card" aria-labelledby="sign-in-heading">
      <h2 id="sign-in-heading">{t('teacher.signIn')}</h2>
      <form onSubmit={submit} noValidate>
        <Field label={t('teacher.email')} name="email" type="email" autoComplete="username" dir="ltr" value={email} onChange={(e) => setEmail(e.target.value)} />
        <Field label={t('teacher.password')} name="password" type="password" autoComplete="current-password" value={password}
          onChange={(e) => setPassword(e.target.value)} />
        {error && <p className="form-error" role="alert">{error}</p>}
        <button type="submit" className="button button-primary button-wide" disabled={busy}>
          {busy ? t('teacher.signingIn') : t('teacher.signIn')}
        </button>
      </form>
    </section>
  );
}

function SignUpCard({ onSignedIn, domainsOnly }: { onSignedIn: (teacher: TeacherAccount) => void; domainsOnly: boolean }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<{ name?: string; email?: string; password?: string; form?: string }>({});
  const [busy, setBusy] = useState(false);
  const t = useT();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const checks = { name: DisplayName.safeParse(name), email: Email.safeParse(email), password: Password.safeParse(password) };
    const found = {
      ...(checks.name.success ? {} : { name: fieldProblem('name', checks.name.error.issues[0]) }),
      ...(checks.email.success ? {} : { email: fieldProblem('email', checks.email.error.issues[0]) }),
      ...(checks.password.success ? {} : { password: fieldProblem('password', checks.password.error.issues[0]) }),
    };
    setErrors(found);
    if (!checks.name.success || !checks.email.success || !checks.password.success) return;
    setBusy(true);
    try {
      onSignedIn(await signUp({ displayName: checks.name.data, email: checks.email.data, password: checks.password.data }));
    } catch (failure) {
      setErrors({ form: failure instanceof ApiError && failure.code === ErrorCode.CONFLICT ? t('teacher.emailTaken') : messageOf(failure, 'teacher.signUpFailed') });
      setBusy(false);
    }
  };
  return (
    <section className="card" aria-labelledby="sign-up-heading">
      <h2 id="sign-up-heading">{t('teacher.signUpHeading')}</h2>
      <p className="card-lede">
        {t('teacher.signUpLede')}
        {domainsOnly && ` ${t('teacher.signUpDomainsOnly')}`}
      </p>
      <form onSubmit={submit} noValidate>
        <Field label={t('field.yourName')} name="displayName" autoComplete="name" value={name} maxLength={40} onChange={(e) => setName(e.target.value)}
          error={errors.name ?? null} />
        <Field label={t('teacher.email')} name="email" type="email" autoComplete="email" dir="ltr" value={email} onChange={(e) => setEmail(e.target.value)}
          error={errors.email ?? null} />
        <Field label={t('teacher.password')} name="password" type="password" autoComplete="new-password" hint={t('teacher.passwordHint')}
          value={password} onChange={(e) => setPassword(e.target.value)} error={errors.password ?? null} />
        {errors.form && <p className="form-error" role="alert">{errors.form}</p>}
        <button type="submit" className="button button-secondary button-wide" disabled={busy}>
          {busy ? t('teacher.creating') : t('teacher.createAccount')}
        </button>
      </form>
    </section>
  );
}

type Rooms = { status: 'loading' } | { status: 'loaded'; rooms: TeacherRoom[] } | { status: 'failed'; message: string };

function Dashboard({ teacher }: { teacher: TeacherAccount }) {
  const [rooms, setRooms] = useState<Rooms>({ status: 'loading' });
  const [reportCode, setReportCode] = useState<string | null>(null);
  const [archiving, setArchiving] = useState<TeacherRoom | null>(null);
  const [boardsOf, setBoardsOf] = useState<TeacherRoom | null>(null);
  const t = useT();
  const [deleting, setDeleting] = useState<TeacherRoom | null>(null);

  const reload = useCallback(() => {
    listMyRooms().then(
      (list) => setRooms({ status: 'loaded', rooms: list }),
      (error: unknown) => setRooms({ status: 'failed', message: messageOf(error, 'teacher.loadFailed') }),
    );
  }, []);
  useEffect(reload, [reload]);

  const reportSource = useMemo<ReportSource | null>(() => (reportCode ? { kind: 'account', code: reportCode } : null), [reportCode]);
  const [search, setSearch] = useState('');
  const [againError, setAgainError] = useState<string | null>(null);
  const shown = useMemo(() => {
    if (rooms.status !== 'loaded') return [];
    const wanted = search.trim().toLocaleLowerCase();
    return wanted ? rooms.rooms.filter((r) => r.title.toLocaleLowerCase().includes(wanted)) : rooms.rooms;
  }, [rooms, search]);
  // Teach again: a new lesson, prepared (not started), with the pages of the past one and nothing else.
  const teachAgain = async (room: TeacherRoom) => {
    setAgainError(null);
    try {
      const grant = await createRoom({ teacherName: teacher.displayName, memberKey: memberKey(), title: room.title, teachAgainFrom: room.code });
      saveGrant(grant);
      navigate(roomPath(grant.room.code));
    } catch (failure) {
      setAgainError(messageOf(failure, 'teacher.teachAgainFailed'));
    }
  };

  return (
    <>
      <NewLessonCard teacher={teacher} />
      <section className="card teacher-rooms" aria-labelledby="rooms-heading">
        <h2 id="rooms-heading">{t('teacher.lessons')}</h2>
        {rooms.status === 'loading' && <p className="muted">{t('common.loading')}</p>}
        {rooms.status === 'failed' && <p className="form-error" role="alert">{rooms.message}</p>}
        {rooms.status === 'loaded' && rooms.rooms.length === 0 && <p className="muted">{t('teacher.noLessons')}</p>}
        {rooms.status === 'loaded' && rooms.rooms.length > 0 && (
          <div className="library-search">
            <label htmlFor="library-search">{t('library.search')}</label>
            <input id="library-search" type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
          </div>
        )}
        {againError && <p className="form-error" role="alert">{againError}</p>}
        {rooms.status === 'loaded' && rooms.rooms.length > 0 && shown.length === 0 && <p className="muted">{t('library.noMatch')}</p>}
        {rooms.status === 'loaded' && shown.length > 0 && (
          <table className="attendance-table library-table">
            <thead>
              <tr>
                <th scope="col"><span className="visually-hidden">{t('library.thumbnail')}</span></th>
                <th scope="col">{t('teacher.colLesson')}</th>
                <th scope="col">{t('lesson.code')}</th>
                <th scope="col">{t('teacher.colStarted')}</th>
                <th scope="col">{t('library.pages')}</th>
                <th scope="col">{t('teacher.colStatus')}</th>
                <th scope="col"><span className="visually-hidden">{t('roster.actions')}</span></th>
              </tr>
            </thead>
            <tbody>
              {shown.map((room) => (
                <RoomRow key={room.id} room={room} onChanged={reload} onReport={() => setReportCode(room.code)} onArchive={() => setArchiving(room)}
                  onBoards={() => setBoardsOf(room)} onDelete={() => setDeleting(room)} onTeachAgain={() => void teachAgain(room)} />
              ))}
            </tbody>
          </table>
        )}
      </section>
      {teacher.admin && <AdminPanel selfId={teacher.id} />}
      {reportSource && <AttendanceReport source={reportSource} onClose={() => setReportCode(null)} />}
      {boardsOf && <LessonBoardsDialog code={boardsOf.code} title={boardsOf.title} onClose={() => setBoardsOf(null)} />}
      {deleting && (
        <DeleteLessonDialog room={deleting} onClose={() => setDeleting(null)} onDeleted={() => {
          setDeleting(null);
          reload();
        }} />
      )}
      {archiving && (
        <ArchiveDialog room={archiving} onClose={() => setArchiving(null)} onArchived={() => {
          setArchiving(null);
          reload();
        }} />
      )}
    </>
  );
}

function NewLessonCard({ teacher }: { teacher: TeacherAccount }) {
  const [title, setTitle] = useState('');
  const [requireApproval, setRequireApproval] = useState(false);
  const [prepare, setPrepare] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const t = useT();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const trimmed = title.trim();
    const parsed = trimmed ? RoomTitle.safeParse(trimmed) : null;
    if (parsed && !parsed.success) {
      setError(fieldProblem('title', undefined));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      // The account's cookie goes with the request, so the new room is this account's.
      const grant = await createRoom({
        teacherName: teacher.displayName,
        memberKey: memberKey(),
        ...(parsed?.success ? { title: parsed.data } : {}),
        ...(requireApproval ? { requireApproval } : {}),
        ...(prepare ? { prepare } : {}),
      });
      saveGrant(grant);
      navigate(roomPath(grant.room.code));
    } catch (failure) {
      setError(messageOf(failure, 'home.startFailed'));
      setBusy(false);
    }
  };
  return (
    <section className="card" aria-labelledby="new-lesson-heading">
      <h2 id="new-lesson-heading">{t('home.startHeading')}</h2>
      <form onSubmit={submit} noValidate className="inline-form">
        <Field label={t('home.titleLabel')} name="title" value={title} maxLength={80} placeholder={t('home.titlePlaceholder')}
          onChange={(e) => setTitle(e.target.value)} error={error} />
        <ApprovalCheckbox checked={requireApproval} onChange={setRequireApproval} />
        <PrepareCheckbox checked={prepare} onChange={setPrepare} />
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? t('home.starting') : prepare ? t('library.prepareSubmit') : t('home.start')}
        </button>
      </form>
    </section>
  );
}

function RoomRow({ room, onChanged, onReport, onArchive, onBoards, onDelete, onTeachAgain }: {
  room: TeacherRoom;
  onTeachAgain: () => void;
  onChanged: () => void;
  onReport: () => void;
  onArchive: () => void;
  onBoards: () => void;
  onDelete: () => void;
}) {
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(room.title);
  const [error, setError] = useState<string | null>(null);
  const t = useT();
  // Share and replay of an ended lesson, as her account (the panel refetches when this changes).
  const shareSource = useMemo<ReportSource>(() => ({ kind: 'account', code: room.code }), [room.code]);
  // As this lesson's teacher, from whichever browser: joining by link would make a new student.
  const open = async () => {
    try {
      saveGrant(await enterMyRoom(room.code));
      navigate(roomPath(room.code));
    } catch (failure) {
      setError(messageOf(failure, 'room.openFailed'));
    }
  };
  const rename = async (e: FormEvent) => {
    e.preventDefault();
    const parsed = RoomTitle.safeParse(title);
    if (!parsed.success) {
      setError(t('teacher.titleInvalid'));
      return;
    }
    try {
      await renameMyRoom(room.code, parsed.data);
      setEditing(false);
      setError(null);
      onChanged();
    } catch (failure) {
      setError(messageOf(failure, 'teacher.renameFailed'));
    }
  };
  return (
    <tr data-testid="teacher-room" data-code={room.code}>
      <td className="library-thumb-cell"><LessonThumb code={room.code} label={t('library.thumbnailOf', { title: room.title })} /></td>
      <th scope="row">
        {editing ? (
          <form onSubmit={rename} className="inline-form">
            <input aria-label={t('teacher.newTitle', { title: room.title })} value={title} maxLength={80} onChange={(e) => setTitle(e.target.value)} autoFocus />
            <button type="submit" className="roster-action">{t('action.save')}</button>
            <button type="button" className="roster-action" onClick={() => setEditing(false)}>{t('action.cancel')}</button>
            {error && <span className="form-error" role="alert">{error}</span>}
          </form>
        ) : (
          <>
            <span className="attendance-name">{room.title}</span>
            {error && <span className="form-error" role="alert"> {error}</span>}
          </>
        )}
      </th>
      <td><span className="code-chip code-chip-small">{room.code}</span></td>
      <td>{formatDateTime(room.createdAt, { dateStyle: 'medium', timeStyle: 'short' })}</td>
      <td data-testid="page-count" data-label={t('library.pages')}>{room.pageCount ?? 1}</td>
      <td>{room.status !== 'open' ? t('teacher.statusArchived') : room.startedAt === null ? t('library.notStarted') : t('teacher.statusOpen')}</td>
      <td className="teacher-room-actions">
        {room.status === 'open' && <button type="button" className="roster-action" onClick={open}>{t('teacher.open')}</button>}
        <button type="button" className="roster-action" onClick={onReport}>{t('lesson.attendance')}</button>
        <button type="button" className="roster-action" onClick={onBoards}>{t('teacher.boards')}</button>
        <button type="button" className="roster-action" onClick={onTeachAgain}>{t('library.teachAgain')}</button>
        <button type="button" className="roster-action" onClick={() => void downloadLessonPdf({ kind: 'account', code: room.code }).catch((failure: unknown) => setError(messageOf(failure, 'export.pdfFailed')))}>
          {t('export.lessonPdf')}
        </button>
        {!editing && <button type="button" className="roster-action" onClick={() => setEditing(true)}>{t('teacher.rename')}</button>}
        {room.status === 'open' && <button type="button" className="roster-action" onClick={onArchive}>{t('teacher.archive')}</button>}
        <button type="button" className="roster-action" onClick={onDelete}>{t('teacher.delete')}</button>
        {room.status !== 'open' && <ShareLessonPanel source={shareSource} buttonClass="roster-action" />}
      </td>
    </tr>
  );
}

function ArchiveDialog({ room, onClose, onArchived }: { room: TeacherRoom; onClose: () => void; onArchived: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const t = useT();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  const archive = async () => {
    setBusy(true);
    try {
      await archiveMyRoom(room.code);
      onArchived();
    } catch (failure) {
      setError(messageOf(failure, 'teacher.archiveFailed'));
      setBusy(false);
    }
  };
  return (
    <dialog ref={ref} className="dialog" aria-labelledby="archive-title" onCancel={onClose}>
      <h2 id="archive-title">
        <Trans id="teacher.archiveTitle" values={{ title: room.title }} components={{ 0: <span className="dialog-name" /> }} />
      </h2>
      <p>{t('teacher.archiveText')}</p>
      {error && <p className="form-error" role="alert">{error}</p>}
      <div className="actions">
        <button type="button" className="button button-danger" onClick={archive} disabled={busy}>{busy ? t('teacher.archiving') : t('teacher.archive')}</button>
        <button type="button" className="button button-secondary" onClick={onClose} disabled={busy}>{t('action.cancel')}</button>
      </div>
    </dialog>
  );
}
