/**
 * Activities and private student boards (issue 22, docs/boards.md). A board is a child room of the
 * lesson with its own revision and log, and its Socket.IO channel is that room's channel
 * (`roomChannel(boardId)`): the publisher sends a board's events there and nowhere else. A socket
 * joins a board's channel only after the store said it may see the board (I12): its owner, the
 * lesson's teachers, and, while the board is shown, everyone in the lesson. So before a board is
 * shown no other student's socket receives anything of it, and a hand-written request for it is
 * refused `board_forbidden` like the UI's would be.
 *
 * Pointers on a board (`board.pointer`), like its live ink (`ink` with `boardId`) and drag previews
 * (`lock.move` with `boardId`), take the one ephemeral fan-out of every board (ephemeralFanout.ts),
 * batched per board and tick and sent to the board's channel only (boardBatches.ts), so they reach
 * exactly the audience its events reach (I12, I13); on a page, its students get only the pointers
 * the lesson's cursor visibility lets them see (ephemeralFanout.ts). A socket may send them on the boards it may
 * draw on (its own board, every board for a teacher), as learned when it was subscribed
 * (`BoardAccess`). Element edits and locks on a board take the class board's handlers with the
 * board's id (elementHandlers.ts, lockHandlers.ts).
 */
import type { Store } from '@wb/db';
import {
  ClientEvent,
  ErrorCode,
  ServerEvent,
  forbiddenText,
  refusalText,
  type BoardInfo,
  type ProtocolError,
} from '@wb/protocol';
import type { BoardAccess } from './boardAccess.ts';
import { leaveEverywhere, memberChannel, roleChannel, roomChannel, shownChannel } from './channels.ts';
import type { ClientEventHandlers } from './clientEvents.ts';
import type { EphemeralFanout } from './ephemeralFanout.ts';
import { Refusal } from './requests.ts';
import type { RoomPublisher } from './roomPublisher.ts';
import type { SocketSession } from './socketSession.ts';
import { shownBoardInfo, shownEvent, shownSnapshot, type ShownBoards } from './shownView.ts';
import { REPLAY_LIMIT, SYNC_REQUESTS_PER_MEMBER } from './syncHandlers.ts';
import { TokenBucket } from './tokenBucket.ts';
import type { WbServer } from './types.ts';

type BoardEvents =
  | typeof ClientEvent.ACTIVITY_START
  | typeof ClientEvent.ACTIVITY_STATUS
  | typeof ClientEvent.BOARD_SHOW
  | typeof ClientEvent.BOARD_LIST
  | typeof ClientEvent.BOARD_MINE
  | typeof ClientEvent.BOARD_SYNC
  | typeof ClientEvent.BOARD_POINTER;

/**
 * A teacher's `board.sync` budget: their grid syncs every board of the class at once (up to 40,
 * after each reconnect), so the member budget (a burst of 6) would leave most tiles empty for
 * seconds. A board's snapshot is one small read; the budget still bounds a flood (I14).
 */
export const BOARD_SYNCS_PER_TEACHER = { perSec: 20, burst: 90 } as const;

export const boardForbidden: ProtocolError = { code: ErrorCode.BOARD_FORBIDDEN, message: refusalText.board_forbidden };
const teacherOnly: ProtocolError = { code: ErrorCode.FORBIDDEN, message: forbiddenText.teacherOnly };
const noActivity: ProtocolError = { code: ErrorCode.NOT_FOUND, message: 'This lesson has no such activity.' };

export interface BoardDeps {
  io: WbServer;
  store: Store;
  publisher: RoomPublisher;
  endRevoked(session: SocketSession): void;
  fanout: EphemeralFanout;
  access: BoardAccess;
  shown: ShownBoards;
}

/** The channels of a board's audience before it is shown: its owner's sockets and the teachers'. */
function subscribePrivate(io: WbServer, lessonId: string, board: BoardInfo): void {
  io.in(roleChannel(lessonId, 'teacher')).socketsJoin(roomChannel(board.id));
  io.in(memberChannel(lessonId, board.ownerUserId)).socketsJoin(roomChannel(board.id));
}

