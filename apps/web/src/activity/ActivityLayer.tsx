/**
 * Activities and private boards on screen (docs/boards.md): the student's own board (with the
 * banner saying who can see it), the teacher's class grid of live thumbnails, one board full size
 * (the teacher draws, comments, or selects, moves, resizes and turns elements on it under drag
 * locks), and the boards the teacher shows to the class. What each
 * person may see is the server's decision; this only draws what the boards client holds.
 *
 * A board here is a fixed page of BOARD_W x BOARD_H board units, drawn as SVG; a grid tile draws
 * it on canvases instead (TileBoard.tsx), repainted only where its own board changed.
 */
import type { ActivityStart, Element, ElementShape, InkPoint, SessionGrant } from '@wb/protocol';
import { memo, useEffect, useMemo, useRef, useState, type PointerEvent as ReactPointerEvent } from 'react';
import { useStore } from 'zustand';
import { createStore, type StoreApi } from 'zustand/vanilla';
import { exportPng, exportPngZip } from '../board/exportImage.ts';
import type { RoomClient } from '../connection/roomClient.ts';
import { shapeSvg } from '../elements/elementSvg.ts';
import { penShapeFromSamples, type PenSample } from '../elements/penStroke.ts';
import { topmostAt } from '../elements/geometry.ts';
import { HANDLE_PX, HANDLE_REACH_PX, HANDLE_REACH_TOUCH_PX, RESIZE_HANDLES, frameCorners, handleAt, handlePositions, shapeFrame, shownShape } from '../elements/transform.ts';
import type { BoardDrag } from './boardDrag.ts';
import { BoardInkLayer, svgStrokeLines } from './boardInkLayer.ts';
import type { RosterEntry } from '../sync/roster.ts';
import { POINTER_STALE_MS, orderedElements, type BoardView, type BoardsClient } from './boardsClient.ts';
import { BOARD_H, BOARD_W } from './tilePainter.ts';
import { TileBoard } from './TileBoard.tsx';

export type { BoardView };
import './activity.css';

const STUDENT_INK = '#1e1e1e';
const TEACHER_INK = '#d92c20';

/** The board's elements in drawing order. */
const ordered = orderedElements;

/** Where an element being dragged is now: moved to `x`, `y`, or the whole new `shape`. */
type Preview = { x: number; y: number; shape?: ElementShape };
type Previews = ReadonlyMap<string, Preview>;

/**
 * Where the elements being dragged on a board are now: others' drags (their moves, from the
 * board's `board.pointers`) and ours (the whole new shape), subscribed per board so a drag
 * re-renders that one board only.
 */
function usePreviews(client: RoomClient, boardId: string): Previews | undefined {
  const remote = useStore(client.boards.drags, (s) => s.byBoard.get(boardId));
  const own = useStore(client.boards.drag.store, (s) => (s.preview?.boardId === boardId ? s.preview : null));
  return useMemo(() => {
    if (!own && !remote?.size) return undefined;
    const all = new Map<string, Preview>(remote ?? []);
    if (own) all.set(own.elementId, { x: own.shape.x, y: own.shape.y, shape: own.shape });
    return all;
  }, [remote, own]);
}

/** Our pen on a board: each stroke sent live while drawn, then created with the live stroke's id. */
interface Pen {
  start(sample: PenSample): void;
  point(sample: PenSample): void;
  /** Pointer-up: the stroke's shape, or null when it is too short to keep (cancelled). */
  end(shape: ElementShape | null): void;
}

interface BoardSvgProps {
  view: BoardView;
  label: string;
  /** A pen draws on it (one stroke per pointer press). */
  onDraw?: Pen | undefined;
  /** Others' strokes while drawn, drawn over the board (the boards client's live ink). */
  liveInk?: BoardsClient['ink'] | undefined;
  ink?: string;
  /** Where the pointer is on it, in board units (sent to the board's audience). */
  onPoint?: (x: number, y: number) => void;
  /** A press places something (a written comment) instead of drawing. */
  onPlace?: ((x: number, y: number) => void) | undefined;
  /** Drags in progress drawn where they are (the open board, the student's own, shown ones). */
  previews?: Previews | undefined;
}

