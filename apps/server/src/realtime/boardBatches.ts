/**
 * Where a tick's private-board batches go (docs/boards.md, I12, I13): each board's `board.pointers`
 * to the board's Socket.IO channel (`roomChannel(boardId)`) only. A socket is in that channel only
 * after the store said it may see the board (its owner, the lesson's teachers, the class while it
 * is shown), so nothing of a private board reaches another student before it is shown. A socket of
 * this node that asked for `boards.pointers` in its handshake and follows two or more of the tick's
 * boards (a teacher's grid) gets them all in one message and is left out of those boards' own
 * broadcasts; every other socket, this node's or another's (through the adapter), gets one
 * `board.pointers` per board, encoded once for the whole channel. The classmates reading a shown
 * board get its anonymous view on its shown channel (shownView.ts). Volatile packets are dropped only
 * when a socket's outgoing queue is full (boundedVolatile.ts). The batches are made by the one
 * ephemeral fan-out (ephemeralFanout.ts), the class board's and every private board's.
 */
import { ServerEvent, type BoardPointers } from '@wb/protocol';
import { roomChannel, shownChannel } from './channels.ts';
import { shownBatch, type ShownBoards } from './shownView.ts';
import type { WbServer } from './types.ts';

/** Sends one tick's batches (`EphemeralFanout`'s `BoardDelivery`). */
export function sendBoardBatches(io: WbServer, batches: readonly BoardPointers[], shown: ShownBoards): void {
  const grouped = batches.length > 1 ? groupedSockets(io, batches) : new Map<string, BoardPointers[]>();
  const leftOut = new Map<BoardPointers, string[]>();
  for (const [socketId, own] of grouped) {
    for (const batch of own) {
      const ids = leftOut.get(batch);
      if (ids) ids.push(socketId);
      else leftOut.set(batch, [socketId]);
    }
  }
  for (const batch of batches) {
    const channel = roomChannel(batch.boardId);
    const except = leftOut.get(batch);
    (except ? io.to(channel).except(except) : io.to(channel)).volatile.emit(ServerEvent.BOARD_POINTERS, batch);
    // The class's view of a shown board: the same motion, nobody's ids (shownView.ts).
    if (shown.has(batch.boardId)) io.to(shownChannel(batch.boardId)).volatile.emit(ServerEvent.BOARD_POINTERS, shownBatch(batch));
  }
  const sockets = io.of('/').sockets;
  for (const [socketId, own] of grouped) sockets.get(socketId)?.volatile.emit(ServerEvent.BOARDS_POINTERS, { batches: own });
}

/** This node's sockets that read `boards.pointers` and follow two or more of the tick's boards, with those boards' batches. */
function groupedSockets(io: WbServer, batches: readonly BoardPointers[]): Map<string, BoardPointers[]> {
  const channels = io.of('/').adapter.rooms;
  const sockets = io.of('/').sockets;
  const following = new Map<string, BoardPointers[]>();
  for (const batch of batches) {
    const members = channels.get(roomChannel(batch.boardId));
    if (!members) continue;
    for (const socketId of members) {
      if (!sockets.get(socketId)?.data.groupsBoards) continue;
      let own = following.get(socketId);
      if (!own) following.set(socketId, (own = []));
      own.push(batch);
    }
  }
  for (const [socketId, own] of following) if (own.length < 2) following.delete(socketId);
  return following;
}
