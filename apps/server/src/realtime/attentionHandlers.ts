import { ClientEvent, ErrorCode, ServerEvent, forbiddenText, type FollowSignal, type ProtocolError, type SharedView } from '@wb/protocol';
import { followersChannel, leaveEverywhere, roleChannel } from './channels.ts';
import type { ClientEventHandlers } from './clientEvents.ts';
import type { DrawRights } from './drawRights.ts';
import type { EphemeralFanout } from './ephemeralFanout.ts';
import { Refusal } from './requests.ts';
import type { SocketSession } from './socketSession.ts';
import type { WbServer } from './types.ts';

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
 * packet gate like a cursor.
 * - Laser: the teacher's always, a student's only while the lesson allows it (this node's cached
 *   settings, no database read per packet); a refused packet gets a throttled
 *   `forbidden_by_policy` notice. The laser point also moves the sender's cursor, so a client
 *   sends laser packets instead of cursor packets meanwhile.
 * - Follow: a student following the teacher's view is in the room's followers channel; the
 *   teacher's `viewport` packets are batched per tick and reach that channel only. "Bring
 *   everyone" and "presenting" are one `follow` signal to the room's students; the teacher hears
 *   how many follow after every change.
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

/** The view of a teacher of the room presenting now (any node's socket), or null when none presents. */
export async function presentingView(io: WbServer, roomId: string): Promise<SharedView | null> {
  for (const teacher of await io.in(roleChannel(roomId, 'teacher')).fetchSockets()) if (teacher.data.presenting) return teacher.data.presenting;
  return null;
}

export function attentionHandlers(deps: { io: WbServer; fanout: EphemeralFanout; rights: DrawRights }): Pick<ClientEventHandlers, AttentionEvents> {
  const { io, fanout, rights } = deps;
  const toStudents = (session: SocketSession, signal: FollowSignal) => io.to(roleChannel(session.roomId, 'student')).emit(ServerEvent.FOLLOW, signal);
  const tellFollowers = (roomId: string) => tellFollowerCount(io, roomId);
  const teacherOnly = (session: SocketSession) => {
    if (session.role !== 'teacher') throw new Refusal(TEACHER_ONLY);
  };
  return {
    [ClientEvent.LASER]: (session, { x, y }) => {
      if (!session.live) return;
      const may = rights.mayLaser(session.roomId, session.role);
      if (may === false) return LASER_REFUSED;
      // Unknown until the room's settings are read (a few ms after its first packet): dropped.
      if (may === null) return;
      fanout.pushLaser(session.roomId, session.userId, [session.sessionId, x, y]);
      fanout.pushCursor(session.roomId, session.userId, [session.sessionId, x, y], session.role);
    },

    [ClientEvent.VIEWPORT]: (session, view) => {
      if (session.role !== 'teacher') return TEACHER_ONLY;
      if (!session.live) return;
      // The view a student starting now follows from (presentingView).
      if (session.socket.data.presenting) session.socket.data.presenting = view;
      fanout.pushViewport(session.roomId, { sessionId: session.sessionId, view });
    },

    [ClientEvent.FOLLOW_SET]: async (session, { following }) => {
      if (session.role === 'teacher') throw new Refusal({ code: ErrorCode.FORBIDDEN, message: 'The teacher leads; students follow.' });
      if (following) await session.socket.join(followersChannel(session.roomId));
      else await session.socket.leave(followersChannel(session.roomId));
      await tellFollowers(session.roomId);
      return { following };
    },

    [ClientEvent.FOLLOW_BRING]: async (session, { view }) => {
      teacherOnly(session);
      toStudents(session, { kind: 'bring', view });
      return {};
    },

    [ClientEvent.FOLLOW_PRESENT]: async (session, { presenting, view }) => {
      teacherOnly(session);
      if (presenting) session.socket.data.presenting = view;
      else delete session.socket.data.presenting;
      toStudents(session, { kind: 'presenting', presenting, view });
      if (!presenting) {
        // Presenting over: nobody follows any more.
        leaveEverywhere(io, followersChannel(session.roomId));
        await tellFollowers(session.roomId);
      }
      return { presenting };
    },
  };
}
