/**
 * Activities and private student boards (issue 22, docs/boards.md). A private board is a child
 * room of its lesson with its own revision and event log; its events are ordinary `RoomEvent`s
 * whose `roomId` is the board's id. These are the shapes that describe boards and activities.
 */
import { z } from 'zod';
import { DragEntry, Element, ElementId } from './elements.ts';
import { LaserEntry } from './attention.ts';
import { InkEntry } from './ink.ts';
import { BoardFlag } from './checks.ts';
import { EditPolicy } from './lessonSettings.ts';
import { Coordinate, DisplayName, Revision, RoomId, SessionId, UserId, printable } from './primitives.ts';

export const ActivityId = z.uuid();
export const BoardId = RoomId;

export const ActivityTitle = z.string().trim().min(1).max(80).regex(printable);
/** What a board is shown to the class under: the student's name or an anonymised label. */
export const BoardLabel = z.string().trim().min(1).max(40).regex(printable);

/** `running`: students draw; `frozen`: every board is look-only; `ended`: kept, look-only. */
export const ActivityStatus = z.enum(['running', 'frozen', 'ended']);
export type ActivityStatus = z.infer<typeof ActivityStatus>;

/** Each student's starting board: blank, a copy of the whole class board, or of chosen elements. */
export const ActivityStart = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('blank') }),
  z.strictObject({ kind: z.literal('board') }),
  z.strictObject({ kind: z.literal('selection'), elementIds: z.array(ElementId).min(1).max(500) }),
]);
export type ActivityStart = z.infer<typeof ActivityStart>;

export const ShownBoard = z.object({ boardId: BoardId, label: BoardLabel });
export type ShownBoard = z.infer<typeof ShownBoard>;

export const Activity = z.object({
  id: ActivityId,
  title: ActivityTitle,
  status: ActivityStatus,
  startKind: z.enum(['blank', 'board', 'selection']),
  startedAt: z.string(),
  /** Boards the teacher shows to the whole class, in the order chosen. */
  shown: z.array(ShownBoard),
});
export type Activity = z.infer<typeof Activity>;

/** A board as a member may know it (a student only ever learns of their own and of shown ones). */
export const BoardInfo = z.object({
  id: BoardId,
  activityId: ActivityId,
  ownerUserId: UserId,
  ownerName: DisplayName,
  revision: Revision,
  editPolicy: EditPolicy,
  /** Null while private; the label while shown to the class. */
  shownLabel: BoardLabel.nullable(),
  /**
   * Teachers, in `board.list` only: milliseconds between the owner's last change of an element on
   * the board (created, moved, restyled, restored; not the starting copy, not the teacher's) and
   * the server reading it, on the database's clock. Absent when they have not drawn on it. A
   * duration, not a time, so the client's clock never meets the server's (I2).
   */
  lastDrewMsAgo: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  /** The owner's flag (`done`, `help`) and when it went up (the database's clock), or null. */
  flag: BoardFlag.nullable().optional(),
  flaggedAt: z.string().nullable().optional(),
});
export type BoardInfo = z.infer<typeof BoardInfo>;

// ---------------------------------------------------------------------------------------------
// Requests (acknowledged; docs/protocol.md, "Activities and private boards")

/** Teacher: start an activity; `activityId` chosen by the client makes a retry the same request. */
export const ActivityStartRequest = z.strictObject({ activityId: ActivityId, title: ActivityTitle, start: ActivityStart });
export type ActivityStartRequest = z.infer<typeof ActivityStartRequest>;

/** Teacher: freeze the activity (look only), let it run again, or end it (boards kept). */
export const ActivityStatusRequest = z.strictObject({ activityId: ActivityId, status: ActivityStatus });
export type ActivityStatusRequest = z.infer<typeof ActivityStatusRequest>;

/** Teacher: show boards to the class under a label, or hide them (`label: null`). */
export const BoardShowRequest = z.strictObject({
  activityId: ActivityId,
  boards: z.array(z.strictObject({ boardId: BoardId, label: BoardLabel.nullable() })).min(1).max(40),
});
export type BoardShowRequest = z.infer<typeof BoardShowRequest>;

/** The boards the sender may see (teacher: all of the activity or of the lesson; student: own and shown). */
export const BoardListRequest = z.strictObject({ activityId: ActivityId.optional() });
export type BoardListRequest = z.infer<typeof BoardListRequest>;

/** Student: my board of the current activity (made now if I joined after it started). */
export const BoardMineRequest = z.strictObject({});
export type BoardMineRequest = z.infer<typeof BoardMineRequest>;

/** A board's events after `lastRevision`, or its snapshot; subscribes the socket to the board. */
export const BoardSyncRequest = z.strictObject({ boardId: BoardId, lastRevision: Revision.optional() });
export type BoardSyncRequest = z.infer<typeof BoardSyncRequest>;

/**
 * Volatile: where the sender points on a board they may draw on (its owner, a teacher), at most
 * every BOARD_POINTER_MS. Never stored; reaches only the board's audience (docs/boards.md).
 */
export const BoardPointerUpdate = z.strictObject({ boardId: BoardId, x: Coordinate, y: Coordinate });
export type BoardPointerUpdate = z.infer<typeof BoardPointerUpdate>;

/** How often a client sends its pointer on a board, and the server batches them, at most (ms). */
export const BOARD_POINTER_MS = 50;

/**
 * A batch of one board's ephemera, sent to the board's audience only (I12, I13): the pointers
 * (`[sessionId, userId, x, y]` each, the latest per session; on a page of the lesson, a student's
 * batch carries only those the lesson's `CursorVisibility` lets them see), the live ink of the tick (points
 * appended per stroke, as in a `cursors` batch), the drags in progress under current locks and,
 * on a page of the lesson, the laser points of the tick (as in a `cursors` batch).
 */
export const BoardPointers = z.object({
  boardId: BoardId,
  pointers: z.array(z.tuple([SessionId, UserId, Coordinate, Coordinate])),
  ink: z.array(InkEntry).optional(),
  drags: z.array(DragEntry).optional(),
  laser: z.array(LaserEntry).optional(),
});
export type BoardPointers = z.infer<typeof BoardPointers>;

/**
 * One tick's `board.pointers` batches for one socket, in one message (`boards.pointers`): sent
 * instead of them to a socket that asked for it in its handshake (`features`) when it follows two
 * or more boards with something moving in the tick, as a teacher's class grid does (one message a
 * tick instead of one per board). Each batch is exactly what `board.pointers` would have carried.
 */
export const BoardsPointers = z.object({ batches: z.array(BoardPointers) });
export type BoardsPointers = z.infer<typeof BoardsPointers>;

/**
 * `GET /api/teacher/rooms/:code/boards`: every activity of a lesson, newest first, each with its
 * students' boards and their live elements: the kept work, for the teacher's page and its export.
 */
export const LessonBoards = z.object({
  activities: z.array(
    z.object({
      activity: Activity,
      boards: z.array(z.object({ board: BoardInfo, elements: z.array(Element) })),
    }),
  ),
});
export type LessonBoards = z.infer<typeof LessonBoards>;
