import type { z } from 'zod';
import type { ProtocolError } from './errors.ts';
import {
  ClearBoardRequest,
  HistoryListRequest,
  RestoreBatchRequest,
  RestoreElementRequest,
  type ClearBoardReply,
  type HistoryEntry,
  type RestoreBatchReply,
} from './history.ts';
import {
  HandLowerAllRequest,
  HandLowerRequest,
  HandRaiseRequest,
  LessonSettingsRequest,
  LessonStateRequest,
  MemberPenRequest,
  type LessonSettingsReply,
} from './lessonSettings.ts';
import {
  BreakLockRequest,
  CreateElementRequest,
  DeleteElementRequest,
  LockAcquireManyRequest,
  LockAcquireRequest,
  LockMove,
  LockReleaseRequest,
  PinElementRequest,
  UpdateElementRequest,
  type ElementReply,
  type LockGrant,
  type LockManyReply,
} from './elements.ts';
import { InkUpdate } from './ink.ts';
import {
  ActivityStartRequest,
  ActivityStatusRequest,
  BoardListRequest,
  BoardMineRequest,
  BoardShowRequest,
  BoardSyncRequest,
  BoardPointerUpdate,
  type BoardPointers,
  type BoardsPointers,
  type Activity,
  type BoardInfo,
} from './boards.ts';
import type { BoardSyncMessage, PageSyncMessage } from './boardSync.ts';
import {
  LessonStartRequest,
  PageAddRequest,
  PageDeleteRequest,
  PageDuplicateRequest,
  PageGotoRequest,
  PageListRequest,
  PageMoveRequest,
  PagePacingRequest,
  PageRestoreRequest,
  PageSyncRequest,
  PageUpdateRequest,
  type LessonPages,
  type PageListReply,
} from './pages.ts';
import {
  BoardFlagRequest,
  ClockNowRequest,
  PollAnswerRequest,
  PollCloseRequest,
  PollGetRequest,
  PollOpenRequest,
  PollShowRequest,
  TimerSetRequest,
  type BoardFlag,
  type ClockNowReply,
  type Poll,
  type PollAnswer,
  type PollAnswers,
} from './checks.ts';
import { FollowBringRequest, FollowPresentRequest, FollowSetRequest, LaserUpdate, ViewportUpdate, type FollowSignal } from './attention.ts';
import {
  CursorUpdate,
  LeaseRenewRequest,
  SignOutRequest,
  SyncRequest,
  type CursorBatch,
  type LeaseDue,
  type LeaseRenewResult,
  type Member,
  type PresenceSignal,
  type RoomInfo,
  type RoomEvent,
  type SyncMessage,
  type Welcome,
} from './schemas.ts';

/** Every acknowledged request answers with exactly one of these. */
export type Ack<T> = ({ ok: true } & T) | { ok: false; error: ProtocolError };
export type AckFn<T> = (reply: Ack<T>) => void;

