/**
 * Activities and private student boards (issue 22, docs/boards.md). A private board is a child
 * room of its lesson (`rooms.parent_id`): its own revision and event log (I1), its own elements and
 * locks, its own edit policy. The element operations (elements.ts, locks.ts) work on a board when
 * the actor names the board as its room; `authorizeEdit` lets only the board's owner and the
 * lesson's teacher do so (I11). Reading a board (snapshot, replay) is decided here (I12): its owner,
 * the teacher, and, while it is shown, every active member of the lesson.
 *
 * Every change goes through `editTransaction` and passes its `auth` to `appendRoomEvent`.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { DEFAULT_LESSON_SETTINGS, type Activity, type ActivityStart, type ActivityStatus, type BoardFlag, type BoardInfo, type EditPolicy, type Element, type ElementShape, type LessonBoards, type RoomEvent } from '@wb/protocol';
import { boardFlagOf } from './checks.ts';
import type { Clock } from './clock.ts';
import { authorizeEdit, editTransaction, type Authorized, type EditActor } from './editRights.ts';
import { refusedWhenFull, type ElementCaps } from './elementCap.ts';
import { ELEMENT_COLUMNS, ELEMENT_DATA, shapeOf, toElement, withShape, type ElementRow } from './elementRows.ts';
import { recordVersion } from './elementVersions.ts';
import { settingColumns, settingValues } from './lessonSettingsColumns.ts';
import { FREE_LOCK, releasedEvent } from './lockRelease.ts';
import { appendRoomEvent, eventsAfter, nextRoomRevision, type EventsAfter } from './roomLog.ts';
import { date, int, rows, type Db, type Executor, type Tx } from './sql.ts';

interface ActivityRow {
  id: string;
  room_id: string;
  title: string;
  status: ActivityStatus;
  start_kind: Activity['startKind'];
  template: unknown;
  started_at: unknown;
}

interface BoardRow {
  id: string;
  activity_id: string;
  owner_user_id: string;
  owner_name: string;
  revision: unknown;
  edit_policy: EditPolicy;
  shown_label: string | null;
  /** The owner's flag (migration 0018, checks.ts). */
  flag?: BoardFlag | null;
  flagged_at?: unknown;
  /** Only where the reader is a teacher (`listBoards`); null when the owner has not drawn. */
  last_drew_ms_ago?: unknown;
}

const ACTIVITY_COLUMNS = sql.raw('id, room_id, title, status, start_kind, template, started_at');

/** A board's columns with its owner's name (from the lesson's membership), for `toBoard`. */
const BOARD_COLUMNS = sql`b.id, b.activity_id, b.owner_user_id, m.display_name AS owner_name, b.revision, b.edit_policy, b.shown_label, b.flag, b.flagged_at`;
const BOARD_FROM = sql`FROM rooms b JOIN memberships m ON m.room_id = b.parent_id AND m.user_id = b.owner_user_id`;
const boardSelect = sql`SELECT ${BOARD_COLUMNS} ${BOARD_FROM}`;

/**
 * How long ago (ms, the database's clock: I2) the board's owner last drew on it: their newest
 * element version (created, moved, restyled, restored) since the board was made, so the copy of the
 * starting content (written with the board) and the teacher's comments do not count. Read from the
 * versions the history keeps anyway (`element_versions_room_at` on `(room_id, at)`: a backward
 * index scan that stops at the owner's newest row), so a stroke costs no extra write.
 */
const lastDrewMsAgo = (clock: Clock) =>
  sql`(SELECT floor(extract(epoch FROM (${clock.now()} - max(v.at))) * 1000)::int8
         FROM element_versions v
        WHERE v.room_id = b.id AND v.by = b.owner_user_id AND v.at > b.created_at
          AND v.action IN ('created', 'moved', 'restyled', 'restored'))`;

const toBoard = (r: BoardRow): BoardInfo => ({
  id: r.id,
  activityId: r.activity_id,
  ownerUserId: r.owner_user_id,
  ownerName: r.owner_name,
  revision: int(r.revision),
  editPolicy: r.edit_policy,
  shownLabel: r.shown_label,
  ...boardFlagOf(r),
  // A frozen test clock may stand before the version's time: never negative.
  ...(r.last_drew_ms_ago != null ? { lastDrewMsAgo: Math.max(0, int(r.last_drew_ms_ago)) } : {}),
});

