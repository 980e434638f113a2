import type { Store } from '@wb/db';
import { ClientEvent, ErrorCode, MAX_HISTORY_ENTRIES, forbiddenText, refusalText } from '@wb/protocol';
import type { ClientEventHandlers } from './clientEvents.ts';
import { editRefusals, settleEdit, type EditDeps } from './elementHandlers.ts';
import { Refusal } from './requests.ts';
import type { SocketSession } from './socketSession.ts';

type AuthorityEvents =
  | typeof ClientEvent.LESSON_SETTINGS
  | typeof ClientEvent.MEMBER_PEN
  | typeof ClientEvent.HISTORY_LIST
  | typeof ClientEvent.ELEMENT_RESTORE
  | typeof ClientEvent.BOARD_CLEAR
  | typeof ClientEvent.BATCH_RESTORE
  | typeof ClientEvent.LESSON_END
  | typeof ClientEvent.LESSON_REOPEN;

/** The history's entries answered when a request names no limit. */
const DEFAULT_HISTORY_ENTRIES = 100;

/**
 * The teacher's authority over the board: the lesson's settings (edit policy), a student's pen,
 * the board's history and its restores. Every rule is the store's, decided inside its conditional
 * write (I11); a student's packet gets the same refusal as the teacher-only button would.
 */
export function authorityHandlers(deps: EditDeps & { store: Store }): Pick<ClientEventHandlers, AuthorityEvents> {
  const { store, publisher } = deps;
  /** The refusals every teacher-only operation shares. */
  const refuse = (session: SocketSession, decision: 'not_a_member' | 'forbidden'): never => {
    if (decision === 'not_a_member') deps.endRevoked(session);
    throw new Refusal(editRefusals[decision]);
  };
  return {
    [ClientEvent.LESSON_SETTINGS]: async (session, request) => {
      const result = await store.setLessonSettings(session.actor, request.settings);
      switch (result.decision) {
        case 'applied':
          publisher.publish(result.events);
          return { settings: result.room.settings };
        case 'already_applied':
          return { settings: result.room.settings };
        default:
          return refuse(session, result.decision);
      }
    },

    [ClientEvent.MEMBER_PEN]: async (session, request) => {
      const result = await store.setPenMuted(session.actor, { userId: request.userId, muted: request.muted });
      switch (result.decision) {
        case 'applied':
          publisher.publish(result.events);
          return { member: result.member };
        case 'already_applied':
          return { member: result.member };
        case 'not_found':
          throw new Refusal({ code: ErrorCode.NOT_FOUND, message: 'No such member in this lesson.' });
        case 'not_a_student':
          throw new Refusal({ code: ErrorCode.FORBIDDEN, message: 'Only a student\'s pen can be muted.' });
        default:
          return refuse(session, result.decision);
      }
    },

    [ClientEvent.HISTORY_LIST]: async (session, request) => {
      // A read, but the teacher's alone: the history names every student's changes.
      if (session.role !== 'teacher') throw new Refusal({ code: ErrorCode.FORBIDDEN, message: forbiddenText.teacherOnly });
      const limit = Math.min(request.limit ?? DEFAULT_HISTORY_ENTRIES, MAX_HISTORY_ENTRIES);
      return { entries: await store.listHistory(session.roomId, { by: request.by, limit }) };
    },

    [ClientEvent.ELEMENT_RESTORE]: async (session, request) =>
      settleEdit(deps, session, await store.restoreElementVersion(session.actor, { elementId: request.elementId, version: request.version })),

    [ClientEvent.BOARD_CLEAR]: async (session, request) => {
      const result = await store.clearBoard(session.actor, { of: request.of });
      if (result.decision !== 'applied') return refuse(session, result.decision);
      publisher.publish(result.events);
      return { batchId: result.batchId, count: result.count };
    },

    [ClientEvent.BATCH_RESTORE]: async (session, request) => {
      const result = await store.restoreBatch(session.actor, { batchId: request.batchId });
      if (result.decision === 'not_found') throw new Refusal({ code: ErrorCode.NOT_FOUND, message: refusalText.not_found });
      if (result.decision === 'board_full') throw new Refusal(editRefusals.board_full);
      if (result.decision !== 'applied') return refuse(session, result.decision);
      publisher.publish(result.events);
      return { count: result.count };
    },

    [ClientEvent.LESSON_END]: async (session) => {
      const result = await store.endLesson(session.actor);
      switch (result.decision) {
        case 'applied':
          publisher.publish(result.events);
          return { room: result.room };
        case 'already_applied':
          return { room: result.room };
        default:
          return refuse(session, result.decision);
      }
    },

    [ClientEvent.LESSON_REOPEN]: async (session) => {
      const result = await store.reopenLesson(session.actor);
      switch (result.decision) {
        case 'applied':
          publisher.publish(result.events);
          return { room: result.room };
        case 'already_applied':
          return { room: result.room };
        default:
          return refuse(session, result.decision);
      }
    },
  };
}
