/**
 * Activities and private boards on screen (docs/boards.md): only *which* boards a person sees and
 * where. Every board itself is drawn and edited by the same `Board` (every tool, undo and redo,
 * drags under locks, live ink) over its own `BoardEngine`: the student's own board takes the stage
 * while the activity runs, the board the teacher opens from the grid takes it too, and the class
 * board comes back after. Over the stage: the banner saying who can see a board, the teacher's
 * class grid of live thumbnails (TileBoard.tsx, each reading its board's engine), and the boards
 * the teacher shows to the class. What each person may see is the server's decision; this only
 * draws the boards the activity client follows.
 */
import type { ActivityStart, Element, SessionGrant } from '@wb/protocol';
import { memo, useEffect, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { createStore, type StoreApi } from 'zustand/vanilla';
import { exportPng, exportPngZip } from '../board/exportImage.ts';
import type { BoardEngine } from '../connection/boardEngine.ts';
import type { RoomClient } from '../connection/roomClient.ts';
import { shapeSvg } from '../elements/elementSvg.ts';
import { inDrawingOrder, shapeBounds, unionBounds } from '../elements/geometry.ts';
import type { RosterEntry } from '../sync/roster.ts';
import type { ActivityBoard } from './activityClient.ts';
import { BOARD_H, BOARD_W } from './tilePainter.ts';
import { TileBoard } from './TileBoard.tsx';
import { byFlag, FlagBadge, flagFilterMatches, HelpQueue, type FlagFilter } from '../checks/Flags.tsx';
import './activity.css';
import './feedback.css';

/** A board's elements in drawing order, as its engine holds them now. */
const elementsOf = (engine: BoardEngine | undefined): Element[] => inDrawingOrder(engine?.sync.state?.elements.values() ?? []);

/** The board on the stage (the page's one `Board`), and what it is called. */
export interface Stage {
  readonly engine: BoardEngine;
  readonly label: string;
}

/**
 * Which board takes the stage: a student's own board while their activity runs or is frozen; the
 * board a teacher opened from the class grid; else the class board.
 */
export function useStage(client: RoomClient, grant: SessionGrant): Stage {
  // Only what decides the stage: the page (and its Board) re-renders when the stage changes, not
  // on every "last drew" of the activity's boards (30 a second in a drawing class).
  const running = useStore(client.activity.store, (s) => s.activity !== null && s.activity.status !== 'ended');
  const mine = useStore(client.activity.store, (s) => s.mine);
  const opened = useStore(client.activity.store, (s) => (s.gridOpen ? s.opened : null));
  const owner = useStore(client.activity.store, (s) => (s.opened ? s.boards.get(s.opened)?.info.ownerName : undefined));
  const engines = useStore(client.boards, (s) => s.byId);
  const classStage = { engine: client.classBoard, label: 'Whiteboard' };
  if (!running) return classStage;
  if (grant.role === 'student') {
    const own = mine ? engines.get(mine) : undefined;
    return own ? { engine: own, label: 'Your board' } : classStage;
  }
  const engine = opened ? engines.get(opened) : undefined;
  return engine ? { engine, label: `${owner ?? 'A student'}'s board` } : classStage;
}

/**
 * A board as a still SVG picture (the teacher page's kept boards): its elements in drawing order,
 * each drawn once per version.
 */
export const BoardPicture = memo(function BoardPicture({ elements, label, boardId, owner }: { elements: readonly Element[]; label: string; boardId: string; owner: string }) {
  return (
    <svg className="activity-board" viewBox={`0 0 ${BOARD_W} ${BOARD_H}`} role="img" aria-label={label} data-board-id={boardId} data-owner={owner} data-elements={elements.length}>
      <rect x={0} y={0} width={BOARD_W} height={BOARD_H} fill="#ffffff" />
      {inDrawingOrder(elements).map((e) => (
        <ElementMarkup key={e.id} element={e} />
      ))}
    </svg>
  );
});

const ElementMarkup = memo(function ElementMarkup({ element }: { element: Element }) {
  return <g data-element-id={element.id} data-version={element.version} dangerouslySetInnerHTML={{ __html: shapeSvg(element.shape) }} />;
});

/** Seconds since a moment, refreshed every second while shown. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/** "5 s ago", "3 min ago", "2 h ago": short enough for a tile's line. */
const agoText = (seconds: number) =>
  seconds < 60 ? `${seconds} s ago` : seconds < 3_600 ? `${Math.floor(seconds / 60)} min ago` : `${Math.floor(seconds / 3_600)} h ago`;

const presenceText = (entry: RosterEntry | undefined) =>
  entry?.state === 'live' ? 'here' : entry?.state === 'reconnecting' ? 'reconnecting' : 'gone';

/** The teacher's "start an activity" dialog, shared by the side panel's launcher. */
interface TeacherUi {
  starting: boolean;
}
const teacherUis = new WeakMap<RoomClient, StoreApi<TeacherUi>>();
function teacherUi(client: RoomClient): StoreApi<TeacherUi> {
  let ui = teacherUis.get(client);
  if (!ui) teacherUis.set(client, (ui = createStore<TeacherUi>(() => ({ starting: false }))));
  return ui;
}

/**
 * The teacher's way in, in the side panel (never over the board's own controls): start an
 * activity, or open its class grid again.
 */
export function ActivityLauncher({ client, onShown }: { client: RoomClient; onShown?: () => void }) {
  const activity = useStore(client.activity.store, (s) => s.activity);
  const count = useStore(client.activity.store, (s) => s.boards.size);
  const ui = teacherUi(client);
  const { starting } = useStore(ui);
  const selection = useStore(client.editor.board, (b) => b.selection);
  const current = activity && activity.status !== 'ended' ? activity : null;
  return (
    <section className="activity-launcher" aria-label="Activity">
      {current ? (
        <button type="button" className="button button-secondary" onClick={() => {
          client.activity.showGrid(true);
          client.activity.open(null);
          onShown?.();
        }}>
          Class grid ({count})
        </button>
      ) : (
        <button type="button" className="button button-secondary" onClick={() => ui.setState({ starting: true })}>
          Start activity
        </button>
      )}
      {starting && (
        <StartActivityDialog
          selection={[...selection]}
          onStart={async (title, start) => {
            const refused = await client.activity.start(title, start);
            if (!refused) {
              ui.setState({ starting: false });
              onShown?.();
            }
            return refused?.message ?? null;
          }}
          onCancel={() => ui.setState({ starting: false })}
        />
      )}
    </section>
  );
}

export function ActivityLayer({ client, grant, roster }: { client: RoomClient; grant: SessionGrant; roster: readonly RosterEntry[] }) {
  const activity = useStore(client.activity.store, (s) => s.activity);
  if (grant.role === 'teacher') return <TeacherActivity client={client} roster={roster} />;
  if (!activity) return null;
  return <StudentActivity client={client} />;
}

/**
 * A student's activity over the stage: the banner over their own board (the board itself is the
 * stage, with every tool), and the boards the teacher shows to the class.
 */
function StudentActivity({ client }: { client: RoomClient }) {
  const { activity, boards, mine } = useStore(client.activity.store);
  const engines = useStore(client.boards, (s) => s.byId);
  if (!activity) return null;
  const working = activity.status !== 'ended' && mine !== null && engines.has(mine);
  const mineShown = activity.shown.find((s) => s.boardId === mine);
  const shown = activity.shown.filter((s) => s.boardId !== mine);
  return (
    <>
      {working && (
        <p className="activity-banner activity-stage-banner" role="status" data-testid="private-board-banner">
          <strong>{activity.title}.</strong>{' '}
          {mineShown
            ? `Your board: the teacher is showing it to the class as “${mineShown.label}”`
            : 'Your board: only you and the teacher can see it'}
          {activity.status === 'frozen' ? ' (the teacher froze the boards: look only).' : '.'}
        </p>
      )}
      {shown.length > 0 && (
        <section className="activity-shown panel" aria-label="Boards shown by the teacher" data-testid="shown-boards">
          <h2>Shown by the teacher</h2>
          <div className="activity-shown-row">
            {shown.map((s) => {
              const engine = engines.get(s.boardId);
              const board = boards.get(s.boardId);
              return (
                <figure key={s.boardId} className="activity-shown-board">
                  {engine && board && <TileBoard engine={engine} owner={s.label} ownerUserId={board.info.ownerUserId} />}
                  <figcaption>{s.label}</figcaption>
                </figure>
              );
            })}
          </div>
        </section>
      )}
    </>
  );
}

type SortBy = 'name' | 'activity' | 'flag';

/** The teacher's stamps: each a text mark in the teacher's layer of the opened board. */
const STAMPS = [
  { text: '✓', name: 'Tick', colour: '#2f9e44' },
  { text: '★', name: 'Star', colour: '#f08c00' },
  { text: '?', name: 'Question', colour: '#1971c2' },
] as const;
const STAMP_SIZE = 56;

/**
 * Stamps ✓ ★ ? on a student's board: each lands on the top-right corner of the student's work,
 * below the teacher's earlier marks, as an element the teacher made (the student sees it at once and may not move,
 * change or erase it: the server refuses `feedback_locked`). Writing and drawing are the board's
 * own tools, the same teacher's layer.
 */
function FeedbackStamps({ engine, ownerUserId }: { engine: BoardEngine; ownerUserId: string }) {
  const stamp = (text: string, colour: string) => {
    const elements = [...(engine.sync.state?.elements.values() ?? [])];
    const work = unionBounds(elements.filter((e) => e.createdBy === ownerUserId).map((e) => shapeBounds(e.shape)));
    const teacherMarks = elements.filter((e) => e.createdBy !== ownerUserId).length;
    // At the work's top-right corner (where a teacher ticks an answer), later stamps below it.
    const x = (work ? work.x + work.w : 0) - STAMP_SIZE / 2;
    const y = (work ? work.y : 0) - STAMP_SIZE / 2 + teacherMarks * (STAMP_SIZE + 8);
    engine.editor.create({ kind: 'text', x, y, w: STAMP_SIZE, h: STAMP_SIZE + 8, text, stroke: colour, fontSize: STAMP_SIZE, align: 'center' });
  };
  return (
    <span className="feedback-stamps" role="group" aria-label="Stamp">
      {STAMPS.map((s) => (
        <button key={s.name} type="button" className="button button-secondary feedback-stamp" aria-label={`Stamp ${s.name.toLowerCase()}`} title={`Stamp ${s.name.toLowerCase()}`}
          style={{ color: s.colour }} onClick={() => stamp(s.text, s.colour)}>
          {s.text}
        </button>
      ))}
    </span>
  );
}

/** A button that asks once more before it acts: "End activity" → "End for everyone?" [Yes] [Keep going]. */
export function ConfirmButton({ label, question, onConfirm, className = 'button button-danger-quiet' }: { label: string; question: string; onConfirm: () => void; className?: string }) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className={className} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm-step" role="group" aria-label={question}>
      <span className="confirm-question">{question}</span>
      <button type="button" className="button button-primary" onClick={() => { setAsking(false); onConfirm(); }}>
        {label}
      </button>
      <button type="button" className="button button-secondary" onClick={() => setAsking(false)}>
        Keep going
      </button>
    </span>
  );
}

