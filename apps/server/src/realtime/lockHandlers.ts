import { ClientEvent, type DragEntry } from '@wb/protocol';
import type { Config } from '../config.ts';
import type { ClientEventHandlers } from './clientEvents.ts';
import type { EphemeralFanout } from './ephemeralFanout.ts';
import { actorOn, editRefusals, settleOn, type EditDeps } from './elementHandlers.ts';
import type { LockCache } from './lockCache.ts';
import { Refusal } from './requests.ts';
import { boardForbidden } from './boardHandlers.ts';
import type { SocketSession } from './socketSession.ts';

/** While dragging, a node extends the holder's lock at most this often (one write per second). */
const LOCK_EXTEND_EVERY_MS = 1_000;

export interface LockDeps extends EditDeps {
  config: Config;
  locks: LockCache;
  fanout: EphemeralFanout;
}

type LockEvents =
  | typeof ClientEvent.LOCK_ACQUIRE
  | typeof ClientEvent.LOCK_ACQUIRE_MANY
  | typeof ClientEvent.LOCK_MOVE
  | typeof ClientEvent.LOCK_RELEASE
  | typeof ClientEvent.LOCK_BREAK;

/**
 * Drag locks: acquire, the volatile moves under the current generation, release with the final
 * shape, and the teacher's break. Grants and commits are the store's; this node's `LockCache`
 * only drops moves of a generation that is not current (I4) and refuses an acquire of an element
 * that is surely held. Moves travel in the ephemeral fan-out with the cursors and are never stored;
 * a resize or turn in progress is a move with its `frame`, filtered and batched the same way.
 *
 * With `boardId` (docs/boards.md) the lock is on an element of that private board: the store
 * authorises it as an edit of the board (its owner, a teacher; `board_forbidden` otherwise, as
 * for element edits), its events go to the board's channel, and its moves travel in the board's
 * `board.pointers` batch (the one fan-out, keyed by board), so a drag on a private board reaches
 * the board's audience only (I12).
 */
/**
 * A refused grant (one lock or a group) as the protocol words it. A member without the right to the
 * board they named is `board_forbidden` (their lesson rights are decided elsewhere); without the
 * lesson's, their session ends.
 */
function refuseGrant(deps: EditDeps, session: SocketSession, boardId: string | undefined, decision: keyof typeof editRefusals): never {
  if (decision === 'not_a_member') {
    if (boardId) throw new Refusal(boardForbidden);
    deps.endRevoked(session);
  }
  throw new Refusal(editRefusals[decision]);
}

export function lockHandlers(deps: LockDeps): Pick<ClientEventHandlers, LockEvents> {
  const { store, config, publisher, locks, fanout } = deps;
  const settle = settleOn.bind(null, deps);
  return {
    [ClientEvent.LOCK_ACQUIRE]: async (session, request) => {
      const actor = actorOn(session, request.boardId);
      // Contention's common case costs no transaction: someone else certainly holds it right now.
      // Not on a private board: `locked` would tell a student who may not see it that it exists.
      if (!request.boardId && locks.heldByOther(actor.roomId, request.elementId, session.sessionId)) throw new Refusal(editRefusals.locked);
      const result = await store.acquireLock(actor, {
        elementId: request.elementId,
        requestId: request.requestId,
        firstTermMs: config.LOCK_FIRST_TERM_MS,
      });
      switch (result.decision) {
        case 'granted':
          publisher.publish(result.events);
          return { grant: { elementId: request.elementId, generation: result.generation, expiresInMs: result.expiresInMs } };
        case 'already_applied':
          return { grant: { elementId: request.elementId, generation: result.generation, expiresInMs: result.expiresInMs } };
        default:
          return refuseGrant(deps, session, request.boardId, result.decision);
      }
    },

    [ClientEvent.LOCK_ACQUIRE_MANY]: async (session, request) => {
      // No cache shortcut here: the refusal names the holder, which the database knows for sure.
      const result = await store.acquireLocks(actorOn(session, request.boardId), {
        elementIds: request.elementIds,
        requestId: request.requestId,
        firstTermMs: config.LOCK_FIRST_TERM_MS,
      });
      switch (result.decision) {
        case 'granted':
        case 'already_applied':
          if (result.decision === 'granted') publisher.publish(result.events);
          return {
            grants: result.grants.map((g) => ({ elementId: g.element.id, generation: g.generation, expiresInMs: g.expiresInMs })),
          };
        case 'locked':
          // On a board the holder is named only to those who may see it: the store refused a stranger first.
          throw new Refusal({ ...editRefusals.locked, heldBy: { elementId: result.elementId, userId: result.holderUserId } });
        default:
          return refuseGrant(deps, session, request.boardId, result.decision);
      }
    },

    [ClientEvent.LOCK_MOVE]: (session, move) => {
      if (!session.live) return;
      const { sessionId } = session;
      const roomId = move.boardId ?? session.roomId;
      const lock = locks.get(roomId, move.elementId);
      if (!lock) {
        // Unknown here (a restarted node): learn the current generation; this move is dropped.
        store.readLock(roomId, move.elementId).then(
          (current) => current && locks.set(roomId, move.elementId, current.sessionId, current.generation),
          () => {},
        );
        return;
      }
      // A former holder's late move, or a forged one, never moves the element (I4).
      if (lock.sessionId !== sessionId || lock.generation !== move.generation) return;
      // A resize or turn carries its frame: the same packet, rate and filter as a move.
      const drag: DragEntry = { elementId: move.elementId, generation: move.generation, sessionId, userId: session.userId, x: move.x, y: move.y };
      if (move.frame) drag.frame = move.frame;
      fanout.pushDrag(roomId, drag, move.boardId ? 'private' : 'class');
      const now = performance.now();
      if (now - lock.lastExtendedAt < LOCK_EXTEND_EVERY_MS) return;
      // The first move confirms the grant arrived; later ones keep the lease alive while dragging.
      lock.lastExtendedAt = now;
      store
        .extendLock({ roomId, elementId: move.elementId, sessionId, generation: move.generation, ttlMs: config.LOCK_TTL_MS })
        .then(
          (extended) => {
            if (extended) locks.extended(roomId, move.elementId, move.generation, now);
          },
          () => {
            lock.lastExtendedAt = 0; // retry on the next move
          },
        );
    },

    [ClientEvent.LOCK_RELEASE]: async (session, request) => {
      const actor = actorOn(session, request.boardId);
      const result = await store.releaseLock(actor, {
        elementId: request.elementId,
        generation: request.generation,
        shape: request.shape,
        requestId: request.requestId,
      });
      fanout.forgetDrag(actor.roomId, request.elementId);
      return settle(session, request.boardId, result);
    },

    [ClientEvent.LOCK_BREAK]: async (session, request) =>
      settle(session, request.boardId, await store.breakLock(actorOn(session, request.boardId), { elementId: request.elementId })),
  };
}
