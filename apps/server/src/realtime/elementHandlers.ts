import type { EditActor, ElementResult, Store } from '@wb/db';
import {
  BoardLockRequest,
  BreakLockRequest,
  ClientEvent,
  CreateElementRequest,
  DeleteElementRequest,
  ErrorCode,
  LockAcquireRequest,
  LockMove,
  LockReleaseRequest,
  PinElementRequest,
  UpdateElementRequest,
  forbiddenText,
  parsePacket,
  refusalText,
  type ElementReply,
  type LockGrant,
  type ProtocolError,
} from '@wb/protocol';
import type { z } from 'zod';
import type { Config } from '../config.ts';
import type { CursorFanout } from './cursorFanout.ts';
import type { LockCache } from './lockCache.ts';
import { Refusal, acked, type AckContext } from './requests.ts';
import type { RoomPublisher } from './roomPublisher.ts';
import type { WbSocket } from './types.ts';

/** While dragging, a node extends the holder's lock at most this often (one write per second). */
const LOCK_EXTEND_EVERY_MS = 1_000;

/** Each store refusal as the protocol words it (one source of texts: `refusalTexts.ts`). */
const refusals: Record<Exclude<ElementResult['decision'], 'applied' | 'already_applied'>, ProtocolError> = {
  not_a_member: { code: ErrorCode.MEMBERSHIP_REVOKED, message: refusalText.membership_revoked },
  board_locked: { code: ErrorCode.FORBIDDEN, message: forbiddenText.boardLocked },
  pinned: { code: ErrorCode.FORBIDDEN, message: forbiddenText.pinned },
  locked: { code: ErrorCode.LOCKED, message: refusalText.locked },
  conflict: { code: ErrorCode.CONFLICT, message: refusalText.conflict },
  not_found: { code: ErrorCode.NOT_FOUND, message: refusalText.not_found },
  stale_generation: { code: ErrorCode.STALE_GENERATION, message: refusalText.stale_generation },
  forbidden: { code: ErrorCode.FORBIDDEN, message: forbiddenText.teacherOnly },
};

export interface ElementHandlerDeps {
  store: Store;
  config: Config;
  publisher: RoomPublisher;
  cursors: CursorFanout;
  locks: LockCache;
  context: AckContext;
  /** Ends a session whose membership turned out to be revoked. */
  endSession(socket: WbSocket): void;
}

/**
 * Element editing and drag locks for one socket. Thin: validate, authorize (in the store's
 * conditional write), one store operation, publish. Drag moves are volatile and never stored.
 */