/** The edit policy of every board of an activity in this status (frozen and ended: look only). */
const boardPolicy = (status: ActivityStatus): EditPolicy => (status === 'running' ? 'own' : 'look');

async function toActivity(executor: Executor, row: ActivityRow): Promise<Activity> {
  const shown = await rows<{ id: string; shown_label: string }>(
    executor,
    sql`SELECT id, shown_label FROM rooms WHERE activity_id = ${row.id}::uuid AND shown_label IS NOT NULL ORDER BY title, id`,
  );
  return {
    id: row.id,
    title: row.title,
    status: row.status,
    startKind: row.start_kind,
    startedAt: date(row.started_at).toISOString(),
    shown: shown.map((s) => ({ boardId: s.id, label: s.shown_label })),
  };
}

/** The lesson's activity that is not ended, or the one named. */
async function readActivity(executor: Executor, lessonId: string, activityId?: string): Promise<ActivityRow | null> {
  const [row] = await rows<ActivityRow>(
    executor,
    activityId
      ? sql`SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE room_id = ${lessonId}::uuid AND id = ${activityId}::uuid`
      : sql`SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE room_id = ${lessonId}::uuid AND status <> 'ended'`,
  );
  return row ?? null;
}

/** The activity's change, in the lesson's log (every member sees it; it names only shown boards). */
async function activityEvent(tx: Tx, clock: Clock, lessonId: string, row: ActivityRow, auth: Authorized): Promise<RoomEvent> {
  const roomRevision = await nextRoomRevision(tx, lessonId);
  return appendRoomEvent(tx, clock, lessonId, 'activity.updated', { activityId: row.id, roomRevision }, await toActivity(tx, row), auth);
}

/** Whether the actor's room is a lesson (not a board) whose teacher they are; the lesson row is locked first. */
async function teacherOfLesson(tx: Tx, clock: Clock, actor: EditActor): Promise<Authorized | 'not_a_member' | 'forbidden'> {
  const [lesson] = await rows<{ parent_id: string | null }>(tx, sql`SELECT parent_id FROM rooms WHERE id = ${actor.roomId}::uuid FOR UPDATE`);
  const auth = await authorizeEdit(tx, clock, actor);
  if (!lesson || !auth) return 'not_a_member';
  if (auth.role !== 'teacher' || lesson.parent_id !== null) return 'forbidden';
  return auth;
}

/**
 * Makes `owner`'s board for the activity, with the template's elements (created by the owner, so
 * the `own` policy lets them change their copy), or finds the one there is. Each element appends
 * its `element.created` to the board's own log.
 */
async function ensureBoard(
  tx: Tx,
  clock: Clock,
  lessonId: string,
  activity: ActivityRow,
  owner: { userId: string; displayName: string },
  actor: EditActor,
  auth: Authorized,
  caps: ElementCaps,
): Promise<{ board: BoardInfo; events: RoomEvent[]; created: boolean }> {
  const id = randomUUID();
  const [made] = await rows<{ id: string }>(
    tx,
    // created_at on the store's clock, as its elements' versions: what the owner drew is what came after (lastDrewMsAgo).
    sql`INSERT INTO rooms (id, code, title, status, revision, ${settingColumns()}, require_approval,
                           parent_id, owner_user_id, activity_id, created_at)
        VALUES (${id}::uuid, ${`board-${id}`}, ${owner.displayName}, 'open', 0,
                ${settingValues({ ...DEFAULT_LESSON_SETTINGS, editPolicy: boardPolicy(activity.status) })}, false,
                ${lessonId}::uuid, ${owner.userId}::uuid, ${activity.id}::uuid, ${clock.now()})
        ON CONFLICT (activity_id, owner_user_id) WHERE parent_id IS NOT NULL DO NOTHING
        RETURNING id`,
  );
  const events: RoomEvent[] = [];
  if (made) {
    // The copy lands on the board: its bumps are checked against the board's row (a student's own
    // board: their rights there, read now that the row exists).
    const onBoard = auth.role === 'teacher' ? auth : await authorizeEdit(tx, clock, { ...actor, roomId: id });
    if (!onBoard) throw new Error(`the owner of board ${id} cannot edit it`);
    const template = (typeof activity.template === 'string' ? JSON.parse(activity.template) : activity.template) as Array<{
      id: string;
      shape: ElementShape;
    }>;
    for (const item of template) {
      const [inserted] = await rows<ElementRow>(
        tx,
        sql`INSERT INTO elements (room_id, id, kind, version, created_by, updated_by, created_at, updated_at, z)
            VALUES (${id}::uuid, ${item.id}::uuid, ${item.shape.kind}, 1,
                    ${owner.userId}::uuid, ${owner.userId}::uuid, ${clock.now()}, ${clock.now()},
                    (SELECT revision + 1 FROM rooms WHERE id = ${id}::uuid))
            RETURNING ${ELEMENT_COLUMNS}`,
      );
      if (!inserted) continue;
      const created = withShape(inserted, item.shape);
      const element: Element = toElement(created);
      await recordVersion(tx, clock, created, 'created', owner.userId);
      // Each copy counts against the board's cap: a template larger than it refuses the whole start.
      events.push(await appendRoomEvent(tx, clock, id, 'element.created', { elementId: element.id }, { element }, onBoard, caps.maxPerBoard));
    }
  }
  const [board] = await rows<BoardRow>(
    tx,
    sql`${boardSelect} WHERE b.activity_id = ${activity.id}::uuid AND b.owner_user_id = ${owner.userId}::uuid`,
  );
  if (!board) throw new Error(`no board for ${owner.userId} in activity ${activity.id}`);
  return { board: toBoard(board), events, created: made !== undefined };
}

