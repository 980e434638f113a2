import { colorForUser, memberColor, type ProtocolError, type SessionGrant } from '@wb/protocol';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { Board } from '../board/Board.tsx';
import { canRejoinAfter, describeConnection } from '../connection/connectionMachine.ts';
import { ConnectionStatus } from '../connection/ConnectionStatus.tsx';
import { RoomClient } from '../connection/roomClient.ts';
import { InvitePanel } from '../people/InvitePanel.tsx';
import { LobbyPanel } from '../people/LobbyPanel.tsx';
import { ProjectorCode } from '../people/ProjectorCode.tsx';
import { RosterPanel } from '../people/RosterPanel.tsx';
import { useTeacherControls } from '../people/TeacherControls.tsx';
import { navigate } from '../routing.ts';
import { forgetGrant } from '../session/grantStorage.ts';
import { ThemeToggle } from '../theme/ThemeToggle.tsx';
import { usePanelOpen } from './panelMemory.ts';
import { Logo } from './HomePage.tsx';

interface LessonPageProps {
  grant: SessionGrant;
  /** The session cannot be resumed (expired, closed): go back to the join form. */
  onRejoin: () => void;
}

/** The lesson: the board filling the window, with the lesson's controls floating over it. */
export function LessonPage({ grant, onRejoin }: LessonPageProps) {
  const [client, setClient] = useState<RoomClient | null>(null);

  useEffect(() => {
    // Created in the effect, so StrictMode's mount-unmount-mount leaves exactly one live socket.
    const c = new RoomClient(grant);
    c.start();
    setClient(c);
    return () => c.stop();
  }, [grant]);

  useEffect(() => {
    document.title = `${grant.room.title} · Classroom whiteboard`;
  }, [grant.room.title]);

  if (!client) return null;
  return <Lesson client={client} grant={grant} onRejoin={onRejoin} />;
}