function TeacherActivity({ client, roster }: { client: RoomClient; roster: readonly RosterEntry[] }) {
  const { activity, boards, opened, gridOpen } = useStore(client.activity.store);
  const engines = useStore(client.boards, (s) => s.byId);
  const [sortBy, setSortBy] = useState<SortBy>('name');
  const [flagFilter, setFlagFilter] = useState<FlagFilter>('all');
  const now = useNow();
  const current = activity && activity.status !== 'ended' ? activity : null;
  if (!current || !gridOpen) return null;

  const byUser = new Map(roster.map((e) => [e.userId, e]));
  const shownIds = new Map(current.shown.map((s) => [s.boardId, s.label]));
  const tiles = [...boards.values()].filter((b) => b.info.activityId === current.id);
  tiles.sort((a, b) =>
    sortBy === 'name'
      ? a.info.ownerName.localeCompare(b.info.ownerName)
      : sortBy === 'flag'
        ? byFlag(a, b) || a.info.ownerName.localeCompare(b.info.ownerName)
        : (b.lastDrewAt ?? 0) - (a.lastDrewAt ?? 0) || a.info.ownerName.localeCompare(b.info.ownerName),
  );
  const visible = tiles.filter((b) => flagFilterMatches(flagFilter, b.info.flag));
  const openedBoard = opened ? boards.get(opened) : undefined;
  const labelFor = (board: ActivityBoard) => `Student ${String.fromCharCode(65 + Math.max(0, tiles.findIndex((t) => t.info.id === board.info.id)) % 26)}`;

  if (openedBoard) {
    // The opened board is the stage (the page's Board, every tool); this is its bar.
    const { info } = openedBoard;
    return (
      <section className="activity-stage-bar panel" aria-label={`${info.ownerName}'s board`} data-testid="open-board">
        <p className="activity-banner">
          {info.ownerName}’s board{shownIds.has(info.id) ? `, shown to the class as “${shownIds.get(info.id)}”` : ''}
          {current.status === 'frozen' ? ' (frozen: look only for them)' : ''}.
        </p>
        {/* Beside the board's name (the bar's first line), so the bar keeps its two lines. */}
        {engines.get(info.id) && <FeedbackStamps engine={engines.get(info.id)!} ownerUserId={info.ownerUserId} />}
        <div className="activity-tools" role="group" aria-label="Board">
          <button type="button" className="button button-secondary" onClick={() => client.activity.open(null)}>
            Back to grid
          </button>
          <button type="button" className="button button-secondary" onClick={() => void exportPng(elementsOf(engines.get(info.id)), `${current.title} ${info.ownerName}`)}>
            Download PNG
          </button>
          {shownIds.has(info.id) ? (
            <button type="button" className="button button-secondary" onClick={() => void client.activity.show(info.id, null)}>
              Hide from class
            </button>
          ) : (
            <>
              <button type="button" className="button button-primary" onClick={() => void client.activity.show(info.id, info.ownerName)}>
                Show to class
              </button>
              <button type="button" className="button button-secondary" onClick={() => void client.activity.show(info.id, labelFor(openedBoard))}>
                Show anonymously
              </button>
            </>
          )}
        </div>
      </section>
    );
  }

  return (
    <section className="activity-overlay panel" aria-label={`${current.title}: the class's boards`} data-testid="class-grid-overlay">
      <header className="activity-head">
        <h2>{current.title}</h2>
        <span className="activity-status" data-testid="activity-status">{current.status === 'frozen' ? 'Frozen: look only' : 'Running'}</span>
        <label className="activity-sort">
          Sort by{' '}
          <select value={sortBy} onChange={(e) => setSortBy(e.target.value as SortBy)}>
            <option value="name">Name</option>
            <option value="activity">Last drew</option>
            <option value="flag">Flags</option>
          </select>
        </label>
        <label className="activity-sort">
          Show{' '}
          <select value={flagFilter} onChange={(e) => setFlagFilter(e.target.value as FlagFilter)} data-testid="flag-filter">
            <option value="all">Everyone</option>
            <option value="help">Needs help</option>
            <option value="done">Done</option>
            <option value="none">No flag</option>
          </select>
        </label>
        <button type="button" className="button button-secondary" onClick={() => void client.activity.setStatus(current.status === 'frozen' ? 'running' : 'frozen')}>
          {current.status === 'frozen' ? 'Let them draw' : 'Freeze all'}
        </button>
        <button type="button" className="button button-secondary"
          onClick={() => void exportPngZip(tiles.map((board) => ({ name: board.info.ownerName, elements: elementsOf(engines.get(board.info.id)) })), current.title)}>
          Download all (zip)
        </button>
        <ConfirmButton label="End activity" question="End the activity for everyone? Their boards stay with the lesson, look only."
          onConfirm={() => void client.activity.setStatus('ended')} />
        <button type="button" className="button button-secondary" onClick={() => client.activity.showGrid(false)}>
          Class board
        </button>
      </header>
      <HelpQueue client={client} boards={tiles} onOpen={(id) => client.activity.open(id)} />
      <ul className="class-grid" data-testid="class-grid">
        {visible.map((board) => {
          const engine = engines.get(board.info.id);
          return engine ? (
            <ClassTile key={board.info.id} board={board} engine={engine} presence={presenceText(byUser.get(board.info.ownerUserId))} shown={shownIds.has(board.info.id)}
              since={board.lastDrewAt === null ? null : Math.max(0, Math.round((now - board.lastDrewAt) / 1000))}
              onOpen={(id) => client.activity.open(id)} />
          ) : null;
        })}
      </ul>
    </section>
  );
}