export type StartActivityResult =
  | { decision: 'applied'; activity: Activity; boards: BoardInfo[]; events: RoomEvent[] }
  | { decision: 'not_a_member' | 'forbidden' | 'activity_running' | 'not_found' | 'board_full' };

/**
 * Teacher: starts an activity: every active student of the lesson gets a board of their own with
 * the starting content (blank, the whole class board, or the chosen elements), copied now and kept
 * as the activity's template for students who join later. One activity at a time per lesson.
 */
export async function startActivity(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { activityId: string; title: string; start: ActivityStart },
  caps: ElementCaps,
): Promise<StartActivityResult> {
  return refusedWhenFull(() => editTransaction(db, async (tx) => {
    const auth = await teacherOfLesson(tx, clock, actor);
    if (typeof auth === 'string') return { decision: auth };
    const existing = await readActivity(tx, actor.roomId);
    if (existing && existing.id !== input.activityId) return { decision: 'activity_running' as const };
    if (existing) {
      // A retry of this very start (the same activityId): its answer again, nothing new.
      const boards = await rows<BoardRow>(tx, sql`${boardSelect} WHERE b.activity_id = ${existing.id}::uuid ORDER BY m.display_name, b.id`);
      return { decision: 'applied' as const, activity: await toActivity(tx, existing), boards: boards.map(toBoard), events: [] };
    }
    const source =
      input.start.kind === 'blank'
        ? []
        : await rows<{ id: string; data: unknown }>(
            tx,
            input.start.kind === 'board'
              ? sql`SELECT id, ${ELEMENT_DATA} AS data FROM elements WHERE room_id = ${actor.roomId}::uuid AND NOT deleted ORDER BY z, id`
              : sql`SELECT id, ${ELEMENT_DATA} AS data FROM elements WHERE room_id = ${actor.roomId}::uuid AND NOT deleted
                      AND id = ANY(${`{${input.start.elementIds.join(',')}}`}::uuid[]) ORDER BY z, id`,
          );
    if (input.start.kind === 'selection' && source.length === 0) return { decision: 'not_found' as const };
    const template = source.map((e) => ({ id: e.id, shape: shapeOf(e.data) }));
    const [activity] = await rows<ActivityRow>(
      tx,
      sql`INSERT INTO activities (id, room_id, title, status, start_kind, template, started_by, started_at)
          VALUES (${input.activityId}::uuid, ${actor.roomId}::uuid, ${input.title}, 'running', ${input.start.kind},
                  ${JSON.stringify(template)}::jsonb, ${actor.userId}::uuid, ${clock.now()})
          RETURNING ${ACTIVITY_COLUMNS}`,
    );
    if (!activity) throw new Error('activity not inserted');
    const students = await rows<{ user_id: string; display_name: string }>(
      tx,
      sql`SELECT user_id, display_name FROM memberships
          WHERE room_id = ${actor.roomId}::uuid AND role = 'student' AND status = 'active' ORDER BY created_at, user_id`,
    );
    const boards: BoardInfo[] = [];
    const events: RoomEvent[] = [await activityEvent(tx, clock, actor.roomId, activity, auth)];
    for (const s of students) {
      const made = await ensureBoard(tx, clock, actor.roomId, activity, { userId: s.user_id, displayName: s.display_name }, actor, auth, caps);
      boards.push(made.board);
      events.push(...made.events);
    }
    return { decision: 'applied' as const, activity: await toActivity(tx, activity), boards, events };
  }));
}

