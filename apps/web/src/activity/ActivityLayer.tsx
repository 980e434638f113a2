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
import { downloadClassPack } from '../api/teacherApi.ts';
import { errorMessage } from '../i18n/errors.ts';
import type { BoardEngine } from '../connection/boardEngine.ts';
import type { RoomClient } from '../connection/roomClient.ts';
import { shapeSvg } from '../elements/elementSvg.ts';
import { inLayerOrder, shapeBounds, unionBounds } from '../elements/geometry.ts';
import type { RosterEntry } from '../sync/roster.ts';
import type { ActivityBoard } from './activityClient.ts';
import { BOARD_H, BOARD_W } from './tilePainter.ts';
import { stampSpot } from './stampSpot.ts';
import { TileBoard } from './TileBoard.tsx';
import { byFlag, FlagBadge, flagFilterMatches, HelpQueue, type FlagFilter } from '../checks/Flags.tsx';
import './activity.css';
import { refusalMessage } from '../i18n/errors.ts';
import { i18n } from '../i18n/i18n.ts';
import { useT } from '../i18n/useT.ts';
import './feedback.css';

/** A board's elements in drawing order, as its engine holds them now. */
/** A student's board in drawing order, the teacher's feedback above the owner's work. */
const elementsOf = (engine: BoardEngine | undefined, ownerUserId: string): Element[] => inLayerOrder(engine?.sync.state?.elements.values() ?? [], ownerUserId);

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
  const t = useT();
  // The page on the stage (pages/pagesClient.ts): the lesson's own page is the class board.
  const viewing = useStore(client.pages.store, (s) => s.viewing);
  const pageNumber = useStore(client.pages.store, (s) => (s.pages && s.viewing ? s.pages.pages.findIndex((p) => p.id === s.viewing) + 1 : 0));
  const pageEngine = viewing && viewing !== client.classBoard.id ? engines.get(viewing) : undefined;
  const classStage = pageEngine
    ? { engine: pageEngine, label: t('stage.page', { number: pageNumber }) }
    : { engine: client.classBoard, label: t('stage.whiteboard') };
  if (!running) return classStage;
  if (grant.role === 'student') {
    const own = mine ? engines.get(mine) : undefined;
    return own ? { engine: own, label: t('stage.yourBoard') } : classStage;
  }
  const engine = opened ? engines.get(opened) : undefined;
  return engine ? { engine, label: owner ? t('stage.studentBoard', { name: owner }) : t('stage.aStudentsBoard') } : classStage;
}

/**
 * A board as a still SVG picture (the teacher page's kept boards): its elements in drawing order,
 * each drawn once per version.
 */