/** Socket event names, defined once (STYLE: no event name copied as a string on each side). */
export const ClientEvent = {
  CURSOR: 'cursor',
  INK: 'ink',
  LEASE_RENEW: 'lease.renew',
  SYNC_REQUEST: 'sync.request',
  SIGN_OUT: 'session.signOut',
  ELEMENT_CREATE: 'element.create',
  ELEMENT_UPDATE: 'element.update',
  ELEMENT_DELETE: 'element.delete',
  LOCK_ACQUIRE: 'lock.acquire',
  LOCK_ACQUIRE_MANY: 'lock.acquireMany',
  LOCK_MOVE: 'lock.move',
  LOCK_RELEASE: 'lock.release',
  ELEMENT_PIN: 'element.pin',
  LOCK_BREAK: 'lock.break',
  LESSON_SETTINGS: 'lesson.settings',
  MEMBER_PEN: 'member.pen',
  HISTORY_LIST: 'history.list',
  ELEMENT_RESTORE: 'element.restore',
  BOARD_CLEAR: 'board.clear',
  BATCH_RESTORE: 'batch.restore',
  LESSON_END: 'lesson.end',
  LESSON_REOPEN: 'lesson.reopen',
  HAND_RAISE: 'hand.raise',
  HAND_LOWER: 'hand.lower',
  HAND_LOWER_ALL: 'hand.lowerAll',
  LASER: 'laser',
  VIEWPORT: 'viewport',
  FOLLOW_SET: 'follow.set',
  FOLLOW_BRING: 'follow.bring',
  FOLLOW_PRESENT: 'follow.present',
  ACTIVITY_START: 'activity.start',
  ACTIVITY_STATUS: 'activity.status',
  BOARD_SHOW: 'board.show',
  BOARD_LIST: 'board.list',
  BOARD_MINE: 'board.mine',
  BOARD_SYNC: 'board.sync',
  BOARD_POINTER: 'board.pointer',
  TIMER_SET: 'timer.set',
  CLOCK_NOW: 'clock.now',
  POLL_OPEN: 'poll.open',
  POLL_ANSWER: 'poll.answer',
  POLL_CLOSE: 'poll.close',
  POLL_SHOW: 'poll.show',
  POLL_GET: 'poll.get',
  BOARD_FLAG: 'board.flag',
  PAGE_ADD: 'page.add',
  PAGE_DUPLICATE: 'page.duplicate',
  PAGE_UPDATE: 'page.update',
  PAGE_MOVE: 'page.move',
  PAGE_DELETE: 'page.delete',
  PAGE_RESTORE: 'page.restore',
  PAGE_GOTO: 'page.goto',
  PAGE_PACING: 'page.pacing',
  PAGE_LIST: 'page.list',
  PAGE_SYNC: 'page.sync',
  LESSON_START: 'lesson.start',
} as const;

export const ServerEvent = {
  WELCOME: 'welcome',
  SYNC: 'sync',
  ROOM_EVENT: 'room.event',
  CURSORS: 'cursors',
  PRESENCE_SIGNAL: 'presence.signal',
  LEASE_DUE: 'lease.due',
  SESSION_ENDED: 'session.ended',
  NOTICE: 'notice',
  FOLLOW: 'follow',
  BOARD_OPENED: 'board.opened',
  BOARD_POINTERS: 'board.pointers',
  BOARDS_POINTERS: 'boards.pointers',
  POLL_ANSWERS: 'poll.answers',
} as const;