export type MyBoardResult =
  /** `created`: the board was made by this call (a student who joined after the start). */
  | { decision: 'applied'; activity: Activity; board: BoardInfo; events: RoomEvent[]; created: boolean }
  | { decision: 'not_a_member' | 'not_a_student' | 'no_activity' | 'board_full' };

/**
 * Student: their board of the lesson's current activity, made now from the template when they
 * joined after it started (a late joiner gets a board too). Idempotent: one board per student and
 * activity. An ended activity hands out no new boards.
 */
export async function openMyBoard(db: Db, clock: Clock, actor: EditActor, caps: ElementCaps): Promise<MyBoardResult> {
  return refusedWhenFull(() => editTransaction(db, async (tx) => {
    const auth = await authorizeEdit(tx, clock, actor);
    if (!auth) return { decision: 'not_a_member' as const };
    if (auth.role !== 'student') return { decision: 'not_a_student' as const };
    const activity = await readActivity(tx, actor.roomId);
    if (!activity) return { decision: 'no_activity' as const };
    const [me] = await rows<{ display_name: string }>(
      tx,
      sql`SELECT display_name FROM memberships WHERE room_id = ${actor.roomId}::uuid AND user_id = ${actor.userId}::uuid`,
    );
    if (!me) return { decision: 'not_a_member' as const };
    const made = await ensureBoard(tx, clock, actor.roomId, activity, { userId: actor.userId, displayName: me.display_name }, actor, auth, caps);
    return { decision: 'applied' as const, activity: await toActivity(tx, activity), board: made.board, events: made.events, created: made.created };
  }));
}

export type ActivityResult =
  | { decision: 'applied'; activity: Activity; events: RoomEvent[] }
  | { decision: 'already_applied'; activity: Activity }
  | { decision: 'not_a_member' | 'forbidden' | 'no_activity' | 'not_found' };

/**
 * Teacher: freezes the activity (every board look-only), lets it run again, or ends it (boards
 * kept, look-only). A board's policy is its own row's, so the change serialises with a student's
 * edit on it exactly as a lesson-settings change does (I11); the students' drag locks on the boards
 * end with it (`lock.released`, broken, in each board's log).
 */
export async function setActivityStatus(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { activityId: string; status: ActivityStatus },
): Promise<ActivityResult> {
  return editTransaction(db, async (tx) => {
    const auth = await teacherOfLesson(tx, clock, actor);
    if (typeof auth === 'string') return { decision: auth };
    const current = await readActivity(tx, actor.roomId, input.activityId);
    if (!current) return { decision: 'no_activity' as const };
    if (current.status === input.status) return { decision: 'already_applied' as const, activity: await toActivity(tx, current) };
    // Ending is undone by running it again, only while it is the lesson's latest activity (no
    // other started since: the lesson row's lock, taken above, serialises this with a start). An
    // ended activity is never frozen, and one with a newer activity after it stays ended: its
    // boards are the record of the work.
    const [changed] = await rows<ActivityRow>(
      tx,
      sql`UPDATE activities a SET status = ${input.status}, ended_at = ${input.status === 'ended' ? clock.now() : null}
          WHERE a.id = ${current.id}::uuid AND a.status = ${current.status}
            AND (a.status <> 'ended' OR (${input.status} = 'running' AND NOT EXISTS (
              SELECT 1 FROM activities o WHERE o.room_id = a.room_id AND o.id <> a.id AND (o.status <> 'ended' OR o.started_at >= a.started_at))))
          RETURNING ${ACTIVITY_COLUMNS}`,
    );
    if (!changed) return { decision: 'forbidden' as const };
    const policy = boardPolicy(input.status);
    const boards = await rows<{ id: string; owner_user_id: string }>(
      tx,
      sql`SELECT id, owner_user_id FROM rooms WHERE activity_id = ${current.id}::uuid ORDER BY id FOR UPDATE`,
    );
    const events: RoomEvent[] = [];
    for (const b of boards) {
      await tx.execute(sql`UPDATE rooms SET edit_policy = ${policy} WHERE id = ${b.id}::uuid`);
      if (policy !== 'look') continue;
      const broken = await rows<{ id: string; lock_generation: unknown }>(
        tx,
        sql`UPDATE elements SET ${FREE_LOCK}
            WHERE room_id = ${b.id}::uuid AND lock_session_id IS NOT NULL AND lock_user_id = ${b.owner_user_id}::uuid
            RETURNING id, lock_generation`,
      );
      for (const l of broken) events.push(await releasedEvent(tx, clock, b.id, l.id, int(l.lock_generation), 'broken'));
    }
    events.unshift(await activityEvent(tx, clock, actor.roomId, changed, auth));
    return { decision: 'applied' as const, activity: await toActivity(tx, changed), events };
  });
}