/**
 * One tile of the class grid. Memoised on what it shows, so the second's tick (a new `since` for
 * the tiles that have one) re-renders those tiles, not the 30-40 of the grid; a stroke on a board
 * re-renders that board's TileBoard only (it reads its own engine).
 */
const ClassTile = memo(function ClassTile({ board, engine, presence, shown, since, onOpen }: {
  board: ActivityBoard;
  engine: BoardEngine;
  presence: string;
  shown: boolean;
  /** Seconds since the owner last drew, or null. */
  since: number | null;
  onOpen: (boardId: string) => void;
}) {
  const { info } = board;
  return (
    <li>
      <button type="button" className="class-tile" data-testid="board-tile" data-owner={info.ownerName} onClick={() => onOpen(info.id)}>
        <TileBoard engine={engine} owner={info.ownerName} ownerUserId={info.ownerUserId} />
        <span className="class-tile-name">{info.ownerName}</span>
        <FlagBadge flag={info.flag} />
        {/* Two short lines, so a 110 px tile shows them whole; read as one ("here · last drew 5 s ago"). */}
        <span className="class-tile-meta" data-presence={presence}>
          <span className="class-tile-presence">
            {presence}
            {shown ? ', shown' : ''}
          </span>
          <span className="visually-hidden"> · </span>
          <span className="class-tile-drew">{since === null ? 'not drawn yet' : `last drew ${agoText(since)}`}</span>
        </span>
      </button>
    </li>
  );
});