/** A board as SVG. */
export const BoardSvg = memo(function BoardSvg({ view, onDraw, ink, label, onPoint, onPlace, liveInk, previews }: BoardSvgProps) {
  const svgRef = useRef<SVGSVGElement>(null);
  const [samples, setSamples] = useState<PenSample[] | null>(null);
  const elements = useMemo(() => ordered(view), [view]);
  const toBoard = (e: ReactPointerEvent): PenSample | null => {
    const svg = svgRef.current;
    const matrix = svg?.getScreenCTM();
    if (!svg || !matrix) return null;
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(matrix.inverse());
    return { x: p.x, y: p.y, pressure: e.pressure > 0 && e.pointerType === 'pen' ? e.pressure : 0.5 };
  };
  const handlers = (onDraw || onPoint) && {
    onPointerDown: (e: ReactPointerEvent<SVGSVGElement>) => {
      const s = toBoard(e);
      if (s && onPlace) return onPlace(s.x, s.y);
      if (!s || !onDraw) return;
      e.currentTarget.setPointerCapture(e.pointerId);
      setSamples([s]);
      onDraw.start(s);
    },
    onPointerMove: (e: ReactPointerEvent<SVGSVGElement>) => {
      const s = toBoard(e);
      if (!s) return;
      onPoint?.(s.x, s.y);
      if (onDraw && samples) {
        setSamples((prev) => (prev ? [...prev, s] : prev));
        onDraw.point(s);
      }
    },
    onPointerUp: () => {
      if (onDraw && samples) onDraw.end(samples.length > 1 ? penShapeFromSamples(samples, ink ?? STUDENT_INK, 4) : null);
      setSamples(null);
    },
  };
  return (
    <svg ref={svgRef} className={onDraw ? 'activity-board activity-board-drawable' : 'activity-board'} viewBox={`0 0 ${BOARD_W} ${BOARD_H}`}
      role="img" aria-label={label} data-board-id={view.info.id} data-owner={view.info.ownerName} data-elements={view.elements.size} {...handlers}>
      <rect x={0} y={0} width={BOARD_W} height={BOARD_H} fill="#ffffff" />
      <g>
        {elements.map((e) => (
          <ElementMarkup key={e.id} element={e} preview={previews?.get(e.id)} />
        ))}
      </g>
      {liveInk && <LiveStrokes ink={liveInk} boardId={view.info.id} />}
      {samples && samples.length > 1 && (
        <polyline points={samples.map((s) => `${s.x},${s.y}`).join(' ')} fill="none" stroke={ink ?? STUDENT_INK} strokeWidth={4} strokeLinecap="round" strokeLinejoin="round" />
      )}
    </svg>
  );
});

/**
 * One element of a board, drawn again only when it changes (a new version, a drag's preview): a new
 * stroke on a board of hundreds adds one node, it does not parse the board's markup again.
 */
const ElementMarkup = memo(function ElementMarkup({ element, preview }: { element: Element; preview: Preview | undefined }) {
  return <g data-element-id={element.id} data-version={element.version} dangerouslySetInnerHTML={{ __html: shapeSvg(shownShape(element, preview)) }} />;
});

/**
 * Others' strokes on one board while drawn, kept by a BoardInkLayer subscribed to the ink store:
 * React renders this group once; a growing stroke only appends its new points to its line.
 */
function LiveStrokes({ ink, boardId }: { ink: BoardsClient['ink']; boardId: string }) {
  const ref = useRef<SVGGElement>(null);
  useEffect(() => {
    const parent = ref.current;
    if (!parent) return;
    const layer = new BoardInkLayer(svgStrokeLines(parent));
    layer.draw(ink.getState().byBoard.get(boardId));
    const unsubscribe = ink.subscribe((now, before) => {
      const strokes = now.byBoard.get(boardId);
      if (strokes !== before.byBoard.get(boardId)) layer.draw(strokes);
    });
    return () => {
      unsubscribe();
      layer.clear();
    };
  }, [ink, boardId]);
  return <g ref={ref} />;
}

