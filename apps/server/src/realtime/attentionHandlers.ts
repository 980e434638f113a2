import { ClientEvent, ErrorCode, ServerEvent, forbiddenText, type FollowSignal, type ProtocolError } from '@wb/protocol';
import type { BoardAccess } from './boardAccess.ts';
import { boardForbidden } from './boardHandlers.ts';
import { followersChannel, leaveEverywhere, roleChannel } from './channels.ts';
import type { ClientEventHandlers } from './clientEvents.ts';
import type { DrawRights } from './drawRights.ts';
import type { EphemeralFanout } from './ephemeralFanout.ts';
import { Refusal } from './requests.ts';
import type { SocketSession } from './socketSession.ts';
import type { PresentedView, WbServer } from './types.ts';

type AttentionEvents =
  | typeof ClientEvent.LASER
  | typeof ClientEvent.VIEWPORT
  | typeof ClientEvent.FOLLOW_SET
  | typeof ClientEvent.FOLLOW_BRING
  | typeof ClientEvent.FOLLOW_PRESENT;

const LASER_REFUSED: ProtocolError = { code: ErrorCode.FORBIDDEN_BY_POLICY, message: forbiddenText.laserNotAllowed };
const TEACHER_ONLY: ProtocolError = { code: ErrorCode.FORBIDDEN, message: forbiddenText.teacherOnly };

/**
 * The teacher's attention kit on the ephemeral path (I13): never stored, every packet through the
 * packet gate like a cursor. It works on every page of the lesson, not only its own (issue 39):
 * each point or view names its page (`boardId`; absent, the class board), which must be a page the
 * sender reads now, as `board.pointer` checks it (`BoardAccess`: subscribed by `page.sync` and
 * still in the page's channel, so a paced student off the teacher's page is refused), else
 * `board_forbidden`. A private board is no page: it has no attention kit.
 * - Laser: the teacher's always, a student's only while the lesson allows it (this node's cached
 *   settings, no database read per packet); a refused packet gets a throttled
 *   `forbidden_by_policy` notice. The laser point also moves the sender's pointer on its board, so
 *   a client sends laser packets instead of cursor (or `board.pointer`) packets meanwhile. On the
 *   class board both go in the room's `cursors` batch; on a page in that page's `board.pointers`
 *   batch, to the page's channel only (I12): a class on another page never sees it.
 * - Follow: a student following the teacher's view is in the room's followers channel; the
 *   teacher's `viewport` packets are batched per tick and reach that channel only. "Bring
 *   everyone" and "presenting" are one `follow` signal to the room's students; the teacher hears
 *   how many follow after every change. Each view carries its page, so a student browsing freely
 *   on another page is not moved by a view of a page they are not on: their client takes them to
 *   the teacher's page first (apps/web/src/attention/attentionClient.ts).
 * - Late joiners: a presenting teacher's socket carries its latest view (`socket.data.presenting`),
 *   so a student whose socket starts while the teacher presents (joined late, reloaded,
 *   reconnected) is sent `presenting` with that view right after its sync and follows at once.
 *   It ends with the teacher's socket: a teacher who reloads stops presenting.
 */
/** Tells the room's teachers how many students follow now (every node's sockets counted). */
export async function tellFollowerCount(io: WbServer, roomId: string): Promise<void> {
  const count = (await io.in(followersChannel(roomId)).fetchSockets()).length;
  io.to(roleChannel(roomId, 'teacher')).emit(ServerEvent.FOLLOW, { kind: 'followers', count });
}

/** The view (and page) of a teacher of the room presenting now (any node's socket), or null when none presents. */
export async function presentingView(io: WbServer, roomId: string): Promise<PresentedView | null> {
  for (const teacher of await io.in(roleChannel(roomId, 'teacher')).fetchSockets()) if (teacher.data.presenting) return teacher.data.presenting;
  return null;
}

