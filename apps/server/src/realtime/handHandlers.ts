import type { Store } from '@wb/db';
import { ClientEvent, ErrorCode, forbiddenText, refusalText } from '@wb/protocol';
import type { ClientEventHandlers } from './clientEvents.ts';
import type { EditDeps } from './elementHandlers.ts';
import { Refusal } from './requests.ts';

type HandEvents = typeof ClientEvent.HAND_RAISE | typeof ClientEvent.HAND_LOWER | typeof ClientEvent.HAND_LOWER_ALL;

/**
 * Raised hands: lesson state kept on the membership (the store's hands.ts), so a hand stays up
 * across a reconnect. Validate, one store operation, publish its `member.hand` events.
 */
export function handHandlers(deps: EditDeps & { store: Store }): Pick<ClientEventHandlers, HandEvents> {
  const { store, publisher } = deps;
  const setHand = async (session: Parameters<ClientEventHandlers[HandEvents]>[0], userId: string, raised: boolean) => {
    const result = await store.setHand(session.actor, { userId, raised });
    switch (result.decision) {
      case 'applied':
        publisher.publish(result.events);
        return { member: result.member };
      case 'already_applied':
        return { member: result.member };
      case 'not_found':
        throw new Refusal({ code: ErrorCode.NOT_FOUND, message: 'No such student in this lesson.' });
      case 'forbidden': {
        const message = session.role === 'teacher' ? forbiddenText.teacherHand : forbiddenText.ownHand;
        throw new Refusal({ code: ErrorCode.FORBIDDEN, message });
      }
      case 'not_a_member':
        deps.endRevoked(session);
        throw new Refusal({ code: ErrorCode.MEMBERSHIP_REVOKED, message: refusalText.membership_revoked });
    }
  };
  return {
    [ClientEvent.HAND_RAISE]: (session) => setHand(session, session.userId, true),
    [ClientEvent.HAND_LOWER]: (session, request) => setHand(session, request.userId ?? session.userId, false),
    [ClientEvent.HAND_LOWER_ALL]: async (session) => {
      const result = await store.lowerAllHands(session.actor);
      switch (result.decision) {
        case 'applied':
          publisher.publish(result.events);
          return { lowered: result.events.length };
        case 'forbidden':
          throw new Refusal({ code: ErrorCode.FORBIDDEN, message: forbiddenText.teacherOnly });
        case 'not_a_member':
          deps.endRevoked(session);
          throw new Refusal({ code: ErrorCode.MEMBERSHIP_REVOKED, message: refusalText.membership_revoked });
      }
    },
  };
}