/** The others' pointers on a board, over it (the teacher's on a student's board, the student's for the teacher). */
function PointerLayer({ client, boardId, nameOf }: { client: RoomClient; boardId: string; nameOf: (userId: string) => string }) {
  const pointers = useStore(client.boards.pointers, (s) => s.byBoard.get(boardId));
  const now = useNow();
  const live = [...(pointers ?? new Map()).entries()].filter(([, p]) => now - p.at <= POINTER_STALE_MS);
  return (
    <svg className="activity-pointers" viewBox={`0 0 ${BOARD_W} ${BOARD_H}`} aria-hidden="true" data-testid="board-pointers">
      {live.map(([sessionId, p]) => (
        <g key={sessionId} transform={`translate(${p.x} ${p.y})`} data-pointer-of={nameOf(p.userId)}>
          <circle r={9} fill="#3b6fd8" fillOpacity={0.85} stroke="#ffffff" strokeWidth={2} />
          <text x={14} y={6} fontSize={26} fill="#1b2a4a">
            {nameOf(p.userId)}
          </text>
        </g>
      ))}
    </svg>
  );
}

/** A board full size: drawn on (when `onDraw`), with the others' pointers over it and ours sent. */
function LiveBoard(props: {
  client: RoomClient;
  view: BoardView;
  label: string;
  ink?: string;
  /** Draws with a pen: the stroke, created with its live ink's id. */
  onDraw?: ((shape: ElementShape, id: string) => void) | undefined;
  onPlace?: ((x: number, y: number) => void) | undefined;
  /** The select tool: pick, move, resize and turn elements under drag locks (the teacher's). */
  select?: { selected: string | null; onSelect: (id: string | null) => void } | undefined;
  nameOf: (userId: string) => string;
}) {
  const { client, view, nameOf, onDraw, select, ...rest } = props;
  const boardId = view.info.id;
  const previews = usePreviews(client, boardId);
  const color = props.ink ?? STUDENT_INK;
  const onPoint = useMemo(() => (x: number, y: number) => client.boards.sendPointer(boardId, x, y), [client, boardId]);
  const stroke = useRef<string | null>(null);
  const pen = useMemo<Pen | undefined>(() => {
    if (!onDraw) return undefined;
    const point = (s: PenSample): InkPoint => [Math.round(s.x * 10) / 10, Math.round(s.y * 10) / 10, Math.min(1, Math.max(0, s.pressure))];
    return {
      start: (s) => {
        stroke.current = client.boards.beginStroke(boardId, color, 4, point(s));
      },
      point: (s) => client.boards.extendStroke(point(s)),
      end: (shape) => {
        const id = stroke.current;
        stroke.current = null;
        if (!shape || !id) return client.boards.cancelStroke();
        client.boards.endStroke();
        onDraw(shape, id);
      },
    };
  }, [client, boardId, color, onDraw]);
  return (
    <div className="activity-live-board">
      <BoardSvg view={view} onPoint={onPoint} onDraw={select ? undefined : pen} liveInk={client.boards.ink} previews={previews} {...rest} />
      <PointerLayer client={client} boardId={boardId} nameOf={nameOf} />
      {select && <SelectLayer view={view} drag={client.boards.drag} previews={previews} onPoint={onPoint} {...select} />}
    </div>
  );
}

/**
 * The select tool over a board: a press on an element selects it and drags it under its lock; a
 * press on a handle of the selection resizes or turns it; a press elsewhere clears the selection.
 * The lock, the moves and the drop are the drag's (boardDrag.ts); the server decides each.
 */