/**
 * Teacher: shows boards to the class under the given labels (the student's name or "Student A"),
 * or hides them (`label: null`). Boards of the lesson only; the lesson hears `activity.updated`.
 */
export async function setBoardsShown(
  db: Db,
  clock: Clock,
  actor: EditActor,
  input: { activityId: string; boards: Array<{ boardId: string; label: string | null }> },
): Promise<ActivityResult> {
  return editTransaction(db, async (tx) => {
    const auth = await teacherOfLesson(tx, clock, actor);
    if (typeof auth === 'string') return { decision: auth };
    const activity = await readActivity(tx, actor.roomId, input.activityId);
    if (!activity) return { decision: 'no_activity' as const };
    let changed = 0;
    for (const b of input.boards) {
      const updated = await rows<{ id: string }>(
        tx,
        sql`UPDATE rooms SET shown_label = ${b.label}
            WHERE id = ${b.boardId}::uuid AND parent_id = ${actor.roomId}::uuid AND activity_id = ${activity.id}::uuid
              AND shown_label IS DISTINCT FROM ${b.label}
            RETURNING id`,
      );
      if (updated.length === 0) {
        const [exists] = await rows<{ id: string }>(
          tx,
          sql`SELECT id FROM rooms WHERE id = ${b.boardId}::uuid AND parent_id = ${actor.roomId}::uuid AND activity_id = ${activity.id}::uuid`,
        );
        if (!exists) return { decision: 'not_found' as const };
      }
      changed += updated.length;
    }
    if (changed === 0) return { decision: 'already_applied' as const, activity: await toActivity(tx, activity) };
    const event = await activityEvent(tx, clock, actor.roomId, activity, auth);
    return { decision: 'applied' as const, activity: await toActivity(tx, activity), events: [event] };
  });
}

/** Who is reading: a session of a member of the lesson. */
export interface Reader {
  lessonId: string;
  sessionId: string;
  userId: string;
}

/**
 * The boards of the lesson this reader may see (I12): the teacher every board (of the activity
 * given, or of all), each with how long ago its owner last drew (`lastDrewMsAgo`, teachers only:
 * the grid's "last drew" after a reload), a student their own and the shown ones. Empty for anyone
 * not an active member with an open session.
 */
export async function listBoards(db: Executor, clock: Clock, reader: Reader, activityId?: string): Promise<BoardInfo[]> {
  const found = await rows<BoardRow>(
    db,
    sql`SELECT ${BOARD_COLUMNS}, CASE WHEN me.role = 'teacher' THEN ${lastDrewMsAgo(clock)} END AS last_drew_ms_ago ${BOARD_FROM}
        JOIN sessions s ON s.room_id = b.parent_id AND s.id = ${reader.sessionId}::uuid AND s.user_id = ${reader.userId}::uuid
          AND s.status = 'open' AND s.expires_at > ${clock.now()}
        JOIN memberships me ON me.room_id = s.room_id AND me.user_id = s.user_id AND me.status = 'active'
        WHERE b.parent_id = ${reader.lessonId}::uuid
          AND (${activityId ?? null}::uuid IS NULL OR b.activity_id = ${activityId ?? null}::uuid)
          AND (me.role = 'teacher' OR b.owner_user_id = s.user_id OR b.shown_label IS NOT NULL)
        ORDER BY m.display_name, b.id`,
  );
  return found.map(toBoard);
}

