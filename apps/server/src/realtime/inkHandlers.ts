import { ClientEvent, ErrorCode, policyText, type ProtocolError } from '@wb/protocol';
import type { Metrics } from '../metrics.ts';
import type { BoardAccess } from './boardAccess.ts';
import { boardForbidden } from './boardHandlers.ts';
import type { ClientEventHandlers } from './clientEvents.ts';
import type { DrawRights, InkRefusal } from './drawRights.ts';
import type { EphemeralFanout } from './ephemeralFanout.ts';

/** The refusal of a student's ink, by the rule that refused it (the same codes as element.create's). */
const INK_REFUSALS: Record<InkRefusal, ProtocolError> = {
  lookOnly: { code: ErrorCode.FORBIDDEN_BY_POLICY, message: policyText.lookOnly },
  penMuted: { code: ErrorCode.FORBIDDEN_BY_POLICY, message: policyText.penMuted },
  lessonClosed: { code: ErrorCode.FORBIDDEN_BY_POLICY, message: policyText.lookOnly },
};

/**
 * Live ink: the points of a stroke being drawn, on the ephemeral path (I13). Like a cursor packet
 * it passes the packet gate (rate limit) and its schema, needs a live lease, is batched per room
 * tick and is never stored. It also moves the drawer's cursor to the stroke's newest point, so a
 * drawing client sends no cursor packets beside its ink.
 *
 * Only a member allowed to draw may send it: the check is this node's `DrawRights` (no database
 * read per packet); a refused packet gets a throttled `forbidden_by_policy` notice. The durable stroke is
 * decided separately, inside `element.create`'s conditional write (I11).
 *
 * Ink naming a private board (`boardId`, docs/boards.md) takes the same fan-out keyed by the board,
 * and goes to that board's audience only, in its `board.pointers` batch: from its owner while the
 * activity runs, or a teacher;
 * anyone else's is refused `board_forbidden`, a frozen board's owner's `forbidden_by_policy`. The
 * lesson's muted pen and end hold on every board; its edit policy holds on the class board and the
 * lesson's other pages, not on a private board (which has its own).
 */
export function inkHandlers(deps: {
  fanout: EphemeralFanout;
  rights: DrawRights;
  metrics: Metrics;
  access: BoardAccess;
}): Pick<ClientEventHandlers, typeof ClientEvent.INK> {
  const { fanout, rights, metrics, access } = deps;
  return {
    [ClientEvent.INK]: (session, update) => {
      if (!session.live) return;
      const { roomId, sessionId, userId } = session;
      const boardId = update.boardId;
      if (boardId !== undefined) {
        const onBoard = access.mayDraw(session, boardId);
        if (onBoard === 'forbidden') return boardForbidden;
        if (onBoard === 'frozen') return INK_REFUSALS.lookOnly;
      }
      // A page takes the lesson's edit policy (docs/boards.md "Pages"); a private board has its own.
      const onPrivateBoard = boardId !== undefined && !access.isPage(boardId);
      const may = rights.mayDraw(roomId, session.role, userId, onPrivateBoard);
      if (may !== true && may !== null) return INK_REFUSALS[may];
      // Unknown until the room's rights are read (a few ms after the room's first packet): dropped.
      if (may === null) return;
      const entry = { strokeId: update.strokeId, sessionId, from: update.from, points: update.points, stroke: update.stroke, strokeWidth: update.strokeWidth, ...(update.end ? { end: update.end } : {}) };
      const board = boardId ?? roomId;
      const kind = boardId === undefined ? 'class' : 'private';
      if (!fanout.pushInk(board, userId, entry, kind)) {
        metrics.droppedInkPoints.inc(update.points.length);
        return;
      }
      metrics.inkPoints.inc(update.points.length);
      // The ink moves the drawer's cursor (pointer) on the board it is drawn on.
      const last = update.points.at(-1);
      if (last) fanout.pushCursor(board, userId, [sessionId, last[0], last[1]], session.role, kind);
    },
  };
}