export function boardHandlers(deps: BoardDeps): Pick<ClientEventHandlers, BoardEvents> {
  const { io, store, publisher, fanout, access, shown } = deps;
  /**
   * A classmate of a shown board (not its owner, not a teacher) reads it anonymously (shownView.ts):
   * its shown channel instead of its room channel, its list entry, snapshot and replay redacted.
   */
  const classmateOf = (session: SocketSession, board: BoardInfo) => session.role !== 'teacher' && board.ownerUserId !== session.userId;
  const channelFor = (session: SocketSession, board: BoardInfo) => {
    if (!classmateOf(session, board)) return roomChannel(board.id);
    shown.learned(board);
    return shownChannel(board.id);
  };
  // board.sync shares the sync budget's shape (I14), per socket: a flood is refused before any query.
  const budgets = new WeakMap<SocketSession, TokenBucket>();
  const mayDraw = (session: SocketSession, boards: readonly BoardInfo[]) => access.subscribed(session, boards);
  // Who may draw follows the activity (this node's events and others'). What a board's element
  // events mean for its unsent ephemera is the publisher's, for every board alike.
  publisher.onEvent((event) => {
    if (event.kind === 'activity.updated') access.activityChanged(event.payload.id, event.payload.status);
  });
  const reader = (session: SocketSession) => ({ lessonId: session.roomId, sessionId: session.sessionId, userId: session.userId });
  const refuseMember = (session: SocketSession): never => {
    deps.endRevoked(session);
    throw new Refusal({ code: ErrorCode.MEMBERSHIP_REVOKED, message: refusalText.membership_revoked });
  };

  return {
    [ClientEvent.ACTIVITY_START]: async (session, request) => {
      const result = await store.startActivity(session.actor, request);
      switch (result.decision) {
        case 'applied':
          // Subscribed before the boards' first events go out, so each audience gets them all.
          for (const board of result.boards) subscribePrivate(io, session.roomId, board);
          mayDraw(session, result.boards);
          publisher.publish(result.events);
          return { activity: result.activity, boards: result.boards };
        case 'activity_running':
          throw new Refusal({ code: ErrorCode.CONFLICT, message: 'An activity is already running in this lesson; end it first.' });
        case 'not_found':
          throw new Refusal({ code: ErrorCode.NOT_FOUND, message: 'None of the chosen elements is on the board any more.' });
        case 'board_full':
          throw new Refusal({
            code: ErrorCode.BOARD_FULL,
            message: `The starting content has more elements than a board may hold (${store.elementCaps.maxPerBoard}); nothing was started.`,
          });
        case 'forbidden':
          throw new Refusal(teacherOnly);
        case 'not_a_member':
          return refuseMember(session);
      }
    },

    [ClientEvent.ACTIVITY_STATUS]: async (session, request) => {
      const result = await store.setActivityStatus(session.actor, request);
      switch (result.decision) {
        case 'applied':
          publisher.publish(result.events);
          return { activity: result.activity };
        case 'already_applied':
          return { activity: result.activity };
        case 'no_activity':
        case 'not_found':
          throw new Refusal(noActivity);
        case 'forbidden':
          throw new Refusal(session.role === 'teacher' ? { code: ErrorCode.CONFLICT, message: 'This activity has ended.' } : teacherOnly);
        case 'not_a_member':
          return refuseMember(session);
      }
    },

    [ClientEvent.BOARD_SHOW]: async (session, request) => {
      const result = await store.setBoardsShown(session.actor, request);
      switch (result.decision) {
        case 'applied': {
          const lesson = session.roomId;
          for (const { boardId, label } of request.boards) {
            if (label === null) {
              // Hidden again: no classmate reads it any more.
              leaveEverywhere(io, shownChannel(boardId));
              continue;
            }
            // Shown: every other student reads its anonymous view; its owner and the teachers keep theirs.
            const owner = (await store.readableBoard(reader(session), boardId))?.ownerUserId;
            if (!owner) continue;
            io.in(roleChannel(lesson, 'student')).except(memberChannel(lesson, owner)).socketsJoin(shownChannel(boardId));
          }
          publisher.publish(result.events);
          return { activity: result.activity };
        }
        case 'already_applied':
          return { activity: result.activity };
        case 'not_found':
          throw new Refusal(boardForbidden);
        case 'no_activity':
          throw new Refusal(noActivity);
        case 'forbidden':
          throw new Refusal(teacherOnly);
        case 'not_a_member':
          return refuseMember(session);
      }
    },

    [ClientEvent.BOARD_LIST]: async (session, request) => {
      const activity = await store.currentActivity(session.roomId);
      const boards = await store.listBoards(reader(session), request.activityId ?? activity?.id);
      if (boards.length > 0) void session.socket.join(boards.map((b) => channelFor(session, b)));
      mayDraw(session, boards);
      return { activity, boards: boards.map((b) => (classmateOf(session, b) ? shownBoardInfo(b) : b)) };
    },

    [ClientEvent.BOARD_MINE]: async (session) => {
      const result = await store.openMyBoard(session.actor);
      switch (result.decision) {
        case 'applied':
          subscribePrivate(io, session.roomId, result.board);
          mayDraw(session, [result.board]);
          // A late joiner's board is new to the teachers' grid.
          if (result.created) {
            io.to(roleChannel(session.roomId, 'teacher')).emit(ServerEvent.BOARD_OPENED, { board: result.board });
          }
          publisher.publish(result.events);
          return { activity: result.activity, board: result.board };
        case 'no_activity':
          throw new Refusal({ code: ErrorCode.NOT_FOUND, message: 'There is no activity in this lesson now.' });
        case 'not_a_student':
          throw new Refusal({ code: ErrorCode.FORBIDDEN, message: 'Only students have a board of their own.' });
        case 'board_full':
          throw new Refusal({
            code: ErrorCode.BOARD_FULL,
            message: `The activity's starting content has more elements than a board may hold (${store.elementCaps.maxPerBoard}).`,
          });
        case 'not_a_member':
          return refuseMember(session);
      }
    },

    [ClientEvent.BOARD_SYNC]: async (session, request) => {
      let budget = budgets.get(session);
      if (!budget) {
        const { perSec, burst } = session.role === 'teacher' ? BOARD_SYNCS_PER_TEACHER : SYNC_REQUESTS_PER_MEMBER;
        budgets.set(session, (budget = new TokenBucket(perSec, burst, Date.now())));
      }
      if (!budget.take(Date.now())) throw new Refusal({ code: ErrorCode.RATE_LIMITED, message: refusalText.rate_limited });
      const who = reader(session);
      const board = await store.readableBoard(who, request.boardId);
      if (!board) throw new Refusal(boardForbidden);
      // Joined before the read, so no event between the read and the join is missed.
      await session.socket.join(channelFor(session, board));
      mayDraw(session, [board]);
      const anonymous = classmateOf(session, board);
      if (request.lastRevision !== undefined) {
        const replay = await store.boardEventsAfter(who, board.id, request.lastRevision, REPLAY_LIMIT);
        if (replay === 'forbidden') throw new Refusal(boardForbidden);
        if (replay.kind === 'replay') {
          const events = anonymous ? replay.events.map(shownEvent) : replay.events;
          return { sync: { kind: 'replay' as const, boardId: board.id, fromRevision: request.lastRevision, events } };
        }
      }
      const snapshot = await store.loadBoardSnapshot(who, board.id);
      if (snapshot === 'forbidden') throw new Refusal(boardForbidden);
      return { sync: { kind: 'snapshot' as const, snapshot: anonymous ? shownSnapshot(snapshot) : snapshot } };
    },

    // Volatile. Dropped unless the session holds a live lease, like a cursor; refused (a throttled
    // notice) on a board this socket may not draw on, or no longer subscribed to (hidden, revoked).
    [ClientEvent.BOARD_POINTER]: (session, update) => {
      if (!session.live) return;
      // Pointing is not drawing: a frozen board's owner may still point on it.
      if (access.mayDraw(session, update.boardId) === 'forbidden') return boardForbidden;
      fanout.pushCursor(update.boardId, session.userId, [session.sessionId, update.x, update.y], session.role, 'private');
    },
  };
}
