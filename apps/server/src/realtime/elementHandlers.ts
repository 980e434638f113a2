import type { ElementResult, Store } from '@wb/db';
import {
  ClientEvent,
  ErrorCode,
  forbiddenText,
  policyText,
  refusalText,
  type ElementReply,
  type ProtocolError,
} from '@wb/protocol';
import type { ClientEventHandlers } from './clientEvents.ts';
import { boardForbidden } from './boardHandlers.ts';
import { CreateQueueFull, type CreateBatcher } from './createBatcher.ts';
import { Refusal } from './requests.ts';
import type { RoomPublisher } from './roomPublisher.ts';
import type { SocketSession } from './socketSession.ts';

/** Each store refusal of an edit as the protocol words it (one source of texts: `refusalTexts.ts`). */
export const editRefusals: Record<Exclude<ElementResult['decision'], 'applied' | 'already_applied'>, ProtocolError> = {
  not_a_member: { code: ErrorCode.MEMBERSHIP_REVOKED, message: refusalText.membership_revoked },
  look_only: { code: ErrorCode.FORBIDDEN_BY_POLICY, message: policyText.lookOnly },
  pen_muted: { code: ErrorCode.FORBIDDEN_BY_POLICY, message: policyText.penMuted },
  not_own: { code: ErrorCode.FORBIDDEN_BY_POLICY, message: policyText.notOwn },
  feedback: { code: ErrorCode.FEEDBACK_LOCKED, message: refusalText.feedback_locked },
  pinned: { code: ErrorCode.FORBIDDEN, message: forbiddenText.pinned },
  locked: { code: ErrorCode.LOCKED, message: refusalText.locked },
  conflict: { code: ErrorCode.CONFLICT, message: refusalText.conflict },
  not_found: { code: ErrorCode.NOT_FOUND, message: refusalText.not_found },
  stale_generation: { code: ErrorCode.STALE_GENERATION, message: refusalText.stale_generation },
  forbidden: { code: ErrorCode.FORBIDDEN, message: forbiddenText.teacherOnly },
  board_full: { code: ErrorCode.BOARD_FULL, message: refusalText.board_full },
  image_unknown: { code: ErrorCode.IMAGE_UNKNOWN, message: refusalText.image_unknown },
};

export interface EditDeps {
  store: Store;
  publisher: RoomPublisher;
  /** Ends a session whose membership turned out to be revoked. */
  endRevoked(session: SocketSession): void;
}

/** Publishes an applied edit and answers with the element; a refusal becomes its typed error. */
export function settleEdit(deps: EditDeps, session: SocketSession, result: ElementResult): ElementReply {
  if (result.decision === 'applied') deps.publisher.publish(result.events);
  if (result.decision === 'applied' || result.decision === 'already_applied') return { element: result.element };
  if (result.decision === 'not_a_member') deps.endRevoked(session);
  throw new Refusal(editRefusals[result.decision]);
}

/**
 * An edit of a private board (`boardId`, docs/boards.md): the actor names the board as its room,
 * and the store decides in the same conditional write whether this member may change it. A refusal
 * for want of that right is `board_forbidden` (the member is not ended: their lesson rights hold).
 */
export function settleBoardEdit(deps: EditDeps, result: ElementResult): ElementReply {
  if (result.decision === 'applied') deps.publisher.publish(result.events);
  if (result.decision === 'applied' || result.decision === 'already_applied') return { element: result.element };
  throw new Refusal(result.decision === 'not_a_member' ? boardForbidden : editRefusals[result.decision]);
}

/**
 * The one path of every element and lock request: the board it names (`boardId`; absent, the
 * class board) becomes the actor's room, and the store decides the right to it (I11) in the
 * request's own conditional write. Nothing else in the handlers tells boards apart.
 */
export const actorOn = (session: SocketSession, boardId: string | undefined): SocketSession['actor'] =>
  boardId ? { ...session.actor, roomId: boardId } : session.actor;

/** The outcome of an edit on the board it named (`settleEdit` on the class board, `settleBoardEdit` on a private one). */
export const settleOn = (deps: EditDeps, session: SocketSession, boardId: string | undefined, result: ElementResult): ElementReply =>
  boardId ? settleBoardEdit(deps, result) : settleEdit(deps, session, result);

type ElementEvents =
  | typeof ClientEvent.ELEMENT_CREATE
  | typeof ClientEvent.ELEMENT_UPDATE
  | typeof ClientEvent.ELEMENT_DELETE
  | typeof ClientEvent.ELEMENT_PIN;

/**
 * Element edits: create, versioned update, delete, pin. Thin:
 * validated at the edge, authorized inside the store's conditional write, one store operation,
 * then the outcome published.
 */
export function elementHandlers(deps: EditDeps & { creates: CreateBatcher }): Pick<ClientEventHandlers, ElementEvents> {
  const { store, creates } = deps;
  return {
    // Batched per lesson (createBatcher.ts): the creates of a tick, on the class board and on
    // the lesson's private boards, share one transaction; the store decides each board's right.
    [ClientEvent.ELEMENT_CREATE]: async (session, request) => {
      const actor = actorOn(session, request.boardId);
      let result: ElementResult;
      try {
        result = await creates.submit({ actor, id: request.id, shape: request.shape }, session.actor.roomId);
      } catch (error) {
        if (error instanceof CreateQueueFull) throw new Refusal({ code: ErrorCode.BUSY, message: refusalText.busy });
        throw error;
      }
      return settleOn(deps, session, request.boardId, result);
    },

    [ClientEvent.ELEMENT_UPDATE]: async (session, { boardId, ...request }) =>
      settleOn(deps, session, boardId, await store.updateElement(actorOn(session, boardId), request)),

    [ClientEvent.ELEMENT_DELETE]: async (session, { boardId, ...request }) =>
      settleOn(deps, session, boardId, await store.deleteElement(actorOn(session, boardId), { id: request.id, erased: request.erased === true })),

    [ClientEvent.ELEMENT_PIN]: async (session, { boardId, ...request }) =>
      settleOn(deps, session, boardId, await store.setElementPinned(actorOn(session, boardId), { id: request.elementId, pinned: request.pinned })),

  };
}