function Lesson({ client, grant, onRejoin }: { client: RoomClient; grant: SessionGrant; onRejoin: () => void }) {
  const connection = useStore(client.view, (v) => v.connection);
  const roster = useStore(client.view, (v) => v.roster);
  const lobby = useStore(client.view, (v) => v.lobby);
  const requireApproval = useStore(client.view, (v) => v.state?.room.requireApproval ?? null);
  const idle = useStore(client.view, (v) => v.idle);
  const title = useStore(client.view, (v) => v.state?.room.title ?? grant.room.title);
  const [leaving, setLeaving] = useState(false);
  const [peopleOpen, setPeopleOpen] = usePanelOpen(grant.userId);
  const [menuOpen, setMenuOpen] = useState(false);
  const [showCode, setShowCode] = useState(false);

  // Cursor labels read names through a ref-backed function: a rename never re-renders cursors.
  const rosterRef = useRef(roster);
  rosterRef.current = roster;
  const nameOf = useCallback((userId: string) => rosterRef.current.find((e) => e.userId === userId)?.displayName ?? 'Someone', []);
  const colorOf = useCallback((userId: string) => {
    const entry = rosterRef.current.find((e) => e.userId === userId);
    return entry ? memberColor(entry.colorIndex) : colorForUser(userId);
  }, []);
  const onPointer = useCallback((x: number, y: number) => client.sendCursor(x, y), [client]);

  const leave = async () => {
    setLeaving(true);
    try {
      await client.signOut();
    } catch {
      // Unreachable server: leave anyway. The lease lapses within its term, so the others see
      // "connection lost" instead of "signed out", which is the truth as far as they can know.
    }
    forgetGrant(grant.room.code);
    navigate('/');
  };

  const here = roster.filter((e) => e.state === 'live' || e.state === 'reconnecting').length;
  const waitingCount = lobby.filter((e) => e.status === 'pending').length;
  const isTeacher = grant.role === 'teacher';
  const teacher = useTeacherControls(grant);

  const refused = connection.status === 'refused';
  /** Runs a menu item and closes the menu (on phones the menu covers part of the board). */
  const fromMenu = (action: () => void) => () => {
    setMenuOpen(false);
    action();
  };

  return (
    <div className="lesson" data-panel={peopleOpen && !refused ? 'open' : 'closed'}>
      <header className="topbar panel" data-menu={menuOpen ? 'open' : 'closed'}>
        <a href="/" className="topbar-home" aria-label="Classroom whiteboard start page">
          <Logo size={28} />
        </a>
        <div className="topbar-title">
          <h1>{title}</h1>
          <span className="topbar-sub">
            Code <span className="code-chip code-chip-small">{grant.room.code}</span>
          </span>
        </div>
        <ConnectionStatus state={connection} />
        <UnsyncedBadge client={client} />
        <button type="button" className="button button-secondary topbar-people" aria-expanded={peopleOpen} aria-controls="side-panel"
          onClick={() => setPeopleOpen(!peopleOpen)} disabled={refused}>
          <span className="topbar-people-label">People</span> <span className="count-badge" aria-label={`${here} here`}>{here}</span>
          {isTeacher && waitingCount > 0 && (
            <span className="count-badge lobby-badge" data-testid="lobby-badge" aria-label={`${waitingCount} waiting to join`}>
              {waitingCount} waiting
            </span>
          )}
        </button>
        {/* Wide screens show these in the bar; phones (and 200 % zoom) behind "More", so nothing clips. */}
        <button type="button" className="button button-secondary topbar-more" aria-expanded={menuOpen} aria-controls="topbar-menu"
          onClick={() => setMenuOpen((open) => !open)}>
          More
        </button>
        <div id="topbar-menu" className="topbar-menu">
          {isTeacher && (
            <button type="button" className="button button-secondary" onClick={fromMenu(() => setShowCode(true))}>
              Show the code
            </button>
          )}
          {teacher.openReport && (
            <button type="button" className="button button-secondary" onClick={fromMenu(teacher.openReport)}>
              Attendance
            </button>
          )}
          <ThemeToggle />
          <button type="button" className="button button-danger-quiet" onClick={fromMenu(() => void leave())} disabled={leaving}>
            {leaving ? 'Leaving…' : 'Leave lesson'}
          </button>
        </div>
      </header>

      {/* A refused session has no board left to show: only the dialog saying why (below). */}
      {!refused && (
        <>
          <aside id="side-panel" className="side-panel" hidden={!peopleOpen} aria-label="Lesson panel">
            <div className="side-panel-head">
              <button type="button" className="button button-secondary side-panel-close" onClick={() => setPeopleOpen(false)} aria-controls="side-panel">
                Hide panel
              </button>
            </div>
            {isTeacher && <InvitePanel code={grant.room.code} onShowCode={() => setShowCode(true)} />}
            {isTeacher && <LobbyPanel token={grant.token} code={grant.room.code} requireApproval={requireApproval} lobby={lobby} />}
            <RosterPanel roster={roster} idle={idle} selfUserId={grant.userId} stale={connection.status !== 'live' && connection.status !== 'syncing'}
              controls={teacher.roster} />
          </aside>

          {/* After the controls in the DOM, so Tab reaches the lesson's controls before the board. */}
          <main className="lesson-board" aria-label="Board">
            <Board cursors={client.cursors} ink={client.ink} editor={client.editor} selfSessionId={grant.sessionId} title={title} nameOf={nameOf} colorOf={colorOf} onPointer={onPointer} />
            <BoardNotices client={client} />
          </main>
        </>
      )}

      {teacher.dialogs}
      {showCode && <ProjectorCode code={grant.room.code} title={title} onClose={() => setShowCode(false)} />}

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
 * "N unsynced": own edits not yet acknowledged (made offline, or in flight). While there are any,
 * closing the tab asks first: they exist only in this tab.
 */
function UnsyncedBadge({ client }: { client: RoomClient }) {
  const unsynced = useStore(client.editor.board, (b) => b.unsynced);
  useEffect(() => {
    if (unsynced === 0) return;
    const warn = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      // Older browsers show the prompt only when returnValue is set.
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [unsynced]);
  if (unsynced === 0) return null;
  return (
    <span className="unsynced-badge" data-testid="unsynced" role="status" title="Changes not yet saved to the lesson; they are sent when the connection is back">
      {unsynced} unsynced
    </span>
  );
}

/** The read-only notice for students on a locked board, and the last refused edit, spoken politely. */
function BoardNotices({ client }: { client: RoomClient }) {
  const readOnly = useStore(client.editor.board, (b) => b.readOnly);
  const notice = useStore(client.editor.board, (b) => b.notice);
  const [shown, setShown] = useState<{ text: string; serial: number } | null>(null);
  useEffect(() => {
    if (!notice) return;
    setShown(notice);
    const timer = setTimeout(() => setShown((s) => (s?.serial === notice.serial ? null : s)), 5_000);
    return () => clearTimeout(timer);
  }, [notice]);
  return (
    <div className="board-notices" aria-live="polite">
      {readOnly && (
        <p className="board-notice board-notice-locked" data-testid="board-locked-notice">
          The teacher has locked the board. You can look, but not draw.
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
  // A removal carries the teacher's reason in the server's message (rendered as text).
  const describe =
    props.error.code === 'membership_revoked' && props.error.message
      ? props.error.message
      : describeConnection({ status: 'refused', error: props.error }).detail;
  return (
    <dialog ref={ref} className="dialog" aria-labelledby="refused-title" aria-describedby="refused-text" onCancel={(e) => e.preventDefault()}>
      <h2 id="refused-title">You are no longer connected to this lesson</h2>
      <p id="refused-text">{describe}</p>
      <div className="actions">
        {props.canRejoin && (
          <button type="button" className="button button-primary" onClick={props.onRejoin}>
            Join again
          </button>
        )}
        <button type="button" className={props.canRejoin ? 'button button-secondary' : 'button button-primary'} onClick={props.onHome}>
          Start page
        </button>
      </div>
    </dialog>
  );
}