/** Client to server. Cursor, ink and drag-move packets are volatile and unacknowledged; everything else is acked. */
export interface ClientToServerEvents {
  [ClientEvent.CURSOR]: (update: CursorUpdate) => void;
  /** Volatile live ink: the points of a stroke being drawn (see ink.ts). */
  [ClientEvent.INK]: (update: InkUpdate) => void;
  [ClientEvent.LEASE_RENEW]: (request: LeaseRenewRequest, ack: AckFn<LeaseRenewResult>) => void;
  [ClientEvent.SYNC_REQUEST]: (request: SyncRequest, ack: AckFn<{ sync: SyncMessage }>) => void;
  [ClientEvent.SIGN_OUT]: (request: SignOutRequest, ack: AckFn<Record<string, never>>) => void;
  [ClientEvent.ELEMENT_CREATE]: (request: CreateElementRequest, ack: AckFn<ElementReply>) => void;
  [ClientEvent.ELEMENT_UPDATE]: (request: UpdateElementRequest, ack: AckFn<ElementReply>) => void;
  [ClientEvent.ELEMENT_DELETE]: (request: DeleteElementRequest, ack: AckFn<ElementReply>) => void;
  [ClientEvent.LOCK_ACQUIRE]: (request: LockAcquireRequest, ack: AckFn<{ grant: LockGrant }>) => void;
  /** All-or-nothing: every element's lock, or none and a `locked` refusal naming the holder. */
  [ClientEvent.LOCK_ACQUIRE_MANY]: (request: LockAcquireManyRequest, ack: AckFn<LockManyReply>) => void;
  /** Volatile drag move; no acknowledgement (a stale or unlocked one is dropped). */
  [ClientEvent.LOCK_MOVE]: (move: LockMove) => void;
  [ClientEvent.LOCK_RELEASE]: (request: LockReleaseRequest, ack: AckFn<ElementReply>) => void;
  /** Teacher only. */
  [ClientEvent.ELEMENT_PIN]: (request: PinElementRequest, ack: AckFn<ElementReply>) => void;
  /** Teacher only. */
  [ClientEvent.LOCK_BREAK]: (request: BreakLockRequest, ack: AckFn<ElementReply>) => void;
  /** Teacher only: change some of the lesson's settings (the edit policy). */
  [ClientEvent.LESSON_SETTINGS]: (request: LessonSettingsRequest, ack: AckFn<LessonSettingsReply>) => void;
  /** Teacher only: mute a student's pen or give it back. */
  [ClientEvent.MEMBER_PEN]: (request: MemberPenRequest, ack: AckFn<{ member: Member }>) => void;
  /** Teacher only: the board's recent changes. */
  [ClientEvent.HISTORY_LIST]: (request: HistoryListRequest, ack: AckFn<{ entries: HistoryEntry[] }>) => void;
  /** Teacher only: an element back to a kept version. */
  [ClientEvent.ELEMENT_RESTORE]: (request: RestoreElementRequest, ack: AckFn<ElementReply>) => void;
  /** Teacher only: clear the board, or one member's work, as one restorable action. */
  [ClientEvent.BOARD_CLEAR]: (request: ClearBoardRequest, ack: AckFn<ClearBoardReply>) => void;
  /** Teacher only: undo one clear. */
  [ClientEvent.BATCH_RESTORE]: (request: RestoreBatchRequest, ack: AckFn<RestoreBatchReply>) => void;
  /** Teacher only: end the lesson (students disconnected, joins refused). */
  [ClientEvent.LESSON_END]: (request: LessonStateRequest, ack: AckFn<{ room: RoomInfo }>) => void;
  /** Teacher only: open an ended lesson again. */
  [ClientEvent.LESSON_REOPEN]: (request: LessonStateRequest, ack: AckFn<{ room: RoomInfo }>) => void;
  /** Student only: raise your hand. */
  [ClientEvent.HAND_RAISE]: (request: HandRaiseRequest, ack: AckFn<{ member: Member }>) => void;
  /** A student lowers their own hand; the teacher lowers a student's. */
  [ClientEvent.HAND_LOWER]: (request: HandLowerRequest, ack: AckFn<{ member: Member }>) => void;
  /** Teacher only: lower every raised hand. */
  [ClientEvent.HAND_LOWER_ALL]: (request: HandLowerAllRequest, ack: AckFn<{ lowered: number }>) => void;
  /** Volatile: the laser pointer's point (the teacher always; students when the lesson allows it). */
  [ClientEvent.LASER]: (update: LaserUpdate) => void;
  /** Volatile, teacher only: the teacher's view, for the students following it. */
  [ClientEvent.VIEWPORT]: (update: ViewportUpdate) => void;
  /** Student: follow the teacher's view or stop following it. */
  [ClientEvent.FOLLOW_SET]: (request: FollowSetRequest, ack: AckFn<{ following: boolean }>) => void;
  /** Teacher only: bring every student's view to the teacher's, once. */
  [ClientEvent.FOLLOW_BRING]: (request: FollowBringRequest, ack: AckFn<Record<string, never>>) => void;
  /** Teacher only: start or stop presenting (students follow the teacher's view meanwhile). */
  [ClientEvent.FOLLOW_PRESENT]: (request: FollowPresentRequest, ack: AckFn<{ presenting: boolean }>) => void;
  /** Teacher only: start an activity; every student gets a private board. */
  [ClientEvent.ACTIVITY_START]: (request: ActivityStartRequest, ack: AckFn<{ activity: Activity; boards: BoardInfo[] }>) => void;
  /** Teacher only: freeze, resume or end the activity. */
  [ClientEvent.ACTIVITY_STATUS]: (request: ActivityStatusRequest, ack: AckFn<{ activity: Activity }>) => void;
  /** Teacher only: show boards to the class, or hide them. */
  [ClientEvent.BOARD_SHOW]: (request: BoardShowRequest, ack: AckFn<{ activity: Activity }>) => void;
  /** The current activity and the boards the sender may see; subscribes the socket to them. */
  [ClientEvent.BOARD_LIST]: (request: BoardListRequest, ack: AckFn<{ activity: Activity | null; boards: BoardInfo[] }>) => void;
  /** Student only: my board of the current activity; subscribes the socket to it. */
  [ClientEvent.BOARD_MINE]: (request: BoardMineRequest, ack: AckFn<{ activity: Activity; board: BoardInfo }>) => void;
  /** A board's replay or snapshot, for a board the sender may see (else `board_forbidden`). */
  [ClientEvent.BOARD_SYNC]: (request: BoardSyncRequest, ack: AckFn<{ sync: BoardSyncMessage }>) => void;
  /** Volatile: the sender's pointer on a board they may draw on. */
  [ClientEvent.BOARD_POINTER]: (update: BoardPointerUpdate) => void;
  /** Teacher only: start, pause, resume, extend or stop the lesson's timer, or change its options. */
  [ClientEvent.TIMER_SET]: (request: TimerSetRequest, ack: AckFn<{ room: RoomInfo }>) => void;
  /** The database's clock now, for the client's estimate of its offset. */
  [ClientEvent.CLOCK_NOW]: (request: ClockNowRequest, ack: AckFn<ClockNowReply>) => void;
  /** Teacher only: open a poll (closing the open one). */
  [ClientEvent.POLL_OPEN]: (request: PollOpenRequest, ack: AckFn<{ poll: Poll }>) => void;
  /** Student only: answer the open poll, or change my answer. */
  [ClientEvent.POLL_ANSWER]: (request: PollAnswerRequest, ack: AckFn<{ answer: PollAnswer }>) => void;
  /** Teacher only: close the poll. */
  [ClientEvent.POLL_CLOSE]: (request: PollCloseRequest, ack: AckFn<{ poll: Poll }>) => void;
  /** Teacher only: show the results to the class (counts, no names), or hide them. */
  [ClientEvent.POLL_SHOW]: (request: PollShowRequest, ack: AckFn<{ poll: Poll }>) => void;
  /** The latest poll, with every answer (teacher) or my own (student). */
  [ClientEvent.POLL_GET]: (request: PollGetRequest, ack: AckFn<{ poll: Poll | null; answers: PollAnswer[] }>) => void;
  /** A board's owner flags it done or needing help, or clears the flag; the teacher clears one. */
  [ClientEvent.BOARD_FLAG]: (request: BoardFlagRequest, ack: AckFn<{ flag: BoardFlag | null; flaggedAt: string | null }>) => void;
  /** Teacher only: a new blank page (docs/protocol.md, "Pages"). */
  [ClientEvent.PAGE_ADD]: (request: PageAddRequest, ack: AckFn<{ pages: LessonPages }>) => void;
  /** Teacher only: a copy of a page right after it. */
  [ClientEvent.PAGE_DUPLICATE]: (request: PageDuplicateRequest, ack: AckFn<{ pages: LessonPages }>) => void;
  /** Teacher only: rename a page or change its paper. */
  [ClientEvent.PAGE_UPDATE]: (request: PageUpdateRequest, ack: AckFn<{ pages: LessonPages }>) => void;
  /** Teacher only: move a page after another (or first). */
  [ClientEvent.PAGE_MOVE]: (request: PageMoveRequest, ack: AckFn<{ pages: LessonPages }>) => void;
  /** Teacher only: delete a page (restorable). */
  [ClientEvent.PAGE_DELETE]: (request: PageDeleteRequest, ack: AckFn<{ pages: LessonPages }>) => void;
  /** Teacher only: restore a deleted page where it was. */
  [ClientEvent.PAGE_RESTORE]: (request: PageRestoreRequest, ack: AckFn<{ pages: LessonPages }>) => void;
  /** Teacher only: go to a page; paced students move with her. */
  [ClientEvent.PAGE_GOTO]: (request: PageGotoRequest, ack: AckFn<{ pages: LessonPages }>) => void;
  /** Teacher only: pace the class or let it browse. */
  [ClientEvent.PAGE_PACING]: (request: PagePacingRequest, ack: AckFn<{ pages: LessonPages }>) => void;
  /** The lesson's pages (the teacher's reply lists the deleted ones too). */
  [ClientEvent.PAGE_LIST]: (request: PageListRequest, ack: AckFn<PageListReply>) => void;
  /** A page's replay or snapshot; subscribes the socket to the page. */
  [ClientEvent.PAGE_SYNC]: (request: PageSyncRequest, ack: AckFn<{ sync: PageSyncMessage }>) => void;
  /** Teacher only: start a prepared lesson (students may join from now on). */
  [ClientEvent.LESSON_START]: (request: LessonStartRequest, ack: AckFn<{ room: RoomInfo }>) => void;
}