function SelectLayer({ view, drag, previews, selected, onSelect, onPoint }: {
  view: BoardView;
  drag: BoardDrag;
  previews: Previews | undefined;
  selected: string | null;
  onSelect: (id: string | null) => void;
  onPoint: (x: number, y: number) => void;
}) {
  const svgRef = useRef<SVGSVGElement>(null);
  const dragging = useRef(false);
  // Screen px per board unit: handles keep their size on screen however large the board is shown.
  const [zoom, setZoom] = useState(0.5);
  useEffect(() => {
    const svg = svgRef.current;
    if (!svg) return;
    const measure = () => setZoom(svg.getBoundingClientRect().width / BOARD_W || 0.5);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(svg);
    return () => observer.disconnect();
  }, []);
  const element = selected ? view.elements.get(selected) : undefined;
  const frame = element ? shapeFrame(shownShape(element, previews?.get(element.id))) : null;
  const toBoard = (e: ReactPointerEvent) => {
    const matrix = svgRef.current?.getScreenCTM();
    if (!matrix) return null;
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(matrix.inverse());
    return { x: p.x, y: p.y };
  };
  const handleSize = HANDLE_PX / zoom;
  const positions = frame ? handlePositions(frame, zoom) : null;
  return (
    // Pointer input over the board image (which keeps its label); not a focus stop of its own.
    <svg ref={svgRef} className="activity-select" viewBox={`0 0 ${BOARD_W} ${BOARD_H}`} data-testid="select-layer" aria-hidden="true"
      onPointerDown={(e) => {
        const p = toBoard(e);
        if (!p) return;
        const reach = e.pointerType === 'touch' ? HANDLE_REACH_TOUCH_PX : HANDLE_REACH_PX;
        const handle = element && frame ? handleAt(frame, p, zoom, reach) : null;
        let target: Element | null;
        if (element && handle) {
          drag.begin(view.info.id, element, p, handle === 'rotate' ? { kind: 'rotate' } : { kind: 'resize', handle });
          target = element;
        } else {
          target = topmostAt(ordered(view), p, (e.pointerType === 'touch' ? 12 : 6) / zoom);
          onSelect(target?.id ?? null);
          if (target) drag.begin(view.info.id, target, p);
        }
        if (!target) return;
        dragging.current = true;
        e.currentTarget.setPointerCapture(e.pointerId);
      }}
      onPointerMove={(e) => {
        const p = toBoard(e);
        if (!p) return;
        onPoint(p.x, p.y);
        if (dragging.current) drag.move(p, e.shiftKey);
      }}
      onPointerUp={() => {
        if (dragging.current) drag.end();
        dragging.current = false;
      }}
      onPointerCancel={() => {
        if (dragging.current) drag.cancel();
        dragging.current = false;
      }}>
      {frame && positions && (
        <g data-testid="selection-frame" data-selected={selected ?? undefined} pointerEvents="none">
          <polygon points={frameCorners(frame).map((c) => `${c.x},${c.y}`).join(' ')} fill="none" stroke="#3b6fd8" strokeWidth={1.5 / zoom} />
          <line x1={positions.n.x} y1={positions.n.y} x2={positions.rotate.x} y2={positions.rotate.y} stroke="#3b6fd8" strokeWidth={1.5 / zoom} />
          <circle cx={positions.rotate.x} cy={positions.rotate.y} r={handleSize / 2} fill="#ffffff" stroke="#3b6fd8" strokeWidth={1.5 / zoom} />
          {RESIZE_HANDLES.map((h) => (
            <rect key={h} x={positions[h].x - handleSize / 2} y={positions[h].y - handleSize / 2} width={handleSize} height={handleSize}
              fill="#ffffff" stroke="#3b6fd8" strokeWidth={1.5 / zoom} />
          ))}
        </g>
      )}
    </svg>
  );
}

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

/** The teacher's view state, shared by the side panel's launcher and the overlay. */
interface TeacherUi {
  gridOpen: boolean;
  starting: boolean;
}
const teacherUis = new WeakMap<RoomClient, StoreApi<TeacherUi>>();
function teacherUi(client: RoomClient): StoreApi<TeacherUi> {
  let ui = teacherUis.get(client);
  if (!ui) teacherUis.set(client, (ui = createStore<TeacherUi>(() => ({ gridOpen: true, starting: false }))));
  return ui;
}