interface StartActivityDialogProps {
  /** The teacher's selection on the class board, when they open the dialog. */
  selection: readonly string[];
  onStart: (title: string, start: ActivityStart) => Promise<string | null>;
  onCancel: () => void;
}

function StartActivityDialog({ selection, onStart, onCancel }: StartActivityDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const [title, setTitle] = useState('Activity');
  // Blank unless the teacher picks a copy: a selection left on the board is never copied by itself.
  const [kind, setKind] = useState<ActivityStart['kind']>('blank');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  return (
    <dialog ref={ref} className="dialog" aria-labelledby="start-activity-title" onCancel={onCancel}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const start: ActivityStart = kind === 'selection' ? { kind, elementIds: selection.slice(0, 500) } : { kind };
          void onStart(title.trim() || 'Activity', start).then(setError);
        }}>
        <h2 id="start-activity-title">Start an activity</h2>
        <p>Every student gets a board of their own. Only they and you can see it until you show it to the class.</p>
        <label>
          Title <input value={title} maxLength={80} onChange={(e) => setTitle(e.target.value)} />
        </label>
        <fieldset>
          <legend>Each board starts</legend>
          <label>
            <input type="radio" name="start" checked={kind === 'blank'} onChange={() => setKind('blank')} /> Blank
          </label>
          <label>
            <input type="radio" name="start" checked={kind === 'board'} onChange={() => setKind('board')} /> With a copy of the class board
          </label>
          <label>
            <input type="radio" name="start" checked={kind === 'selection'} disabled={selection.length === 0} onChange={() => setKind('selection')} /> With a
            copy of my selection{selection.length > 0 ? ` (${selection.length})` : ' (select elements on the board first)'}
          </label>
        </fieldset>
        {error && <p role="alert">{error}</p>}
        <div className="actions">
          <button type="submit" className="button button-primary">
            Start
          </button>
          <button type="button" className="button button-secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