/** What `notice` carries. */
export type ServerNotice = ProtocolError & { event?: string; reconnectWithinMs?: number };

/** Server to client. */
export interface ServerToClientEvents {
  [ServerEvent.WELCOME]: (welcome: Welcome) => void;
  [ServerEvent.SYNC]: (sync: SyncMessage) => void;
  [ServerEvent.ROOM_EVENT]: (event: RoomEvent) => void;
  [ServerEvent.CURSORS]: (batch: CursorBatch) => void;
  [ServerEvent.PRESENCE_SIGNAL]: (signal: PresenceSignal) => void;
  [ServerEvent.LEASE_DUE]: (due: LeaseDue) => void;
  /** The session is over (revoked, signed out elsewhere, server shutting down). */
  [ServerEvent.SESSION_ENDED]: (error: ProtocolError) => void;
  /**
   * A refused packet that had no acknowledgement to carry the refusal (e.g. a cursor), or the
   * server going away (`server_restarting`; with `reconnectWithinMs` the client reconnects at a
   * random moment within that window, before the server closes the socket).
   */
  [ServerEvent.NOTICE]: (notice: ServerNotice) => void;
  /** Follow the teacher: bring everyone, presenting started or stopped, the follower count. */
  [ServerEvent.FOLLOW]: (signal: FollowSignal) => void;
  /** Teachers only: a student who joined after the activity started opened their board. */
  [ServerEvent.BOARD_OPENED]: (signal: { board: BoardInfo }) => void;
  /** Volatile: the pointers on a board this socket is subscribed to, batched. */
  [ServerEvent.BOARD_POINTERS]: (batch: BoardPointers) => void;
  /**
   * Volatile, to a socket that asked for it in its handshake (`features: ['boards.pointers']`):
   * every `board.pointers` batch of one tick for this socket, in one message, when it follows
   * two or more boards with something moving (a teacher's class grid).
   */
  [ServerEvent.BOARDS_POINTERS]: (batches: BoardsPointers) => void;
  /** Teachers only: answers given or changed, with who gave them (the class never receives this). */
  [ServerEvent.POLL_ANSWERS]: (answers: PollAnswers) => void;
}