/**
 * The teacher's way in, in the side panel (never over the board's own controls): start an
 * activity, or open its class grid again.
 */
export function ActivityLauncher({ client, onShown }: { client: RoomClient; onShown?: () => void }) {
  const activity = useStore(client.boards.store, (s) => s.activity);
  const count = useStore(client.boards.store, (s) => s.boards.size);
  const ui = teacherUi(client);
  const { starting } = useStore(ui);
  const selection = useStore(client.editor.board, (b) => b.selection);
  const current = activity && activity.status !== 'ended' ? activity : null;
  return (
    <section className="activity-launcher" aria-label="Activity">
      {current ? (
        <button type="button" className="button button-secondary" onClick={() => {
          ui.setState({ gridOpen: true });
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
            const refused = await client.boards.start(title, start);
            if (!refused) {
              ui.setState({ starting: false, gridOpen: true });
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
  const activity = useStore(client.boards.store, (s) => s.activity);
  const nameOf = (userId: string) => roster.find((e) => e.userId === userId)?.displayName ?? 'Someone';
  if (grant.role === 'teacher') return <TeacherActivity client={client} roster={roster} nameOf={nameOf} />;
  if (!activity) return null;
  return <StudentActivity client={client} nameOf={nameOf} />;
}

function StudentActivity({ client, nameOf }: { client: RoomClient; nameOf: (userId: string) => string }) {
  const { activity, boards, mine, undoable } = useStore(client.boards.store);
  // One identity per board, so the pen (and the board's SVG) is not rebuilt on every render.
  const drawOwn = useMemo(() => (mine ? (shape: ElementShape, id: string) => void client.boards.draw(mine, shape, id) : undefined), [client, mine]);
  if (!activity) return null;
  const own = mine ? boards.get(mine) : undefined;
  const shown = activity.shown.filter((s) => s.boardId !== mine).map((s) => ({ ...s, view: boards.get(s.boardId) }));
  const working = activity.status !== 'ended' && own;
  if (!working && shown.length === 0) return null;
  const canUndo = activity.status === 'running' && mine !== null && (undoable.get(mine) ?? 0) > 0;
  const undo = () => {
    if (canUndo) void client.boards.undo(mine);
  };
  return (
    // Focusable: it scrolls on a small screen, and a keyboard must be able to scroll it (WCAG 2.1.1).
    <section className="activity-overlay panel" aria-label={activity.title} data-testid="student-activity" tabIndex={0}
      data-layout={working && shown.length > 0 ? 'split' : 'single'}
      onKeyDown={(e) => {
        // Ctrl+Z / Cmd+Z takes back our last stroke, as on the class board.
        if ((e.ctrlKey || e.metaKey) && !e.shiftKey && e.key.toLowerCase() === 'z') {
          e.preventDefault();
          undo();
        }
      }}>
      {shown.length > 0 && (
        <div className="activity-shown" data-testid="shown-boards">
          <h2>Shown by the teacher</h2>
          <div className="activity-shown-row">
            {shown.map((s) => (
              <figure key={s.boardId} className="activity-shown-board">
                {s.view && <BoardSvg view={s.view} label={`${s.label}'s board`} liveInk={client.boards.ink} />}
                <figcaption>{s.label}</figcaption>
              </figure>
            ))}
          </div>
        </div>
      )}
      {working && own && (
        <div className="activity-mine">
          <p className="activity-banner" role="status" data-testid="private-board-banner">
            <strong>{activity.title}.</strong> Your board: only you and the teacher can see it
            {activity.status === 'frozen' ? ' (the teacher froze the boards: look only).' : '.'}
          </p>
          <div className="activity-tools" role="group" aria-label="Your board's tools">
            <button type="button" className="button button-secondary" disabled={!canUndo} onClick={undo}
              aria-keyshortcuts="Control+Z" title="Undo your last stroke (Ctrl+Z)">
              Undo
            </button>
          </div>
          <LiveBoard client={client} nameOf={nameOf} view={own} label="Your board"
            onDraw={activity.status === 'running' ? drawOwn : undefined} />
        </div>
      )}
    </section>
  );
}

type SortBy = 'name' | 'activity';

const toolHint = {
  pen: 'Draw to comment.',
  text: 'Click where your comment goes, then type it.',
  select: 'Press an element to select and move it; drag a handle to resize or turn it.',
} as const;

function TeacherActivity({ client, roster, nameOf }: { client: RoomClient; roster: readonly RosterEntry[]; nameOf: (userId: string) => string }) {
  const { activity, boards } = useStore(client.boards.store);
  const ui = teacherUi(client);
  const gridOpen = useStore(ui, (s) => s.gridOpen);
  const [openBoard, setOpenBoard] = useState<string | null>(null);
  const [sortBy, setSortBy] = useState<SortBy>('name');
  const [tool, setTool] = useState<'pen' | 'text' | 'select'>('pen');
  const [selected, setSelected] = useState<string | null>(null);
  const dragNotice = useStore(client.boards.drag.store, (s) => s.notice);
  const [placed, setPlaced] = useState<{ x: number; y: number } | null>(null);
  const [comment, setComment] = useState('');
  const now = useNow();
  const drawOpened = useMemo(() => (openBoard ? (shape: ElementShape, id: string) => void client.boards.draw(openBoard, shape, id) : undefined), [client, openBoard]);
  const current = activity && activity.status !== 'ended' ? activity : null;
  if (!current || !gridOpen) return null;

  const byUser = new Map(roster.map((e) => [e.userId, e]));
  const shownIds = new Map(current.shown.map((s) => [s.boardId, s.label]));
  const tiles = [...boards.values()].filter((b) => b.info.activityId === current.id);
  tiles.sort((a, b) =>
    sortBy === 'name' ? a.info.ownerName.localeCompare(b.info.ownerName) : (b.lastDrewAt ?? 0) - (a.lastDrewAt ?? 0) || a.info.ownerName.localeCompare(b.info.ownerName),
  );
  const opened = openBoard ? boards.get(openBoard) : undefined;
  const addComment = (boardId: string) => {
    const text = comment.trim();
    if (!placed || !text) return;
    const shape: ElementShape = { kind: 'text', x: placed.x, y: placed.y, w: 480, h: 64, text: text.slice(0, 4_000), stroke: TEACHER_INK, fontSize: 32 };
    void client.boards.draw(boardId, shape);
    setComment('');
    setPlaced(null);
  };
  const labelFor = (view: BoardView) => `Student ${String.fromCharCode(65 + Math.max(0, tiles.findIndex((t) => t.info.id === view.info.id)) % 26)}`;

  return (
    <section className="activity-overlay panel" aria-label={`${current.title}: the class's boards`} data-testid="class-grid-overlay">
      <header className="activity-head">
        <h2>{current.title}</h2>
        <span className="activity-status" data-testid="activity-status">{current.status === 'frozen' ? 'Frozen: look only' : 'Running'}</span>
        {opened ? (
          <>
            <button type="button" className="button button-secondary" onClick={() => {
              client.boards.drag.cancel();
              setSelected(null);
              setOpenBoard(null);
            }}>
              Back to grid
            </button>
            <button type="button" className="button button-secondary" onClick={() => void exportPng(ordered(opened), `${current.title} ${opened.info.ownerName}`)}>
              Download PNG
            </button>
            {shownIds.has(opened.info.id) ? (
              <button type="button" className="button button-secondary" onClick={() => void client.boards.show(opened.info.id, null)}>
                Hide from class
              </button>
            ) : (
              <>
                <button type="button" className="button button-primary" onClick={() => void client.boards.show(opened.info.id, opened.info.ownerName)}>
                  Show to class
                </button>
                <button type="button" className="button button-secondary" onClick={() => void client.boards.show(opened.info.id, labelFor(opened))}>
                  Show anonymously
                </button>
              </>
            )}
          </>
        ) : (
          <>
            <label className="activity-sort">
              Sort by{' '}
              <select value={sortBy} onChange={(e) => setSortBy(e.target.value as SortBy)}>
                <option value="name">Name</option>
                <option value="activity">Last drew</option>
              </select>
            </label>
            <button type="button" className="button button-secondary" onClick={() => void client.boards.setStatus(current.status === 'frozen' ? 'running' : 'frozen')}>
              {current.status === 'frozen' ? 'Let them draw' : 'Freeze all'}
            </button>
            <button type="button" className="button button-secondary"
              onClick={() => void exportPngZip(tiles.map((view) => ({ name: view.info.ownerName, elements: ordered(view) })), current.title)}>
              Download all (zip)
            </button>
            <button type="button" className="button button-danger-quiet" onClick={() => void client.boards.setStatus('ended')}>
              End activity
            </button>
            <button type="button" className="button button-secondary" onClick={() => ui.setState({ gridOpen: false })}>
              Class board
            </button>
          </>
        )}
      </header>
      {opened ? (
        <div className="activity-full" data-testid="open-board">
          <p className="activity-banner">
            {opened.info.ownerName}’s board{shownIds.has(opened.info.id) ? `, shown to the class as “${shownIds.get(opened.info.id)}”` : ''}.{' '}
            {toolHint[tool]}
          </p>
          {dragNotice && (
            <p className="activity-notice" role="status" key={dragNotice.serial}>
              {dragNotice.text}
            </p>
          )}
          <div className="activity-tools" role="group" aria-label="Tool">
            <button type="button" className="button button-secondary" aria-pressed={tool === 'pen'} onClick={() => setTool('pen')}>
              Pen
            </button>
            <button type="button" className="button button-secondary" aria-pressed={tool === 'text'} onClick={() => setTool('text')}>
              Text
            </button>
            <button type="button" className="button button-secondary" aria-pressed={tool === 'select'} onClick={() => setTool('select')}>
              Select
            </button>
            {tool === 'text' && placed && (
              <form className="activity-comment"
                onSubmit={(e) => {
                  e.preventDefault();
                  addComment(opened.info.id);
                }}>
                <input aria-label="Comment text" value={comment} maxLength={4_000} autoFocus onChange={(e) => setComment(e.target.value)} />
                <button type="submit" className="button button-primary">
                  Add comment
                </button>
              </form>
            )}
          </div>
          <LiveBoard client={client} nameOf={nameOf} view={opened} label={`${opened.info.ownerName}'s board`} ink={TEACHER_INK}
            onDraw={tool === 'pen' ? drawOpened : undefined}
            onPlace={tool === 'text' ? (x, y) => setPlaced({ x, y }) : undefined}
            select={tool === 'select' ? { selected, onSelect: setSelected } : undefined} />
        </div>
      ) : (
        <ul className="class-grid" data-testid="class-grid">
          {tiles.map((view) => (
            <ClassTile key={view.info.id} view={view} presence={presenceText(byUser.get(view.info.ownerUserId))} shown={shownIds.has(view.info.id)}
              since={view.lastDrewAt === null ? null : Math.max(0, Math.round((now - view.lastDrewAt) / 1000))} liveInk={client.boards.ink}
              onOpen={setOpenBoard} />
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * One tile of the class grid. Memoised on what it shows, so a stroke on one board (a new view of
 * that board only) or the second's tick (a new `since` for the tiles that have one) re-renders
 * those tiles, not the 30-40 of the grid.
 */
const ClassTile = memo(function ClassTile({ view, presence, shown, since, liveInk, onOpen }: {
  view: BoardView;
  presence: string;
  shown: boolean;
  /** Seconds since the owner last drew, or null. */
  since: number | null;
  liveInk: BoardsClient['ink'];
  onOpen: (boardId: string) => void;
}) {
  return (
    <li>
      <button type="button" className="class-tile" data-testid="board-tile" data-owner={view.info.ownerName} onClick={() => onOpen(view.info.id)}>
        <TileBoard view={view} liveInk={liveInk} />
        <span className="class-tile-name">{view.info.ownerName}</span>
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
  const [kind, setKind] = useState<ActivityStart['kind']>(selection.length > 0 ? 'selection' : 'blank');
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