/** The board, when this reader may see it (owner, teacher, or shown); null otherwise (I12). */
export async function readableBoard(db: Executor, clock: Clock, reader: Reader, boardId: string): Promise<BoardInfo | null> {
  const [row] = await rows<BoardRow>(
    db,
    sql`${boardSelect}
        JOIN sessions s ON s.room_id = b.parent_id AND s.id = ${reader.sessionId}::uuid AND s.user_id = ${reader.userId}::uuid
          AND s.status = 'open' AND s.expires_at > ${clock.now()}
        JOIN memberships me ON me.room_id = s.room_id AND me.user_id = s.user_id AND me.status = 'active'
        WHERE b.id = ${boardId}::uuid AND b.parent_id = ${reader.lessonId}::uuid
          AND (me.role = 'teacher' OR b.owner_user_id = s.user_id OR b.shown_label IS NOT NULL)`,
  );
  return row ? toBoard(row) : null;
}

export interface BoardSnapshot {
  board: BoardInfo;
  revision: number;
  elements: Element[];
}

/**
 * One board as one picture at one revision, for a reader who may see it (one statement, as the
 * room snapshot); `forbidden` for anyone else, who learns nothing of its content.
 */
export async function loadBoardSnapshot(db: Db, clock: Clock, reader: Reader, boardId: string): Promise<BoardSnapshot | 'forbidden'> {
  const [row] = await rows<{ board: unknown; elements: unknown }>(
    db,
    sql`WITH b AS (${boardSelect}
          JOIN sessions s ON s.room_id = b.parent_id AND s.id = ${reader.sessionId}::uuid AND s.user_id = ${reader.userId}::uuid
            AND s.status = 'open' AND s.expires_at > ${clock.now()}
          JOIN memberships me ON me.room_id = s.room_id AND me.user_id = s.user_id AND me.status = 'active'
          WHERE b.id = ${boardId}::uuid AND b.parent_id = ${reader.lessonId}::uuid
            AND (me.role = 'teacher' OR b.owner_user_id = s.user_id OR b.shown_label IS NOT NULL))
        SELECT (SELECT row_to_json(b) FROM b) AS board,
               (SELECT coalesce(json_agg(e ORDER BY e.z, e.id), '[]'::json)
                  FROM (SELECT ${ELEMENT_COLUMNS} FROM elements WHERE room_id = (SELECT id FROM b) AND NOT deleted) e) AS elements`,
  );
  const parsed = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;
  const board = row?.board ? parsed<BoardRow>(row.board) : null;
  if (!row || !board) return 'forbidden';
  const info = toBoard(board);
  return { board: info, revision: info.revision, elements: parsed<ElementRow[]>(row.elements).map(toElement) };
}

/** The board's events after a revision, for a reader who may see it; `forbidden` otherwise. */
export async function boardEventsAfter(
  db: Db,
  clock: Clock,
  reader: Reader,
  boardId: string,
  afterRevision: number,
  limit: number,
): Promise<EventsAfter | 'forbidden'> {
  if (!(await readableBoard(db, clock, reader, boardId))) return 'forbidden';
  return eventsAfter(db, boardId, afterRevision, limit);
}

/** The lesson's current activity (not ended), or null. */
export async function currentActivity(db: Executor, lessonId: string): Promise<Activity | null> {
  const row = await readActivity(db, lessonId);
  return row ? toActivity(db, row) : null;
}

/**
 * Every activity of a lesson, newest first, with each board and its live elements in drawing
 * order: the work kept with the lesson. For its teacher only (the caller decides who asks).
 */
export async function listLessonBoards(db: Executor, lessonId: string): Promise<LessonBoards> {
  const activities = await rows<ActivityRow>(
    db,
    sql`SELECT ${ACTIVITY_COLUMNS} FROM activities WHERE room_id = ${lessonId}::uuid ORDER BY started_at DESC, id`,
  );
  const result: LessonBoards = { activities: [] };
  for (const row of activities) {
    const boards = await rows<BoardRow>(
      db,
      sql`${boardSelect}
          WHERE b.activity_id = ${row.id}::uuid ORDER BY m.display_name, b.id`,
    );
    const withElements = [];
    for (const board of boards) {
      const elements = await rows<ElementRow>(
        db,
        sql`SELECT ${ELEMENT_COLUMNS} FROM elements WHERE room_id = ${board.id}::uuid AND NOT deleted ORDER BY z, id`,
      );
      withElements.push({ board: toBoard(board), elements: elements.map(toElement) });
    }
    result.activities.push({ activity: await toActivity(db, row), boards: withElements });
  }
  return result;
}