export function attentionHandlers(deps: { io: WbServer; fanout: EphemeralFanout; rights: DrawRights; access: BoardAccess }): Pick<ClientEventHandlers, AttentionEvents> {
  const { io, fanout, rights, access } = deps;
  const toStudents = (session: SocketSession, signal: FollowSignal) => io.to(roleChannel(session.roomId, 'student')).emit(ServerEvent.FOLLOW, signal);
  const tellFollowers = (roomId: string) => tellFollowerCount(io, roomId);
  const teacherOnly = (session: SocketSession) => {
    if (session.role !== 'teacher') throw new Refusal(TEACHER_ONLY);
  };
  /** A `boardId` of the kit: absent (the class board), or a page this socket reads now. */
  const onBoard = (session: SocketSession, boardId: string | undefined) =>
    boardId === undefined || (access.isPage(boardId) && access.mayDraw(session, boardId) !== 'forbidden');
  const onBoardOrRefuse = (session: SocketSession, boardId: string | undefined) => {
    if (!onBoard(session, boardId)) throw new Refusal(boardForbidden);
  };
  /** The `boardId` field to pass on: only when there is one (an old-shaped view stays as it was). */
  const on = (boardId: string | undefined) => (boardId === undefined ? {} : { boardId });
  return {
    [ClientEvent.LASER]: (session, { x, y, boardId }) => {
      if (!session.live) return;
      if (!onBoard(session, boardId)) return boardForbidden;
      const may = rights.mayLaser(session.roomId, session.role);
      if (may === false) return LASER_REFUSED;
      // Unknown until the room's settings are read (a few ms after its first packet): dropped.
      if (may === null) return;
      // On a page: the page's batch, to its channel only, and the sender's pointer there (not on
      // the class board). Every board takes the one fan-out, keyed by its id (ephemeralFanout.ts).
      const [board, kind] = boardId === undefined ? [session.roomId, 'class' as const] : [boardId, 'private' as const];
      fanout.pushLaser(board, session.userId, [session.sessionId, x, y], kind);
      fanout.pushCursor(board, session.userId, [session.sessionId, x, y], session.role, kind);
    },

    [ClientEvent.VIEWPORT]: (session, { boardId, ...view }) => {
      if (session.role !== 'teacher') return TEACHER_ONLY;
      if (!session.live) return;
      if (!onBoard(session, boardId)) return boardForbidden;
      // The view a student starting now follows from (presentingView).
      if (session.socket.data.presenting) session.socket.data.presenting = { view, ...on(boardId) };
      fanout.pushViewport(session.roomId, { sessionId: session.sessionId, view, ...on(boardId) });
    },

    [ClientEvent.FOLLOW_SET]: async (session, { following }) => {
      if (session.role === 'teacher') throw new Refusal({ code: ErrorCode.FORBIDDEN, message: 'The teacher leads; students follow.' });
      if (following) await session.socket.join(followersChannel(session.roomId));
      else await session.socket.leave(followersChannel(session.roomId));
      await tellFollowers(session.roomId);
      return { following };
    },

    [ClientEvent.FOLLOW_BRING]: async (session, { view, boardId }) => {
      teacherOnly(session);
      onBoardOrRefuse(session, boardId);
      toStudents(session, { kind: 'bring', view, ...on(boardId) });
      return {};
    },

    [ClientEvent.FOLLOW_PRESENT]: async (session, { presenting, view, boardId }) => {
      teacherOnly(session);
      onBoardOrRefuse(session, boardId);
      if (presenting) session.socket.data.presenting = { view, ...on(boardId) };
      else delete session.socket.data.presenting;
      toStudents(session, { kind: 'presenting', presenting, view, ...on(boardId) });
      if (!presenting) {
        // Presenting over: nobody follows any more.
        leaveEverywhere(io, followersChannel(session.roomId));
        await tellFollowers(session.roomId);
      }
      return { presenting };
    },
  };
}
