import { ClientEvent } from '@wb/protocol';
import type { ClientEventHandlers } from './clientEvents.ts';
import type { EphemeralFanout } from './ephemeralFanout.ts';

/**
 * Cursor packets: nearly all of a busy node's inbound traffic (30 a second per user), volatile and
 * never stored. The hot path, per packet: the gate, `readCursorUpdate` (clientEvents.ts), then
 * this handler, which allocates only the wire entry and looks nothing up but the room's batch.
 */
export function cursorHandlers(fanout: EphemeralFanout): Pick<ClientEventHandlers, typeof ClientEvent.CURSOR> {
  return {
    [ClientEvent.CURSOR]: (session, { x, y, t }) => {
      // Only a session with a live lease has a cursor (a revoked or expired one has none).
      if (!session.live) return;
      fanout.pushCursor(session.roomId, session.userId, t === undefined ? [session.sessionId, x, y] : [session.sessionId, x, y, t], session.role);
    },
  };
}
