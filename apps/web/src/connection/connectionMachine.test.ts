import { expect, test } from 'vitest';
import {
  GIVE_UP_AFTER_REPEATED_REFUSALS,
  OFFLINE_AFTER_FAILED_ATTEMPTS,
  canRejoinAfter,
  describeConnection,
  exhaustedBy,
  initialConnectionState,
  noRefusals,
  recordRefusal,
  shouldRetry,
  transition,
  type ConnectionEvent,
  type ConnectionState,
  type ConnectionStatus,
} from './connectionMachine.ts';

const revokedError = { code: 'membership_revoked', message: 'revoked' } as const;
const rateLimited = { code: 'rate_limited', message: 'slow down' } as const;

function run(...events: ConnectionEvent[]): ConnectionState {
  return events.reduce(transition, initialConnectionState);
}

const table: Array<[name: string, events: ConnectionEvent[], expected: ConnectionStatus]> = [
  ['starts connecting', [], 'connecting'],
  ['a connect waits for the sync', [{ type: 'socket.connected' }], 'syncing'],
  ['the applied sync makes it live', [{ type: 'socket.connected' }, { type: 'sync.applied' }], 'live'],
  ['a gap resync shows syncing', [{ type: 'socket.connected' }, { type: 'sync.applied' }, { type: 'sync.lost' }], 'syncing'],
  ['a dropped socket reconnects', [{ type: 'socket.connected' }, { type: 'sync.applied' }, { type: 'socket.disconnected' }], 'reconnecting'],
  ['a retryable refusal keeps retrying', [{ type: 'connect.failed', error: rateLimited }], 'reconnecting'],
  ['repeated failures read as offline', Array.from({ length: OFFLINE_AFTER_FAILED_ATTEMPTS }, () => ({ type: 'connect.failed' }) as const), 'offline'],
  ['the browser going offline is offline', [{ type: 'socket.connected' }, { type: 'network.offline' }], 'offline'],
  ['coming back online reconnects', [{ type: 'network.offline' }, { type: 'network.online' }], 'reconnecting'],
  ['a fatal handshake refusal is refused', [{ type: 'connect.failed', error: revokedError }], 'refused'],
  ['a fatal session end is refused', [{ type: 'socket.connected' }, { type: 'session.ended', error: revokedError }], 'refused'],
  ['a retryable session end reconnects', [{ type: 'socket.connected' }, { type: 'session.ended', error: { code: 'server_restarting', message: 'bye' } }], 'reconnecting'],
  ['refused is terminal: a later connect changes nothing', [{ type: 'connect.failed', error: revokedError }, { type: 'socket.connected' }, { type: 'sync.applied' }], 'refused'],
  ['a sync that lands while reconnecting does not claim live', [{ type: 'socket.disconnected' }, { type: 'sync.applied' }], 'reconnecting'],
];

test.each(table)('connection: %s', (_name, events, expected) => {
  expect(run(...events).status).toBe(expected);
});

test('connection: only a refusal stops retrying', () => {
  expect(shouldRetry(run({ type: 'connect.failed', error: revokedError }))).toBe(false);
  expect(shouldRetry(run({ type: 'connect.failed' }))).toBe(true);
});

test('connection: every state maps to text, and a refusal explains itself', () => {
  const states: ConnectionState[] = [
    { status: 'connecting' },
    { status: 'syncing' },
    { status: 'live' },
    { status: 'reconnecting', failedAttempts: 1 },
    { status: 'offline', failedAttempts: 5 },
    { status: 'refused', error: revokedError },
  ];
  for (const state of states) expect(describeConnection(state).label.length).toBeGreaterThan(0);
  expect(describeConnection(run({ type: 'connect.failed', error: revokedError })).detail).toBe('You were removed from this lesson.');
});

test('connection: the same retryable refusal repeated GIVE_UP_AFTER_REPEATED_REFUSALS times ends the retries, clearly', () => {
  const unavailable = { code: 'unavailable', message: 'no database' } as const;
  let streak = noRefusals;
  const events: ConnectionEvent[] = [];
  for (let i = 0; i < GIVE_UP_AFTER_REPEATED_REFUSALS; i++) {
    expect(exhaustedBy(streak)).toBeNull();
    streak = recordRefusal(streak, unavailable);
    events.push({ type: 'connect.failed', error: unavailable });
  }
  const exhausted = exhaustedBy(streak);
  expect(exhausted).not.toBeNull();
  const state = run(...events, exhausted!);
  expect(state).toMatchObject({ status: 'refused', error: { code: 'unavailable' } });
  expect(shouldRetry(state)).toBe(false);
  expect(describeConnection(state).detail).toMatch(/6 times in a row/);
  expect(canRejoinAfter((state as { error: { code: 'unavailable'; message: string } }).error)).toBe(true);
});

test('connection: a streak counts one code; another code, a wait in the lobby or a fatal code do not extend it', () => {
  const unavailable = { code: 'unavailable', message: 'x' } as const;
  let streak = recordRefusal(recordRefusal(noRefusals, unavailable), unavailable);
  expect(streak).toEqual({ code: 'unavailable', count: 2 });
  streak = recordRefusal(streak, rateLimited);
  expect(streak).toEqual({ code: 'rate_limited', count: 1 });
  expect(recordRefusal(streak, { code: 'awaiting_approval', message: 'wait' })).toBe(streak);
  expect(recordRefusal(streak, revokedError)).toBe(streak);
});
