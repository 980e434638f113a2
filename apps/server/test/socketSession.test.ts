import { ErrorCode } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import { nextPresence, type PresenceEvent, type PresenceState } from '../src/realtime/socketSession.ts';

const opening: PresenceState = { status: 'opening' };
const live = (revision: number): PresenceState => ({ status: 'live', revision });
const lapsed = (revision: number): PresenceState => ({ status: 'lapsed', revision });
const ended = (reason: ErrorCode | 'disconnected'): PresenceState => ({ status: 'ended', reason });
const held = (revision: number): PresenceEvent => ({ type: 'held', revision });
const expired = (revision: number): PresenceEvent => ({ type: 'expired', revision });
const end = (reason: ErrorCode | 'disconnected'): PresenceEvent => ({ type: 'ended', reason });

const run = (events: PresenceEvent[], from = opening) => events.reduce(nextPresence, from);

describe('a socket session’s presence state (socketSession.ts lifecycle)', () => {
  test.each<[string, PresenceEvent[], PresenceState]>([
    ['the connect’s open makes it live at the stored revision', [held(4)], live(4)],
    ['a renewal raises the revision', [held(4), held(5)], live(5)],
    ['I4: revisions only grow here too (a late, older reply keeps the newer)', [held(5), held(4)], live(5)],
    ['an expiry of its revision lapses it (no cursor, no close signal)', [held(4), expired(4)], lapsed(4)],
    ['an expiry of an older revision leaves a reload’s newer lease live', [held(4), held(5), expired(4)], live(5)],
    ['a lapsed lease reopened by a renewal is live again above its old revision', [held(4), expired(4), held(6)], live(6)],
    ['an expiry before the open changes nothing', [expired(3)], opening],
    ['a revocation ends it', [held(4), end(ErrorCode.MEMBERSHIP_REVOKED)], ended(ErrorCode.MEMBERSHIP_REVOKED)],
    ['ended is final: a late renewal does not revive it', [held(4), end(ErrorCode.SESSION_CLOSED), held(5)], ended(ErrorCode.SESSION_CLOSED)],
    ['ended is final: the close after it keeps the reason', [end(ErrorCode.ROOM_ARCHIVED), end('disconnected')], ended(ErrorCode.ROOM_ARCHIVED)],
    ['a close while opening ends it', [end('disconnected'), held(1)], ended('disconnected')],
  ])('%s', (_rule, events, expected) => {
    expect(run(events)).toEqual(expected);
  });
});
