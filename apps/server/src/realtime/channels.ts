/** Socket.IO room names. A socket joins its room's, its session's and its member's channel. */
export const roomChannel = (roomId: string) => `room:${roomId}`;
export const sessionChannel = (sessionId: string) => `session:${sessionId}`;
export const memberChannel = (roomId: string, userId: string) => `member:${roomId}:${userId}`;