export function registerElementHandlers(socket: WbSocket, deps: ElementHandlerDeps): void {
  const { store, config, publisher, cursors, locks, context } = deps;
  const data = socket.data;
  const actor = (): EditActor => ({ roomId: data.roomId, sessionId: data.sessionId, userId: data.userId });

  const parse = <S extends z.ZodType>(schema: S, packet: unknown): z.infer<S> => {
    const parsed = parsePacket(schema, packet);
    if (!parsed.ok) throw new Refusal(parsed.error);
    return parsed.value;
  };

  /** Publishes an applied result and answers with the element; refusals become typed errors. */
  const settle = (result: ElementResult): ElementReply => {
    if (result.decision === 'applied') publisher.publish(result.events);
    if (result.decision === 'applied' || result.decision === 'already_applied') return { element: result.element };
    if (result.decision === 'not_a_member') deps.endSession(socket);
    throw new Refusal(refusals[result.decision]);
  };

  const on = <T>(event: string, handler: (packet: unknown) => Promise<T>) =>
    socket.on(event as never, acked(context, event, handler) as never);

  on<ElementReply>(ClientEvent.ELEMENT_CREATE, async (packet) => {
    const request = parse(CreateElementRequest, packet);
    return settle(await store.createElement(actor(), { id: request.id, shape: request.shape }));
  });

  on<ElementReply>(ClientEvent.ELEMENT_UPDATE, async (packet) => {
    const request = parse(UpdateElementRequest, packet);
    return settle(await store.updateElement(actor(), request));
  });

  on<ElementReply>(ClientEvent.ELEMENT_DELETE, async (packet) => {
    const request = parse(DeleteElementRequest, packet);
    return settle(await store.deleteElement(actor(), { id: request.id }));
  });

  on<{ grant: LockGrant }>(ClientEvent.LOCK_ACQUIRE, async (packet) => {
    const request = parse(LockAcquireRequest, packet);
    // Contention's common case costs no transaction: someone else certainly holds it right now.
    if (locks.heldByOther(data.roomId, request.elementId, data.sessionId)) throw new Refusal(refusals.locked);
    const result = await store.acquireLock(actor(), {
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
      case 'locked':
      case 'not_found':
      case 'pinned':
      case 'board_locked':
        throw new Refusal(refusals[result.decision]);
      case 'not_a_member':
        deps.endSession(socket);
        throw new Refusal(refusals.not_a_member);
    }
  });

  socket.on(ClientEvent.LOCK_MOVE, (packet: unknown) => {
    const parsed = parsePacket(LockMove, packet);
    if (!parsed.ok) return context.refused(parsed.error.code);
    if (!data.leaseLive) return;
    const move = parsed.value;
    const lock = locks.get(data.roomId, move.elementId);
    if (!lock) {
      // Unknown here (a restarted node): learn the current generation; this move is dropped.
      store.readLock(data.roomId, move.elementId).then(
        (current) => current && locks.set(data.roomId, move.elementId, current.sessionId, current.generation),
        () => {},
      );
      return;
    }
    // A former holder's late move, or a forged one, never moves the element (I4).
    if (lock.sessionId !== data.sessionId || lock.generation !== move.generation) return;
    cursors.pushDrag(data.roomId, {
      elementId: move.elementId,
      generation: move.generation,
      sessionId: data.sessionId,
      userId: data.userId,
      x: move.x,
      y: move.y,
    });
    const now = performance.now();
    if (now - lock.lastExtendedAt < LOCK_EXTEND_EVERY_MS) return;
    // The first move confirms the grant arrived; later ones keep the lease alive while dragging.
    lock.lastExtendedAt = now;
    store
      .extendLock({
        roomId: data.roomId,
        elementId: move.elementId,
        sessionId: data.sessionId,
        generation: move.generation,
        ttlMs: config.LOCK_TTL_MS,
      })
      .then(
        (extended) => {
          if (extended) locks.extended(data.roomId, move.elementId, move.generation, now);
        },
        () => {
          lock.lastExtendedAt = 0; // retry on the next move
        },
      );
  });

  on<ElementReply>(ClientEvent.LOCK_RELEASE, async (packet) => {
    const request = parse(LockReleaseRequest, packet);
    const result = await store.releaseLock(actor(), {
      elementId: request.elementId,
      generation: request.generation,
      shape: request.shape,
      requestId: request.requestId,
    });
    cursors.forgetDrag(data.roomId, request.elementId);
    return settle(result);
  });

  on<ElementReply>(ClientEvent.ELEMENT_PIN, async (packet) => {
    const request = parse(PinElementRequest, packet);
    return settle(await store.setElementPinned(actor(), { id: request.elementId, pinned: request.pinned }));
  });

  on<ElementReply>(ClientEvent.LOCK_BREAK, async (packet) => {
    const request = parse(BreakLockRequest, packet);
    return settle(await store.breakLock(actor(), { elementId: request.elementId }));
  });

  on<{ locked: boolean }>(ClientEvent.BOARD_LOCK, async (packet) => {
    const request = parse(BoardLockRequest, packet);
    const result = await store.setBoardLocked(actor(), request.locked);
    switch (result.decision) {
      case 'applied':
        publisher.publish(result.events);
        return { locked: result.locked };
      case 'already_applied':
        return { locked: result.locked };
      case 'forbidden':
        throw new Refusal(refusals.forbidden);
      case 'not_a_member':
        deps.endSession(socket);
        throw new Refusal(refusals.not_a_member);
    }
  });
}
