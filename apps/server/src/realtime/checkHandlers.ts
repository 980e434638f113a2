import type { Store } from '@wb/db';
import { ClientEvent, ErrorCode, ServerEvent, forbiddenText, refusalText, type ProtocolError } from '@wb/protocol';
import { roleChannel } from './channels.ts';
import type { ClientEventHandlers } from './clientEvents.ts';
import type { EditDeps } from './elementHandlers.ts';
import { Refusal } from './requests.ts';
import type { SocketSession } from './socketSession.ts';
import type { WbServer } from './types.ts';

type CheckEvents =
  | typeof ClientEvent.TIMER_SET
  | typeof ClientEvent.CLOCK_NOW
  | typeof ClientEvent.POLL_OPEN
  | typeof ClientEvent.POLL_ANSWER
  | typeof ClientEvent.POLL_CLOSE
  | typeof ClientEvent.POLL_SHOW
  | typeof ClientEvent.POLL_GET
  | typeof ClientEvent.BOARD_FLAG;

/** The refusals of this module, each a documented code (docs/protocol.md, "Timer, polls and flags"). */
export const checkRefusals = {
  teacherOnly: { code: ErrorCode.FORBIDDEN, message: forbiddenText.teacherOnly },
  studentsAnswer: { code: ErrorCode.FORBIDDEN, message: forbiddenText.studentsAnswer },
  teacherClearsFlags: { code: ErrorCode.FORBIDDEN, message: forbiddenText.teacherFlag },
  noPoll: { code: ErrorCode.NOT_FOUND, message: 'No such poll in this lesson.' },
  pollClosed: { code: ErrorCode.POLL_CLOSED, message: refusalText.poll_closed },
  badAnswer: { code: ErrorCode.BAD_REQUEST, message: 'Answer with one of the poll\u2019s choices (or, for a typed poll, a short text).' },
  boardForbidden: { code: ErrorCode.BOARD_FORBIDDEN, message: refusalText.board_forbidden },
} as const satisfies Record<string, ProtocolError>;

/**
 * The timer, quick polls and flags (the store's checks.ts). Validate, one store operation, publish
 * its events. The lesson's teachers also get `poll.answers` with each answer (who gave it): the
 * class's `poll.updated` carries counts only.
 */
export function checkHandlers(deps: EditDeps & { store: Store; io: WbServer }): Pick<ClientEventHandlers, CheckEvents> {
  const { store, publisher, io } = deps;
  const revoked = (session: SocketSession): never => {
    deps.endRevoked(session);
    throw new Refusal({ code: ErrorCode.MEMBERSHIP_REVOKED, message: refusalText.membership_revoked });
  };
  const teacherPollChange = async (session: SocketSession, change: Promise<Awaited<ReturnType<Store['closePoll']>>>) => {
    const result = await change;
    switch (result.decision) {
      case 'applied':
        publisher.publish(result.events);
        return { poll: result.poll };
      case 'already_applied':
        return { poll: result.poll };
      case 'not_found':
        throw new Refusal(checkRefusals.noPoll);
      case 'forbidden':
        throw new Refusal(checkRefusals.teacherOnly);
      case 'not_a_member':
        return revoked(session);
    }
  };
  return {
    [ClientEvent.TIMER_SET]: async (session, request) => {
      const result = await store.setTimer(session.actor, request.timer, request.requestId);
      switch (result.decision) {
        case 'applied':
          publisher.publish(result.events);
          return { room: result.room };
        case 'already_applied':
          return { room: result.room };
        case 'forbidden':
          throw new Refusal(checkRefusals.teacherOnly);
        case 'not_a_member':
          return revoked(session);
      }
    },
    [ClientEvent.CLOCK_NOW]: async () => ({ serverNow: await store.clockNow() }),
    [ClientEvent.POLL_OPEN]: (session, request) =>
      teacherPollChange(session, store.openPoll(session.actor, { pollId: request.pollId, question: request.question, kind: request.kind, choices: request.choices })),
    [ClientEvent.POLL_CLOSE]: (session, request) => teacherPollChange(session, store.closePoll(session.actor, { pollId: request.pollId })),
    [ClientEvent.POLL_SHOW]: (session, request) => teacherPollChange(session, store.showPoll(session.actor, { pollId: request.pollId, shown: request.shown })),
    [ClientEvent.POLL_ANSWER]: async (session, request) => {
      const result = await store.answerPoll(session.actor, { pollId: request.pollId, choice: request.choice, text: request.text });
      switch (result.decision) {
        case 'applied':
          publisher.publish(result.events);
          // Who answered what: to the lesson's teachers only, on every node (the Redis adapter).
          io.to(roleChannel(session.roomId, 'teacher')).emit(ServerEvent.POLL_ANSWERS, { pollId: request.pollId, answers: [result.answer] });
          return { answer: result.answer };
        case 'already_applied':
          return { answer: result.answer };
        case 'not_found':
          throw new Refusal(checkRefusals.noPoll);
        case 'closed':
          throw new Refusal(checkRefusals.pollClosed);
        case 'invalid':
          throw new Refusal(checkRefusals.badAnswer);
        case 'forbidden':
          throw new Refusal(checkRefusals.studentsAnswer);
        case 'not_a_member':
          return revoked(session);
      }
    },
    [ClientEvent.POLL_GET]: async (session) => {
      const result = await store.getPoll(session.actor);
      if (result.decision === 'not_a_member') return revoked(session);
      return { poll: result.poll, answers: result.answers };
    },
    [ClientEvent.BOARD_FLAG]: async (session, request) => {
      const result = await store.setBoardFlag(session.actor, { boardId: request.boardId, flag: request.flag });
      switch (result.decision) {
        case 'applied':
          publisher.publish(result.events);
          return { flag: result.flag, flaggedAt: result.flaggedAt };
        case 'already_applied':
          return { flag: result.flag, flaggedAt: result.flaggedAt };
        case 'board_forbidden':
          throw new Refusal(checkRefusals.boardForbidden);
        case 'forbidden':
          throw new Refusal(checkRefusals.teacherClearsFlags);
        case 'not_a_member':
          return revoked(session);
      }
    },
  };
}
