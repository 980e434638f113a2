import type { WbServer } from './types.ts';

/**
 * Socket.IO room names. A socket joins its room's, its session's and its member's channel, and its
 * role's channel in the room (cursors are filtered by role, see ephemeralFanout.ts).
 */
export const roomChannel = (roomId: string) => `room:${roomId}`;
export const sessionChannel = (sessionId: string) => `session:${sessionId}`;
export const memberChannel = (roomId: string, userId: string) => `member:${roomId}:${userId}`;
export const roleChannel = (roomId: string, role: 'teacher' | 'student') => `${role}s:${roomId}`;
/** The students of a room following the teacher's view (follow.set); viewport batches go here only. */
export const followersChannel = (roomId: string) => `followers:${roomId}`;
/**
 * The classmates reading a board shown to the class (not its owner, not a teacher): they get the
 * board's anonymous view (shownView.ts) here, never its room channel.
 */
export const shownChannel = (boardId: string) => `shown:${boardId}`;

/**
 * Every socket of every node leaves `channel`, this node's at once. The classic Redis adapter
 * applies a cross-node leave on every node, its own included, only when the message comes back
 * from Redis: a count taken right after would still find this node's sockets in the channel (a
 * teacher's "1 following" after she stopped presenting; a board hidden again still reaching this
 * node's classmates). Other nodes get the leave before any request this node publishes after it
 * (one connection to Redis, in order), so a later `fetchSockets` finds the channel empty everywhere.
 */
export function leaveEverywhere(io: WbServer, channel: string): void {
  io.local.in(channel).socketsLeave(channel);
  io.in(channel).socketsLeave(channel);
}