export type ClientEventName = (typeof ClientEvent)[keyof typeof ClientEvent];

/** What a client event carries (its first argument), from the typed map. */
export type ClientRequest<E extends ClientEventName> = Parameters<ClientToServerEvents[E]>[0];

/** The client events answered through an acknowledgement: those whose map entry takes one. */
export type AckedClientEvent = {
  [E in ClientEventName]: Parameters<ClientToServerEvents[E]> extends [unknown, unknown] ? E : never;
}[ClientEventName];

/** The volatile client events: never acknowledged, and droppable on the way. */
export type VolatileClientEvent = Exclude<ClientEventName, AckedClientEvent>;

/** The fields of an acknowledged event's successful reply, from the typed map. */
export type ClientReply<E extends AckedClientEvent> = Parameters<ClientToServerEvents[E]>[1] extends AckFn<infer R> ? R : never;

/**
 * The schema each client event's packet is validated against at the server's edge. Total over the
 * client events and typed by the map, so an event cannot be added without its schema.
 */
export const clientEventSchemas: { readonly [E in ClientEventName]: z.ZodType<ClientRequest<E>> } = {
  [ClientEvent.CURSOR]: CursorUpdate,
  [ClientEvent.INK]: InkUpdate,
  [ClientEvent.LEASE_RENEW]: LeaseRenewRequest,
  [ClientEvent.SYNC_REQUEST]: SyncRequest,
  [ClientEvent.SIGN_OUT]: SignOutRequest,
  [ClientEvent.ELEMENT_CREATE]: CreateElementRequest,
  [ClientEvent.ELEMENT_UPDATE]: UpdateElementRequest,
  [ClientEvent.ELEMENT_DELETE]: DeleteElementRequest,
  [ClientEvent.LOCK_ACQUIRE]: LockAcquireRequest,
  [ClientEvent.LOCK_ACQUIRE_MANY]: LockAcquireManyRequest,
  [ClientEvent.LOCK_MOVE]: LockMove,
  [ClientEvent.LOCK_RELEASE]: LockReleaseRequest,
  [ClientEvent.ELEMENT_PIN]: PinElementRequest,
  [ClientEvent.LOCK_BREAK]: BreakLockRequest,
  [ClientEvent.LESSON_SETTINGS]: LessonSettingsRequest,
  [ClientEvent.MEMBER_PEN]: MemberPenRequest,
  [ClientEvent.HISTORY_LIST]: HistoryListRequest,
  [ClientEvent.ELEMENT_RESTORE]: RestoreElementRequest,
  [ClientEvent.BOARD_CLEAR]: ClearBoardRequest,
  [ClientEvent.BATCH_RESTORE]: RestoreBatchRequest,
  [ClientEvent.LESSON_END]: LessonStateRequest,
  [ClientEvent.LESSON_REOPEN]: LessonStateRequest,
  [ClientEvent.HAND_RAISE]: HandRaiseRequest,
  [ClientEvent.HAND_LOWER]: HandLowerRequest,
  [ClientEvent.HAND_LOWER_ALL]: HandLowerAllRequest,
  [ClientEvent.LASER]: LaserUpdate,
  [ClientEvent.VIEWPORT]: ViewportUpdate,
  [ClientEvent.FOLLOW_SET]: FollowSetRequest,
  [ClientEvent.FOLLOW_BRING]: FollowBringRequest,
  [ClientEvent.FOLLOW_PRESENT]: FollowPresentRequest,
  [ClientEvent.ACTIVITY_START]: ActivityStartRequest,
  [ClientEvent.ACTIVITY_STATUS]: ActivityStatusRequest,
  [ClientEvent.BOARD_SHOW]: BoardShowRequest,
  [ClientEvent.BOARD_LIST]: BoardListRequest,
  [ClientEvent.BOARD_MINE]: BoardMineRequest,
  [ClientEvent.BOARD_SYNC]: BoardSyncRequest,
  [ClientEvent.BOARD_POINTER]: BoardPointerUpdate,
  [ClientEvent.TIMER_SET]: TimerSetRequest,
  [ClientEvent.CLOCK_NOW]: ClockNowRequest,
  [ClientEvent.POLL_OPEN]: PollOpenRequest,
  [ClientEvent.POLL_ANSWER]: PollAnswerRequest,
  [ClientEvent.POLL_CLOSE]: PollCloseRequest,
  [ClientEvent.POLL_SHOW]: PollShowRequest,
  [ClientEvent.POLL_GET]: PollGetRequest,
  [ClientEvent.BOARD_FLAG]: BoardFlagRequest,
  [ClientEvent.PAGE_ADD]: PageAddRequest,
  [ClientEvent.PAGE_DUPLICATE]: PageDuplicateRequest,
  [ClientEvent.PAGE_UPDATE]: PageUpdateRequest,
  [ClientEvent.PAGE_MOVE]: PageMoveRequest,
  [ClientEvent.PAGE_DELETE]: PageDeleteRequest,
  [ClientEvent.PAGE_RESTORE]: PageRestoreRequest,
  [ClientEvent.PAGE_GOTO]: PageGotoRequest,
  [ClientEvent.PAGE_PACING]: PagePacingRequest,
  [ClientEvent.PAGE_LIST]: PageListRequest,
  [ClientEvent.PAGE_SYNC]: PageSyncRequest,
  [ClientEvent.LESSON_START]: LessonStartRequest,
};

