import { isFatalErrorCode, refusalText, type ErrorCode, type ProtocolError } from '@wb/protocol';
import { refusalMessage } from '../i18n/errors.ts';
import { i18n } from '../i18n/i18n.ts';

/**
 * The one connection state machine. Every part of the UI that cares about the connection reads
 * this union; nothing combines flags. `refused` is terminal: retrying cannot help, so nothing
 * leaves it except starting over (a new join).
 */
export type ConnectionState =
  | { readonly status: 'connecting' }
  | { readonly status: 'syncing' }
  | { readonly status: 'live' }
  | { readonly status: 'reconnecting'; readonly failedAttempts: number }
  | { readonly status: 'offline'; readonly failedAttempts: number }
  | { readonly status: 'refused'; readonly error: ProtocolError };

export type ConnectionStatus = ConnectionState['status'];

export type ConnectionEvent =
  | { readonly type: 'socket.connected' }
  | { readonly type: 'socket.disconnected' }
  /** A handshake or transport failure; `error` is the server's refusal when it sent one. */
  | { readonly type: 'connect.failed'; readonly error?: ProtocolError }
  /** The server ended the session (revoked, signed out elsewhere, shutting down). */
  | { readonly type: 'session.ended'; readonly error: ProtocolError }
  /** The sync engine applied a sync: the board is current. */
  | { readonly type: 'sync.applied' }
  /** The sync engine found a gap or overflow and is resyncing. */
  | { readonly type: 'sync.lost' }
  | { readonly type: 'network.offline' }
  | { readonly type: 'network.online' }
  /**
   * The server answered the same retryable refusal GIVE_UP_AFTER_REPEATED_REFUSALS times in a row
   * with no sync in between: retrying is a loop, not a recovery. Ends like a fatal refusal.
   */
  | { readonly type: 'retries.exhausted'; readonly error: ProtocolError };

/** Consecutive failed attempts after which we say "offline" rather than "reconnecting". */
export const OFFLINE_AFTER_FAILED_ATTEMPTS = 4;

export const initialConnectionState: ConnectionState = { status: 'connecting' };

export function transition(state: ConnectionState, event: ConnectionEvent): ConnectionState {
  if (state.status === 'refused') return state;
  switch (event.type) {
    case 'socket.connected':
      return { status: 'syncing' };
    case 'sync.applied':
      return state.status === 'syncing' || state.status === 'live' ? { status: 'live' } : state;
    case 'sync.lost':
      return state.status === 'live' ? { status: 'syncing' } : state;
    case 'socket.disconnected':
      return state.status === 'offline' ? state : { status: 'reconnecting', failedAttempts: 0 };
    case 'connect.failed': {
      if (event.error && isFatalErrorCode(event.error.code)) return { status: 'refused', error: event.error };
      const failedAttempts = 'failedAttempts' in state ? state.failedAttempts + 1 : 1;
      return failedAttempts >= OFFLINE_AFTER_FAILED_ATTEMPTS || state.status === 'offline'
        ? { status: 'offline', failedAttempts }
        : { status: 'reconnecting', failedAttempts };
    }
    case 'session.ended':
      // A retryable end (a server restarting) is a reconnect, not a verdict on this session.
      return isFatalErrorCode(event.error.code)
        ? { status: 'refused', error: event.error }
        : { status: 'reconnecting', failedAttempts: 0 };
    case 'network.offline':
      return { status: 'offline', failedAttempts: 'failedAttempts' in state ? state.failedAttempts : 0 };
    case 'network.online':
      return state.status === 'offline' ? { status: 'reconnecting', failedAttempts: 0 } : state;
    case 'retries.exhausted':
      return { status: 'refused', error: event.error };
  }
}

/**
 * Retryable refusals the server gave this session in a row (a handshake refused `unavailable`, a
 * connection ended by an `unavailable` notice), counted until a sync is applied. A network failure
 * is not a refusal and is never counted: offline laptops keep retrying for as long as it takes.
 */
export interface RefusalStreak {
  readonly code: ErrorCode | null;
  readonly count: number;
}

/** The same retryable refusal this many times in a row stops the retries (about a minute of backoff). */
export const GIVE_UP_AFTER_REPEATED_REFUSALS = 6;

export const noRefusals: RefusalStreak = { code: null, count: 0 };

/** Counts one retryable refusal; a different code starts a new streak. `awaiting_approval` is a wait, not a failure. */
export function recordRefusal(streak: RefusalStreak, error: ProtocolError): RefusalStreak {
  if (isFatalErrorCode(error.code) || error.code === 'awaiting_approval') return streak;
  return { code: error.code, count: streak.code === error.code ? streak.count + 1 : 1 };
}

/** The `retries.exhausted` event once the streak is long enough, else null. */
export function exhaustedBy(streak: RefusalStreak): ConnectionEvent | null {
  if (streak.code === null || streak.count < GIVE_UP_AFTER_REPEATED_REFUSALS) return null;
  return {
    type: 'retries.exhausted',
    error: {
      code: streak.code,
      message: `The server refused this session ${streak.count} times in a row (${refusalText[streak.code]}). Join again, or try later.`,
    },
  };
}

/** Whether the socket should keep trying. Only a refusal stops it. */
export function shouldRetry(state: ConnectionState): boolean {
  return state.status !== 'refused';
}

export type Tone = 'ok' | 'busy' | 'warn' | 'error';

export interface ConnectionView {
  readonly label: string;
  readonly detail: string;
  readonly tone: Tone;
}

/** Refusals after which joining again from this browser can work. */
export function canRejoinAfter(error: ProtocolError): boolean {
  // A retryable code here means retries were exhausted: a fresh session is the way forward.
  return error.code === 'not_authenticated' || error.code === 'token_expired' || error.code === 'session_closed' || !isFatalErrorCode(error.code);
}

/**
 * The total mapping from state to what the status indicator says, in the page's language (the
 * error's `message` is the server's English, kept for logs; the words come from the code).
 */
export function describeConnection(state: ConnectionState): ConnectionView {
  switch (state.status) {
    case 'connecting':
      return { label: i18n._('connection.connecting'), detail: i18n._('connection.connectingDetail'), tone: 'busy' };
    case 'syncing':
      return { label: i18n._('connection.syncing'), detail: i18n._('connection.syncingDetail'), tone: 'busy' };
    case 'live':
      return { label: i18n._('connection.live'), detail: i18n._('connection.liveDetail'), tone: 'ok' };
    case 'reconnecting':
      return { label: i18n._('connection.reconnecting'), detail: i18n._('connection.reconnectingDetail'), tone: 'warn' };
    case 'offline':
      return { label: i18n._('connection.offline'), detail: i18n._('connection.offlineDetail'), tone: 'warn' };
    case 'refused': {
      const code = state.error.code;
      // A retryable code here means the retries were exhausted (exhaustedBy).
      const detail = isFatalErrorCode(code)
        ? refusalMessage(code)
        : i18n._('connection.exhausted', { count: GIVE_UP_AFTER_REPEATED_REFUSALS, reason: refusalMessage(code) });
      return { label: i18n._('connection.disconnected'), detail, tone: 'error' };
    }
  }
}