export const BoardPicture = memo(function BoardPicture({ elements, label, boardId, owner, ownerUserId }: {
  elements: readonly Element[];
  label: string;
  boardId: string;
  owner: string;
  /** The board's owner: the teacher's feedback is drawn above their work. */
  ownerUserId: string;
}) {
  return (
    <svg className="activity-board" viewBox={`0 0 ${BOARD_W} ${BOARD_H}`} role="img" aria-label={label} data-board-id={boardId} data-owner={owner} data-elements={elements.length}>
      <rect x={0} y={0} width={BOARD_W} height={BOARD_H} fill="#ffffff" />
      {inLayerOrder(elements, ownerUserId).map((e) => (
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

/** "last drew 5 s ago", "3 min", "2 h": short enough for a tile's line. */
const drewText = (seconds: number) =>
  seconds < 60
    ? i18n._('grid.drewSeconds', { n: seconds })
    : seconds < 3_600
      ? i18n._('grid.drewMinutes', { n: Math.floor(seconds / 60) })
      : i18n._('grid.drewHours', { n: Math.floor(seconds / 3_600) });

type Presence = 'here' | 'reconnecting' | 'gone';
const presenceOf = (entry: RosterEntry | undefined): Presence =>
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
  const t = useT();
  return (
    <section className="activity-launcher" aria-label={t('activity.label')}>
      {current ? (
        <button type="button" className="button button-secondary" onClick={() => {
          client.activity.showGrid(true);
          client.activity.open(null);
          onShown?.();
        }}>
          {t('activity.classGrid', { count })}
        </button>
      ) : (
        <button type="button" className="button button-secondary" onClick={() => ui.setState({ starting: true })}>
          {t('activity.start')}
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
            return refused ? refusalMessage(refused.code) : null;
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
  return <StudentBanner title={activity.title} frozen={activity.status === 'frozen'} working={working} mineShown={mineShown?.label} shown={shown} engines={engines} boards={boards} />;
}

function StudentBanner({ title, frozen, working, mineShown, shown, engines, boards }: {
  title: string;
  frozen: boolean;
  working: boolean;
  /** The label the teacher shows the student's own board under, if she shows it. */
  mineShown: string | undefined;
  shown: ReadonlyArray<{ boardId: string; label: string }>;
  engines: ReadonlyMap<string, BoardEngine>;
  boards: ReadonlyMap<string, ActivityBoard>;
}) {
  const t = useT();
  return (
    <>
      {working && (
        <p className="activity-banner activity-stage-banner" role="status" data-testid="private-board-banner">
          <strong>{title}.</strong>{' '}
          {mineShown
            ? t(frozen ? 'activity.ownBoardShownFrozen' : 'activity.ownBoardShown', { label: mineShown })
            : frozen ? t('activity.ownBoardFrozen') : t('activity.ownBoard')}
        </p>
      )}
      {shown.length > 0 && (
        <section className="activity-shown panel" aria-label={t('activity.shownLabel')} data-testid="shown-boards">
          <h2>{t('activity.shownHeading')}</h2>
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
  { text: '✓', name: 'feedback.stampTick', colour: '#2f9e44' },
  { text: '★', name: 'feedback.stampStar', colour: '#f08c00' },
  { text: '?', name: 'feedback.stampQuestion', colour: '#1971c2' },
] as const;
const STAMP_SIZE = 56;

/**
 * Stamps ✓ ★ ? on a student's board: each lands at the top-right corner of the student's work, in
 * the first place free of the teacher's earlier marks (stampSpot.ts), as an element the teacher
 * made (the student sees it at once and may not move, change or erase it: the server refuses
 * `feedback_locked`), drawn above the work (`inLayerOrder`). Writing and drawing are the board's
 * own tools, the same teacher's layer.
 */
function FeedbackStamps({ engine, ownerUserId }: { engine: BoardEngine; ownerUserId: string }) {
  const t = useT();
  const stamp = (text: string, colour: string) => {
    // The editor's view: stamps given a moment ago and not yet confirmed take their place too.
    const elements = [...engine.editor.board.getState().elements.values()];
    const work = unionBounds(elements.filter((e) => e.createdBy === ownerUserId).map((e) => shapeBounds(e.shape)));
    const marks = elements.filter((e) => e.createdBy !== ownerUserId).map((e) => shapeBounds(e.shape));
    const { x, y } = stampSpot(work, marks, STAMP_SIZE);
    engine.editor.create({ kind: 'text', x, y, w: STAMP_SIZE, h: STAMP_SIZE + 8, text, stroke: colour, fontSize: STAMP_SIZE, align: 'center' });
  };
  return (
    <span className="feedback-stamps" role="group" aria-label={t('feedback.stamp')}>
      {STAMPS.map((s) => (
        <button key={s.name} type="button" className="button button-secondary feedback-stamp" aria-label={t(s.name)} title={t(s.name)}
          style={{ color: s.colour }} onClick={() => stamp(s.text, s.colour)}>
          {s.text}
        </button>
      ))}
    </span>
  );
}

/** A button that asks once more before it acts: "End activity" → "End for everyone?" [Yes] [Keep going]. */
export function ConfirmButton({ label, question, onConfirm, className = 'button button-danger-quiet' }: { label: string; question: string; onConfirm: () => void; className?: string }) {
  const t = useT();
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
        {t('confirm.keepGoing')}
      </button>
    </span>
  );
}

/**
 * After the teacher ends an activity: the undo. "Reopen activity" asks the server to run it again,
 * which it does only while this is the lesson's latest activity; a refusal is said here. The bar
 * goes with "Close" or a new activity.
 */
function ActivityEndedBar({ client, activityId, title }: { client: RoomClient; activityId: string; title: string }) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [closedFor, setClosedFor] = useState<string | null>(null);
  if (closedFor === activityId) return null;
  return (
    <div className="activity-ended-bar panel" role="status" data-testid="activity-ended">
      <span>{refusal ?? t('activity.endedBar', { title })}</span>
      {!refusal && (
        <button type="button" className="button button-primary" disabled={busy}
          onClick={() => {
            setBusy(true);
            void client.activity.setStatus('running').then((error) => {
              setBusy(false);
              if (error) setRefusal(refusalMessage(error.code));
            });
          }}>
          {t('activity.reopen')}
        </button>
      )}
      <button type="button" className="button button-secondary" onClick={() => setClosedFor(activityId)}>
        {t('action.close')}
      </button>
    </div>
  );
}

function TeacherActivity({ client, roster }: { client: RoomClient; roster: readonly RosterEntry[] }) {
  const { activity, boards, opened, gridOpen } = useStore(client.activity.store);
  const t = useT();
  const engines = useStore(client.boards, (s) => s.byId);
  const [sortBy, setSortBy] = useState<SortBy>('name');
  const [flagFilter, setFlagFilter] = useState<FlagFilter>('all');
  const now = useNow();
  const current = activity && activity.status !== 'ended' ? activity : null;
  if (activity?.status === 'ended') return <ActivityEndedBar client={client} activityId={activity.id} title={activity.title} />;
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
  const labelFor = (board: ActivityBoard) => t('activity.anonymous', { letter: String.fromCharCode(65 + Math.max(0, tiles.findIndex((tile) => tile.info.id === board.info.id)) % 26) });

  if (openedBoard) {
    // The opened board is the stage (the page's Board, every tool); this is its bar.
    const { info } = openedBoard;
    return (
      <section className="activity-stage-bar panel" aria-label={t('stage.studentBoard', { name: info.ownerName })} data-testid="open-board">
        <p className="activity-banner">
          {t('activity.openedBoard', {
            name: info.ownerName,
            shown: shownIds.has(info.id) ? 'yes' : 'no',
            label: shownIds.get(info.id) ?? '',
            frozen: current.status === 'frozen' ? 'yes' : 'no',
          })}
        </p>
        {/* Beside the board's name (the bar's first line), so the bar keeps its two lines. */}
        {engines.get(info.id) && <FeedbackStamps engine={engines.get(info.id)!} ownerUserId={info.ownerUserId} />}
        <div className="activity-tools" role="group" aria-label={t('lesson.board')}>
          <button type="button" className="button button-secondary" onClick={() => client.activity.open(null)}>
            {t('activity.backToGrid')}
          </button>
          <button type="button" className="button button-secondary" onClick={() => void exportPng(elementsOf(engines.get(info.id), info.ownerUserId), `${current.title} ${info.ownerName}`)}>
            {t('activity.downloadPng')}
          </button>
          {shownIds.has(info.id) ? (
            <button type="button" className="button button-secondary" onClick={() => void client.activity.show(info.id, null)}>
              {t('activity.hideFromClass')}
            </button>
          ) : (
            <>
              <button type="button" className="button button-primary" onClick={() => void client.activity.show(info.id, info.ownerName)}>
                {t('activity.showToClass')}
              </button>
              <button type="button" className="button button-secondary" onClick={() => void client.activity.show(info.id, labelFor(openedBoard))}>
                {t('activity.showAnonymously')}
              </button>
            </>
          )}
        </div>
      </section>
    );
  }

  return (
    <section className="activity-overlay panel" aria-label={t('activity.gridLabel', { title: current.title })} data-testid="class-grid-overlay">
      <header className="activity-head">
        <h2>{current.title}</h2>
        <span className="activity-status" data-testid="activity-status">{current.status === 'frozen' ? t('activity.frozen') : t('activity.running')}</span>
        <label className="activity-sort">
          {t('activity.sortBy')}{' '}
          <select value={sortBy} onChange={(e) => setSortBy(e.target.value as SortBy)}>
            <option value="name">{t('activity.sortName')}</option>
            <option value="activity">{t('activity.sortLastDrew')}</option>
            <option value="flag">{t('activity.sortFlags')}</option>
          </select>
        </label>
        <label className="activity-sort">
          {t('activity.show')}{' '}
          <select value={flagFilter} onChange={(e) => setFlagFilter(e.target.value as FlagFilter)} data-testid="flag-filter">
            <option value="all">{t('history.everyone')}</option>
            <option value="help">{t('activity.flagHelp')}</option>
            <option value="done">{t('activity.flagDone')}</option>
            <option value="none">{t('activity.flagNone')}</option>
          </select>
        </label>
        <button type="button" className="button button-secondary" onClick={() => void client.activity.setStatus(current.status === 'frozen' ? 'running' : 'frozen')}>
          {current.status === 'frozen' ? t('activity.unfreeze') : t('activity.freeze')}
        </button>
        <button type="button" className="button button-secondary"
          onClick={() => void exportPngZip(tiles.map((board) => ({ name: board.info.ownerName, elements: elementsOf(engines.get(board.info.id), board.info.ownerUserId) })), current.title)}>
          {t('activity.downloadAll')}
        </button>
        <button type="button" className="button button-secondary"
          onClick={() => void downloadClassPack({ kind: 'room', token: client.grant.token, code: client.grant.room.code }, current.id).catch((error: unknown) => client.editor.tell(errorMessage(error, 'export.pdfFailed')))}>
          {t('export.classPack')}
        </button>
        <ConfirmButton label={t('activity.end')} question={t('activity.endQuestion')}
          onConfirm={() => void client.activity.setStatus('ended')} />
        <button type="button" className="button button-secondary" onClick={() => client.activity.showGrid(false)}>
          {t('activity.classBoard')}
        </button>
      </header>
      <HelpQueue client={client} boards={tiles} onOpen={(id) => client.activity.open(id)} />
      <ul className="class-grid" data-testid="class-grid">
        {visible.map((board) => {
          const engine = engines.get(board.info.id);
          return engine ? (
            <ClassTile key={board.info.id} board={board} engine={engine} presence={presenceOf(byUser.get(board.info.ownerUserId))} shown={shownIds.has(board.info.id)}
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
  presence: Presence;
  shown: boolean;
  /** Seconds since the owner last drew, or null. */
  since: number | null;
  onOpen: (boardId: string) => void;
}) {
  const { info } = board;
  const t = useT();
  return (
    <li>
      <button type="button" className="class-tile" data-testid="board-tile" data-owner={info.ownerName} onClick={() => onOpen(info.id)}>
        <TileBoard engine={engine} owner={info.ownerName} ownerUserId={info.ownerUserId} />
        <span className="class-tile-name">{info.ownerName}</span>
        <FlagBadge flag={info.flag} />
        {/* Two short lines, so a 110 px tile shows them whole; read as one ("here · last drew 5 s ago"). */}
        <span className="class-tile-meta" data-presence={presence}>
          <span className="class-tile-presence">
            {t(`grid.presence.${presence}`)}
            {shown ? t('grid.shown') : ''}
          </span>
          <span className="visually-hidden"> · </span>
          <span className="class-tile-drew">{since === null ? t('grid.notDrawn') : drewText(since)}</span>
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
  const t = useT();
  const [title, setTitle] = useState(() => t('activity.defaultTitle'));
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
          void onStart(title.trim() || t('activity.defaultTitle'), start).then(setError);
        }}>
        <h2 id="start-activity-title">{t('activity.dialogTitle')}</h2>
        <p>{t('activity.dialogText')}</p>
        <label>
          {t('activity.titleLabel')} <input value={title} maxLength={80} onChange={(e) => setTitle(e.target.value)} />
        </label>
        <fieldset>
          <legend>{t('activity.startsLegend')}</legend>
          <label>
            <input type="radio" name="start" checked={kind === 'blank'} onChange={() => setKind('blank')} /> {t('activity.startBlank')}
          </label>
          <label>
            <input type="radio" name="start" checked={kind === 'board'} onChange={() => setKind('board')} /> {t('activity.startBoard')}
          </label>
          <label>
            <input type="radio" name="start" checked={kind === 'selection'} disabled={selection.length === 0} onChange={() => setKind('selection')} />{' '}
            {selection.length > 0 ? t('activity.startSelection', { count: selection.length }) : t('activity.startSelectionNone')}
          </label>
        </fieldset>
        {error && <p role="alert">{error}</p>}
        <div className="actions">
          <button type="submit" className="button button-primary">
            {t('activity.startSubmit')}
          </button>
          <button type="button" className="button button-secondary" onClick={onCancel}>
            {t('action.cancel')}
          </button>
        </div>
      </form>
    </dialog>
  );
}