/** Whether each client event is acknowledged, checked against the typed map. */
const acknowledged: { readonly [E in ClientEventName]: E extends AckedClientEvent ? true : false } = {
  [ClientEvent.CURSOR]: false,
  [ClientEvent.INK]: false,
  [ClientEvent.LEASE_RENEW]: true,
  [ClientEvent.SYNC_REQUEST]: true,
  [ClientEvent.SIGN_OUT]: true,
  [ClientEvent.ELEMENT_CREATE]: true,
  [ClientEvent.ELEMENT_UPDATE]: true,
  [ClientEvent.ELEMENT_DELETE]: true,
  [ClientEvent.LOCK_ACQUIRE]: true,
  [ClientEvent.LOCK_ACQUIRE_MANY]: true,
  [ClientEvent.LOCK_MOVE]: false,
  [ClientEvent.LOCK_RELEASE]: true,
  [ClientEvent.ELEMENT_PIN]: true,
  [ClientEvent.LOCK_BREAK]: true,
  [ClientEvent.LESSON_SETTINGS]: true,
  [ClientEvent.MEMBER_PEN]: true,
  [ClientEvent.HISTORY_LIST]: true,
  [ClientEvent.ELEMENT_RESTORE]: true,
  [ClientEvent.BOARD_CLEAR]: true,
  [ClientEvent.BATCH_RESTORE]: true,
  [ClientEvent.LESSON_END]: true,
  [ClientEvent.LESSON_REOPEN]: true,
  [ClientEvent.HAND_RAISE]: true,
  [ClientEvent.HAND_LOWER]: true,
  [ClientEvent.HAND_LOWER_ALL]: true,
  [ClientEvent.LASER]: false,
  [ClientEvent.VIEWPORT]: false,
  [ClientEvent.FOLLOW_SET]: true,
  [ClientEvent.FOLLOW_BRING]: true,
  [ClientEvent.FOLLOW_PRESENT]: true,
  [ClientEvent.ACTIVITY_START]: true,
  [ClientEvent.ACTIVITY_STATUS]: true,
  [ClientEvent.BOARD_SHOW]: true,
  [ClientEvent.BOARD_LIST]: true,
  [ClientEvent.BOARD_MINE]: true,
  [ClientEvent.BOARD_SYNC]: true,
  [ClientEvent.BOARD_POINTER]: false,
  [ClientEvent.TIMER_SET]: true,
  [ClientEvent.CLOCK_NOW]: true,
  [ClientEvent.POLL_OPEN]: true,
  [ClientEvent.POLL_ANSWER]: true,
  [ClientEvent.POLL_CLOSE]: true,
  [ClientEvent.POLL_SHOW]: true,
  [ClientEvent.POLL_GET]: true,
  [ClientEvent.BOARD_FLAG]: true,
  [ClientEvent.PAGE_ADD]: true,
  [ClientEvent.PAGE_DUPLICATE]: true,
  [ClientEvent.PAGE_UPDATE]: true,
  [ClientEvent.PAGE_MOVE]: true,
  [ClientEvent.PAGE_DELETE]: true,
  [ClientEvent.PAGE_RESTORE]: true,
  [ClientEvent.PAGE_GOTO]: true,
  [ClientEvent.PAGE_PACING]: true,
  [ClientEvent.PAGE_LIST]: true,
  [ClientEvent.PAGE_SYNC]: true,
  [ClientEvent.LESSON_START]: true,
};

export function isAckedClientEvent(event: ClientEventName): event is AckedClientEvent {
  return acknowledged[event];
}

/** Every client event name. */
export const clientEventNames: readonly ClientEventName[] = Object.values(ClientEvent);
