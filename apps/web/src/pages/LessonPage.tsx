import './LessonPage.css';
import { colorForUser, memberColor, type ProtocolError, type SessionGrant } from '@wb/protocol';
import { useCallback, useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import { useStore } from 'zustand';
import { PagesStrip } from './PagesStrip.tsx';
import { StartLessonBanner } from './StartLessonBanner.tsx';
import { ActivityLauncher, ActivityLayer, useStage } from '../activity/ActivityLayer.tsx';
import type { BoardEditor } from '../elements/boardEditor.ts';
import { Board } from '../board/Board.tsx';
import { createToolStore } from '../board/toolState.ts';
import { canRejoinAfter, describeConnection } from '../connection/connectionMachine.ts';
import { ConnectionStatus } from '../connection/ConnectionStatus.tsx';
import { OfflineNote } from '../offline/OfflineNote.tsx';
import { RoomClient } from '../connection/roomClient.ts';
import { ImageLibrary } from '../images/imageLibrary.ts';
import { registerImagePictures } from '../images/imageRefs.ts';
import { HandQueue, RaiseHandButton } from '../attention/Hands.tsx';
import { ChecksLauncher } from '../checks/ChecksLauncher.tsx';
import { FlagButtons } from '../checks/Flags.tsx';
import { StudentPoll, TeacherPoll } from '../checks/Poll.tsx';
import { TimerChip } from '../checks/Timer.tsx';
import { InvitePanel } from '../people/InvitePanel.tsx';
import { useJoinAddress } from '../people/joinAddress.ts';
import { LobbyPanel } from '../people/LobbyPanel.tsx';
import { ProjectorCode } from '../people/ProjectorCode.tsx';
import { RosterAuthority } from '../people/RosterAuthority.tsx';
import { hereText } from '../people/rosterView.ts';
import { RosterPanel } from '../people/RosterPanel.tsx';
import { HistoryPanel } from '../history/HistoryPanel.tsx';
import type { RosterEntry } from '../sync/roster.ts';
import { useTeacherControls } from '../people/TeacherControls.tsx';
import { navigate } from '../routing.ts';
import { forgetGrant } from '../session/grantStorage.ts';
import { ThemeToggle } from '../theme/ThemeToggle.tsx';
import { ShareLessonPanel } from '../share/ShareLessonPanel.tsx';
import { PANEL_IS_SHEET, usePanelOpen } from './panelMemory.ts';
import { Logo } from './HomePage.tsx';
import './authority.css';
import { LanguageSelect } from '../i18n/LanguageSelect.tsx';
import { i18n } from '../i18n/i18n.ts';
import { errorMessage } from '../i18n/errors.ts';
import { downloadLessonPdf } from '../api/teacherApi.ts';
import { createPdfImports, type PdfPagesPort } from '../images/imageInput.ts';
import { importedPageTitle, PdfPageMaker } from './pdfPages.ts';
import { PdfImportBar } from '../images/PdfImportBar.tsx';
import { useT } from '../i18n/useT.ts';
import { useTopDockVariables } from '../layout/topDock.ts';

interface LessonPageProps {
  grant: SessionGrant;
  /** The session cannot be resumed (expired, closed): go back to the join form. */
  onRejoin: () => void;
  /** The person left on purpose (signed out): show "You left the lesson". */
  onLeft: () => void;
}

/** The lesson: the board filling the window, with the lesson's controls floating over it. */
export function LessonPage({ grant, onRejoin, onLeft }: LessonPageProps) {
  const [client, setClient] = useState<RoomClient | null>(null);
  const [images, setImages] = useState<ImageLibrary | null>(null);
  const t = useT();

  useEffect(() => {
    // Created in the effect, so StrictMode's mount-unmount-mount leaves exactly one live socket.
    const c = new RoomClient(grant);
    c.start();
    // The lesson's pictures, registered before the board first draws (images/imageRefs.ts).
    const library = new ImageLibrary(grant.room.id, grant.token);
    const unregister = registerImagePictures(library);
    setImages(library);
    setClient(c);
    return () => {
      c.stop();
      unregister();
      library.dispose();
    };
  }, [grant]);

  useEffect(() => {
    document.title = t('app.pageTitle', { page: grant.room.title });
  }, [grant.room.title, t]);

  if (!client || !images) return null;
  return <Lesson client={client} images={images} grant={grant} onRejoin={onRejoin} onLeft={onLeft} />;
}

function Lesson({ client, images, grant, onRejoin, onLeft }: { client: RoomClient; images: ImageLibrary; grant: SessionGrant; onRejoin: () => void; onLeft: () => void }) {
  const connection = useStore(client.view, (v) => v.connection);
  const roster = useStore(client.view, (v) => v.roster);
  const lobby = useStore(client.view, (v) => v.lobby);
  const requireApproval = useStore(client.view, (v) => v.state?.room.requireApproval ?? null);
  const idle = useStore(client.view, (v) => v.idle);
  const title = useStore(client.view, (v) => v.state?.room.title ?? grant.room.title);
  const [leaving, setLeaving] = useState(false);
  const t = useT();
  const [peopleOpen, setPeopleOpen] = usePanelOpen(grant.userId);
  const [menuOpen, setMenuOpen] = useState(false);
  const [showCode, setShowCode] = useState(false);
  const [confirmLeave, setConfirmLeave] = useState(false);
  const [historyOpen, setHistoryOpen] = useState(false);
  const [confirmEnd, setConfirmEnd] = useState(false);
  // On a phone or at 200 % zoom the panel is a sheet over everything: an activity coming up (a
  // student's own board, the teacher's class grid) closes it, or the sheet would hide the activity.
  const closePanelIfSheet = useCallback(() => {
    if (window.matchMedia(PANEL_IS_SHEET).matches) setPeopleOpen(false);
  }, [setPeopleOpen]);
  useEffect(
    () =>
      client.activity.store.subscribe((state, before) => {
        if (state.activity && state.activity.status !== 'ended' && state.activity.id !== before.activity?.id) closePanelIfSheet();
      }),
    [client, closePanelIfSheet],
  );
  const roomStatus = useStore(client.view, (v) => v.state?.room.status ?? 'open');
  const members = useStore(client.view, (v) => v.state?.members);

  // Cursor labels read names through a ref-backed function: a rename never re-renders cursors.
  const rosterRef = useRef(roster);
  rosterRef.current = roster;
  const nameOf = useCallback((userId: string) => rosterRef.current.find((e) => e.userId === userId)?.displayName ?? i18n._('people.someone'), []);
  const colorOf = useCallback((userId: string) => {
    const entry = rosterRef.current.find((e) => e.userId === userId);
    return entry ? memberColor(entry.colorIndex) : colorForUser(userId);
  }, []);
  // The board on the stage: the class board, another page of the lesson, or a private board the activity puts there.
  const stage = useStage(client, grant);
  // One PDF import at a time for the page, whichever board it lands on.
  const [pdfImports] = useState(createPdfImports);
  // The teacher's PDF becomes lesson pages (pdfPages.ts); its messages go to the board on the stage.
  const stageEditor = useRef(stage.engine.editor);
  stageEditor.current = stage.engine.editor;
  const pdfPages = useMemo<PdfPagesPort | undefined>(
    () =>
      grant.role === 'teacher'
        ? {
            start: (fileName) => new PdfPageMaker({ request: client.request, pages: client.pages }, (page) => importedPageTitle((name, n) => i18n._('pages.importedTitle', { name: name || i18n._('pages.importedUnnamed'), page: n }), fileName, page)),
            tell: (text) => stageEditor.current.tell(text),
          }
        : undefined,
    [client, grant.role],
  );
  const stageId = stage.engine === client.classBoard ? null : stage.engine.id;
  // Every lesson page (the class board, the others) has the attention kit and the lesson's
  // controls; a private board (a student's own, one opened from the grid) has neither.
  const onPrivateBoard = stage.engine.isPrivate;
  // One tool in hand across the lesson's pages: the teacher's pen stays a pen when she moves on.
  const [pageTools] = useState(() => createToolStore('select'));
  const onPointer = useCallback((x: number, y: number) => client.sendCursor(x, y, stageId ?? undefined), [client, stageId]);
  // While an activity runs (or is frozen) every student works on their own board, where their
  // pointer is: the class board leaves out the last cursor each sent before it began.
  const activityOn = useStore(client.activity.store, (s) => s.activity !== null && s.activity.status !== 'ended');
  const classCursorOf = useCallback((userId: string) => rosterRef.current.find((e) => e.userId === userId)?.role !== 'student', []);
  const showsCursorOf = activityOn && stageId === null ? classCursorOf : undefined;

  const leave = async () => {
    setLeaving(true);
    try {
      await client.signOut();
    } catch {
      // Unreachable server: leave anyway. The lease lapses within its term, so the others see
      // "connection lost" instead of "signed out", which is the truth as far as they can know.
    }
    onLeft();
  };

  // The badge counts the students here; its name says who is counted ("30 students + teacher here").
  const studentsHere = roster.filter((e) => e.role === 'student' && (e.state === 'live' || e.state === 'reconnecting')).length;
  const whoIsHere = hereText(roster);
  const waitingCount = lobby.filter((e) => e.status === 'pending').length;
  const isTeacher = grant.role === 'teacher';
  const joinAddress = useJoinAddress(isTeacher);
  const penMutedOf = useCallback((userId: string) => members?.get(userId)?.penMuted ?? false, [members]);
  const teacher = useTeacherControls(grant, { mutedOf: penMutedOf, editor: client.editor });
  const rosterControls = teacher.roster && {
    ...teacher.roster,
    authority: (entry: RosterEntry) => <RosterAuthority editor={client.editor} entry={entry} penMuted={penMutedOf(entry.userId)} />,
  };

  const refused = connection.status === 'refused';
  // The board's actions and the pages strip as laid out now, for what stands below them (layout/topDock.ts).
  const lessonRef = useRef<HTMLDivElement>(null);
  useTopDockVariables(lessonRef);
  const topbarRef = useRef<HTMLElement>(null);
  const moreRef = useRef<HTMLButtonElement>(null);
  // An open "More" closes on a click outside the bar, or on Escape (the focus back on "More").
  useEffect(() => {
    if (!menuOpen) return;
    const onPointer = (e: PointerEvent) => {
      if (!topbarRef.current?.contains(e.target as Node)) setMenuOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      setMenuOpen(false);
      moreRef.current?.focus();
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [menuOpen]);
  /** Runs a menu item and closes the menu (on phones the menu covers part of the board). */
  const fromMenu = (action: () => void) => () => {
    setMenuOpen(false);
    action();
  };

  return (
    <div ref={lessonRef} className="lesson" data-panel={peopleOpen && !refused ? 'open' : 'closed'}>
      <header ref={topbarRef} className="topbar panel" data-over-board data-menu={menuOpen ? 'open' : 'closed'} data-role={grant.role}>
        <a href="/" className="topbar-home" aria-label={t('lesson.homeLink')}>
          <Logo size={28} />
        </a>
        <div className="topbar-title">
          <h1 title={title}>{title}</h1>
          <span className="topbar-sub">
            {t('lesson.code')} <span className="code-chip code-chip-small">{grant.room.code}</span>
          </span>
        </div>
        {!refused && <TimerChip client={client} isTeacher={isTeacher} />}
        <ConnectionStatus state={connection} />
        <UnsyncedBadge editor={stage.engine.editor} />
        <button type="button" className="button button-secondary topbar-people" aria-expanded={peopleOpen} aria-controls="side-panel"
          onClick={() => setPeopleOpen(!peopleOpen)} disabled={refused}>
          <span className="topbar-people-label">{t('lesson.people')}</span> <span className="count-badge" data-testid="people-here" aria-label={whoIsHere} title={whoIsHere}>{studentsHere}</span>
          {isTeacher && waitingCount > 0 && (
            <span className="count-badge lobby-badge" data-testid="lobby-badge" aria-label={t('lesson.waitingToJoin', { count: waitingCount })}>
              {t('lesson.waitingShort', { count: waitingCount })}
            </span>
          )}
        </button>
        {/* The projector's code, in the bar where it fits (wide screens); in "More" elsewhere. */}
        {isTeacher && (
          <button type="button" className="button button-secondary topbar-show-code" onClick={() => setShowCode(true)}>
            {t('lesson.showCode')}
          </button>
        )}
        <button ref={moreRef} type="button" className="button button-secondary topbar-more" aria-expanded={menuOpen} aria-controls="topbar-menu"
          onClick={() => setMenuOpen((open) => !open)}>
          {/* On a phone the word gives its room to the lesson title; the dots stand for it. */}
          <span className="topbar-more-label">{t('lesson.more')}</span>
          <svg className="topbar-more-chevron" width="10" height="10" viewBox="0 0 10 10" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round">
            <path d="M2 3.5l3 3 3-3" />
          </svg>
          <svg className="topbar-more-dots" width="18" height="18" viewBox="0 0 16 16" aria-hidden="true" fill="currentColor">
            <circle cx="3" cy="8" r="1.5" /><circle cx="8" cy="8" r="1.5" /><circle cx="13" cy="8" r="1.5" />
          </svg>
        </button>
        <div id="topbar-menu" className="topbar-menu">
          {isTeacher && (
            <button type="button" className="button button-secondary menu-show-code" onClick={fromMenu(() => setShowCode(true))}>
              {t('lesson.showCode')}
            </button>
          )}
          {teacher.openReport && (
            <button type="button" className="button button-secondary" onClick={fromMenu(teacher.openReport)}>
              {t('lesson.attendance')}
            </button>
          )}
          {isTeacher && (
            <button type="button" className="button button-secondary"
              onClick={fromMenu(() => void downloadLessonPdf({ kind: 'room', token: grant.token, code: grant.room.code }).catch((error: unknown) => client.editor.tell(errorMessage(error, 'export.pdfFailed'))))}>
              {t('export.lessonPdf')}
            </button>
          )}
          {isTeacher && (
            <button type="button" className="button button-secondary" aria-expanded={historyOpen} onClick={fromMenu(() => setHistoryOpen((open) => !open))}>
              {t('lesson.history')}
            </button>
          )}
          {isTeacher && roomStatus === 'open' && (
            <button type="button" className="button button-danger-quiet" onClick={fromMenu(() => setConfirmEnd(true))}>
              {t('lesson.end')}
            </button>
          )}
          <ThemeToggle />
          <LanguageSelect />
          <button type="button" className="button button-danger-quiet" onClick={fromMenu(() => setConfirmLeave(true))} disabled={leaving}>
            {leaving ? t('action.leaving') : t('lesson.leave')}
          </button>
        </div>
      </header>

      {/* A refused session has no board left to show: only the dialog saying why (below). */}
      {!refused && (
        <>
          <aside id="side-panel" className="side-panel" data-over-board hidden={!peopleOpen} aria-label={t('lesson.panel')}>
            <div className="side-panel-head">
              <button type="button" className="button button-secondary side-panel-close" onClick={() => setPeopleOpen(false)} aria-controls="side-panel">
                {t('lesson.hidePanel')}
              </button>
            </div>
            {isTeacher && <InvitePanel code={grant.room.code} address={joinAddress} onShowCode={() => setShowCode(true)} />}
            {isTeacher && <ActivityLauncher client={client} onShown={closePanelIfSheet} />}
            {isTeacher && <ChecksLauncher client={client} onStarted={closePanelIfSheet} />}
            {isTeacher && <LobbyPanel token={grant.token} code={grant.room.code} requireApproval={requireApproval} lobby={lobby} />}
            <RosterPanel roster={roster} idle={idle} selfUserId={grant.userId} stale={connection.status !== 'live' && connection.status !== 'syncing'}
              controls={rosterControls} />
          </aside>

          {/* After the controls in the DOM, so Tab reaches the lesson's controls before the board. */}
          <main className="lesson-board" aria-label={t('lesson.board')}>
            {/* One Board for every board: keyed by it, so each board keeps its own view and tools state. */}
            <Board key={stage.engine.id} images={images} pdfImports={pdfImports} pdfPages={pdfPages} isTeacher={isTeacher} cursors={stage.engine.cursors} ink={stage.engine.ink} editor={stage.engine.editor}
              selfSessionId={grant.sessionId} title={title} nameOf={nameOf} colorOf={colorOf} onPointer={onPointer}
              attention={onPrivateBoard ? undefined : client.attention} label={stage.label} boardId={stage.engine.id} privateBoard={onPrivateBoard} showsCursorOf={showsCursorOf}
              tools={onPrivateBoard ? undefined : pageTools} />
            <BoardNotices editor={stage.engine.editor}>
              <PdfImportBar imports={pdfImports} />
              <OfflineNote connection={connection} editor={stage.engine.editor} />
            </BoardNotices>
          </main>
          <ActivityLayer client={client} grant={grant} roster={roster} />
          {!activityOn && <PagesStrip client={client} isTeacher={isTeacher} />}
          {isTeacher && <StartLessonBanner client={client} />}
          {!isTeacher && <TeacherAwayBanner roster={roster} />}
          {isTeacher ? <HandQueue client={client} nameOf={nameOf} /> : <RaiseHandButton client={client} userId={grant.userId} />}
          {isTeacher ? <TeacherPoll client={client} roster={roster} /> : <StudentPoll client={client} />}
          {!isTeacher && <FlagButtons client={client} />}
        </>
      )}
      {historyOpen && <HistoryPanel client={client} teacherId={grant.userId} nameOf={nameOf} onClose={() => setHistoryOpen(false)} />}
      {isTeacher && roomStatus === 'ended' && <LessonEndedBanner client={client} />}
      {confirmEnd && (
        <ConfirmDialog
          title={t('lesson.endConfirmTitle')}
          text={t('lesson.endConfirmText')}
          confirm={t('lesson.end')}
          onConfirm={() => {
            setConfirmEnd(false);
            void client.setLessonEnded(true);
          }}
          onCancel={() => setConfirmEnd(false)}
        />
      )}
      {confirmLeave && (
        <ConfirmLeaveDialog
          onLeave={() => {
            setConfirmLeave(false);
            void leave();
          }}
          onStay={() => setConfirmLeave(false)}
        />
      )}

      {teacher.dialogs}
      {showCode && <ProjectorCode code={grant.room.code} title={title} address={joinAddress} onClose={() => setShowCode(false)} />}

      {refused && (
        <RefusedDialog
          error={connection.error}
          canRejoin={canRejoinAfter(connection.error)}
          onRejoin={onRejoin}
          onHome={() => {
            forgetGrant(grant.room.code);
            navigate('/');
          }}
        />
      )}
    </div>
  );
}

/**
 * "N unsynced": own edits on the board on the stage not yet acknowledged (made offline, or in flight). While the server is
 * behind (an edit in flight over a second, or answered `busy`) it reads "Syncing N…" instead:
 * the edits are kept and sent again, nothing has failed. While there are any that this device has
 * not kept (no IndexedDB, a write pending), closing the tab asks first: they exist only in this tab.
 */
function UnsyncedBadge({ editor }: { editor: BoardEditor }) {
  const t = useT();
  const unsynced = useStore(editor.board, (b) => b.unsynced);
  const syncing = useStore(editor.board, (b) => b.syncing);
  const kept = useStore(editor.board, (b) => b.kept);
  useEffect(() => {
    // Kept on this device (offline/deviceStore.ts), they survive the tab: no need to hold it open.
    if (unsynced === 0 || kept) return;
    const warn = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      // Older browsers show the prompt only when returnValue is set.
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [unsynced, kept]);
  if (unsynced === 0) return null;
  if (syncing) {
    return (
      <span className="unsynced-badge syncing" data-testid="syncing" role="status" title={t('unsynced.syncingTitle')}>
        {t('unsynced.syncing', { count: unsynced })}
      </span>
    );
  }
  return (
    <span className="unsynced-badge" data-testid="unsynced" data-kept={kept ? 'device' : 'tab'} role="status" title={t('unsynced.title')}>
      {t('unsynced.count', { count: unsynced })}
    </span>
  );
}

/**
 * A quiet line for students while the teacher is not in the room (signed out, or their connection
 * lost): the lesson goes on, but nobody is watching the board.
 */
function TeacherAwayBanner({ roster }: { roster: readonly RosterEntry[] }) {
  const teachers = roster.filter((e) => e.role === 'teacher');
  const t = useT();
  const away = teachers.length > 0 && teachers.every((e) => e.state !== 'live' && e.state !== 'reconnecting' && e.departure !== null);
  if (!away) return null;
  return (
    <p className="teacher-away panel" role="status" data-testid="teacher-away">
      {t('lesson.teacherAway')}
    </p>
  );
}

/** "Leave lesson" is never one click: leaving ends this session for everyone's roster. */
function ConfirmLeaveDialog({ onLeave, onStay }: { onLeave: () => void; onStay: () => void }) {
  const t = useT();
  return (
    <ConfirmDialog title={t('lesson.leaveConfirmTitle')} text={t('lesson.leaveConfirmText')} confirm={t('action.leave')}
      cancel={t('lesson.stay')} onConfirm={onLeave} onCancel={onStay} testId="leave-dialog" />
  );
}

interface ConfirmDialogProps {
  title: string;
  text: string;
  confirm: string;
  cancel?: string;
  onConfirm: () => void;
  onCancel: () => void;
  testId?: string;
}

/** A modal yes-or-no for an action that affects the lesson; the safe answer has the focus. */
function ConfirmDialog({ title, text, confirm, cancel, onConfirm, onCancel, testId }: ConfirmDialogProps) {
  const t = useT();
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} onCancel={onCancel} data-testid={testId}>
      <h2 id={titleId}>{title}</h2>
      <p>{text}</p>
      <div className="actions">
        <button type="button" className="button button-danger" onClick={onConfirm}>
          {confirm}
        </button>
        <button type="button" className="button button-secondary" onClick={onCancel} autoFocus>
          {cancel ?? t('action.cancel')}
        </button>
      </div>
    </dialog>
  );
}

/** The teacher's view of an ended lesson: the board stays theirs (and exportable); they may reopen it. */
function LessonEndedBanner({ client }: { client: RoomClient }) {
  const [busy, setBusy] = useState(false);
  const t = useT();
  const source = useMemo(() => ({ kind: 'room' as const, token: client.grant.token, code: client.grant.room.code }), [client]);
  return (
    <div className="lesson-ended-banner panel" role="status" data-testid="lesson-ended">
      <span>{t('lesson.endedBanner')}</span>
      <ShareLessonPanel source={source} />
      <button type="button" className="button button-secondary" disabled={busy}
        onClick={() => {
          setBusy(true);
          void client.setLessonEnded(false).finally(() => setBusy(false));
        }}>
        {t('lesson.reopen')}
      </button>
    </div>
  );
}

/** The read-only notice for students who may only look, and the last refused edit, spoken politely. */
function BoardNotices({ editor, children }: { editor: BoardEditor; children?: ReactNode }) {
  const readOnly = useStore(editor.board, (b) => b.readOnly);
  const penMuted = useStore(editor.board, (b) => b.penMuted);
  const notice = useStore(editor.board, (b) => b.notice);
  const t = useT();
  const [shown, setShown] = useState<{ text: string; serial: number } | null>(null);
  useEffect(() => {
    if (!notice) return;
    setShown(notice);
    const timer = setTimeout(() => setShown((s) => (s?.serial === notice.serial ? null : s)), 5_000);
    return () => clearTimeout(timer);
  }, [notice]);
  return (
    <div className="board-notices" aria-live="polite">
      {children}
      {readOnly && (
        <p className="board-notice board-notice-locked" data-testid="board-locked-notice">
          {penMuted ? t('policy.penMuted') : t('policy.lookOnly')} {t('lesson.lookNotDraw')}
        </p>
      )}
      {shown && (
        <p className="board-notice" data-testid="board-notice">
          {shown.text}
        </p>
      )}
    </div>
  );
}

interface RefusedDialogProps {
  error: ProtocolError;
  canRejoin: boolean;
  onRejoin: () => void;
  onHome: () => void;
}

/** A refusal is final for this session: say why, and offer the ways forward that can work. */
function RefusedDialog(props: RefusedDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    // A modal dialog traps focus and makes the dead board inert.
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  const t = useT();
  // A removal carries the teacher's reason at the end of the server's message (rendered as text).
  const reason = props.error.code === 'membership_revoked' ? / Reason: (.+)$/s.exec(props.error.message)?.[1] : undefined;
  const describe = reason
    ? t('refused.revokedWithReason', { reason })
    : props.error.code === 'membership_revoked'
      ? t('refused.revoked')
      : describeConnection({ status: 'refused', error: props.error }).detail;
  return (
    <dialog ref={ref} className="dialog" aria-labelledby="refused-title" aria-describedby="refused-text" onCancel={(e) => e.preventDefault()}>
      <h2 id="refused-title">{t('refused.title')}</h2>
      <p id="refused-text">{describe}</p>
      <div className="actions">
        {props.canRejoin && (
          <button type="button" className="button button-primary" onClick={props.onRejoin}>
            {t('action.joinAgain')}
          </button>
        )}
        <button type="button" className={props.canRejoin ? 'button button-secondary' : 'button button-primary'} onClick={props.onHome}>
          {t('nav.startPage')}
        </button>
      </div>
    </dialog>
  );
}

