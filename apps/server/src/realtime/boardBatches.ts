/**
 * Where a tick's private-board and page batches go (docs/boards.md, I12, I13): each board's
 * `board.pointers` to the board's Socket.IO channel (`roomChannel(boardId)`) only. A socket is in
 * that channel only after the store said it may see the board (its owner, the lesson's teachers,
 * the class while it is shown; a page's readers), so nothing of a private board reaches another
 * student before it is shown. On a page whose lesson does not show students everyone's cursor, the
 * fan-out makes a teachers' and a students' batch: each goes to the page's channel except the other
 * role's channel of the lesson (`roleChannel`), so the rule holds for a socket on any node. A socket of
 * this node that asked for `boards.pointers` in its handshake and follows two or more of the tick's
 * boards (a teacher's grid) gets them all in one message and is left out of those boards' own
 * broadcasts; every other socket, this node's or another's (through the adapter), gets one
 * `board.pointers` per board, encoded once for the whole channel. The classmates reading a shown
 * board get its anonymous view on its shown channel (shownView.ts). Volatile packets are dropped only
 * when a socket's outgoing queue is full (boundedVolatile.ts). The batches are made by the one
 * ephemeral fan-out (ephemeralFanout.ts), the class board's and every private board's.
 */
import { ServerEvent, type BoardPointers, type Role } from '@wb/protocol';
import { roleChannel, roomChannel, shownChannel } from './channels.ts';
import type { BoardBatch } from './ephemeralFanout.ts';
import { shownBatch, type ShownBoards } from './shownView.ts';
import type { WbServer } from './types.ts';

/** The role a batch is for (null: every reader of the board), and the role channel its broadcast leaves out. */
const roleOf = (b: BoardBatch): Role | null => (b.audience === 'board' ? null : b.audience === 'teachers' ? 'teacher' : 'student');

/** Sends one tick's batches (`EphemeralFanout`'s `BoardDelivery`). */
export function sendBoardBatches(io: WbServer, batches: readonly BoardBatch[], shown: ShownBoards): void {
  const grouped = batches.length > 1 ? groupedSockets(io, batches) : new Map<string, BoardPointers[]>();
  const leftOut = new Map<BoardPointers, string[]>();
  for (const [socketId, own] of grouped) {
    for (const batch of own) {
      const ids = leftOut.get(batch);
      if (ids) ids.push(socketId);
      else leftOut.set(batch, [socketId]);
    }
  }
  for (const b of batches) {
    const { batch } = b;
    const except = [...(leftOut.get(batch) ?? [])];
    // A page's teachers' batch leaves its students out, and its students' batch its teachers (I12).
    if (b.audience !== 'board') except.push(roleChannel(b.lessonId, b.audience === 'teachers' ? 'student' : 'teacher'));
    const channel = roomChannel(batch.boardId);
    (except.length > 0 ? io.to(channel).except(except) : io.to(channel)).volatile.emit(ServerEvent.BOARD_POINTERS, batch);
    // The class's view of a shown board: the same motion, nobody's ids (shownView.ts).
    if (b.audience === 'board' && shown.has(batch.boardId)) io.to(shownChannel(batch.boardId)).volatile.emit(ServerEvent.BOARD_POINTERS, shownBatch(batch));
  }
  const sockets = io.of('/').sockets;
  for (const [socketId, own] of grouped) sockets.get(socketId)?.volatile.emit(ServerEvent.BOARDS_POINTERS, { batches: own });
}

/**
 * This node's sockets that read `boards.pointers` and follow two or more of the tick's boards, with
 * those boards' batches: of a page's teachers' and students' batches, the one for the socket's role.
 */
function groupedSockets(io: WbServer, batches: readonly BoardBatch[]): Map<string, BoardPointers[]> {
  const channels = io.of('/').adapter.rooms;
  const sockets = io.of('/').sockets;
  const following = new Map<string, BoardPointers[]>();
  for (const b of batches) {
    const members = channels.get(roomChannel(b.batch.boardId));
    if (!members) continue;
    const role = roleOf(b);
    for (const socketId of members) {
      const data = sockets.get(socketId)?.data;
      if (!data?.groupsBoards || (role !== null && data.role !== role)) continue;
      let own = following.get(socketId);
      if (!own) following.set(socketId, (own = []));
      own.push(b.batch);
    }
  }
  for (const [socketId, own] of following) if (own.length < 2) following.delete(socketId);
  return following;
}
