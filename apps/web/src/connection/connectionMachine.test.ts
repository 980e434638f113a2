import { expect, test } from 'vitest';
import {
  OFFLINE_AFTER_FAILED_ATTEMPTS,
  describeConnection,
  initialConnectionState,
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
