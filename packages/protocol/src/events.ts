import type { ProtocolError } from './errors.ts';
import type {
  BoardLockRequest,
  BreakLockRequest,
  CreateElementRequest,
  DeleteElementRequest,
  ElementReply,
  LockAcquireRequest,
  LockGrant,
  LockMove,
  LockReleaseRequest,
  PinElementRequest,
  UpdateElementRequest,
} from './elements.ts';
import type {
  CursorBatch,
  CursorUpdate,
  LeaseDue,
  LeaseRenewRequest,
  LeaseRenewResult,
  PresenceSignal,
  RoomEvent,
  SyncMessage,
  SyncRequest,
  Welcome,
} from './schemas.ts';

/** Every acknowledged request answers with exactly one of these. */
export type Ack<T> = ({ ok: true } & T) | { ok: false; error: ProtocolError };
export type AckFn<T> = (reply: Ack<T>) => void;

/** Socket event names, defined once (STYLE: no event name copied as a string on each side). */
export const ClientEvent = {
  CURSOR: 'cursor',
  LEASE_RENEW: 'lease.renew',
  SYNC_REQUEST: 'sync.request',
  SIGN_OUT: 'session.signOut',
  ELEMENT_CREATE: 'element.create',
  ELEMENT_UPDATE: 'element.update',
  ELEMENT_DELETE: 'element.delete',
  LOCK_ACQUIRE: 'lock.acquire',
  LOCK_MOVE: 'lock.move',
  LOCK_RELEASE: 'lock.release',
  ELEMENT_PIN: 'element.pin',
  LOCK_BREAK: 'lock.break',
  BOARD_LOCK: 'board.lock',
} as const;

export const ServerEvent = {
  WELCOME: 'welcome',
  SYNC: 'sync',
  ROOM_EVENT: 'room.event',
  CURSORS: 'cursors',
  PRESENCE_SIGNAL: 'presence.signal',
  LEASE_DUE: 'lease.due',
  SESSION_ENDED: 'session.ended',
  NOTICE: 'notice',
} as const;

/** Client to server. Cursor packets are volatile and unacknowledged; everything else is acked. */
export interface ClientToServerEvents {
  [ClientEvent.CURSOR]: (update: CursorUpdate) => void;
  [ClientEvent.LEASE_RENEW]: (request: LeaseRenewRequest, ack: AckFn<LeaseRenewResult>) => void;
  [ClientEvent.SYNC_REQUEST]: (request: SyncRequest, ack: AckFn<{ sync: SyncMessage }>) => void;
  [ClientEvent.SIGN_OUT]: (request: Record<string, never>, ack: AckFn<Record<string, never>>) => void;
  [ClientEvent.ELEMENT_CREATE]: (request: CreateElementRequest, ack: AckFn<ElementReply>) => void;
  [ClientEvent.ELEMENT_UPDATE]: (request: UpdateElementRequest, ack: AckFn<ElementReply>) => void;
  [ClientEvent.ELEMENT_DELETE]: (request: DeleteElementRequest, ack: AckFn<ElementReply>) => void;
  [ClientEvent.LOCK_ACQUIRE]: (request: LockAcquireRequest, ack: AckFn<{ grant: LockGrant }>) => void;
  /** Volatile drag move; no acknowledgement (a stale or unlocked one is dropped). */
  [ClientEvent.LOCK_MOVE]: (move: LockMove) => void;
  [ClientEvent.LOCK_RELEASE]: (request: LockReleaseRequest, ack: AckFn<ElementReply>) => void;
  /** Teacher only. */
  [ClientEvent.ELEMENT_PIN]: (request: PinElementRequest, ack: AckFn<ElementReply>) => void;
  /** Teacher only. */
  [ClientEvent.LOCK_BREAK]: (request: BreakLockRequest, ack: AckFn<ElementReply>) => void;
  /** Teacher only: students become read-only while the board is locked. */
  [ClientEvent.BOARD_LOCK]: (request: BoardLockRequest, ack: AckFn<{ locked: boolean }>) => void;
}

/** Server to client. */
export interface ServerToClientEvents {
  [ServerEvent.WELCOME]: (welcome: Welcome) => void;
  [ServerEvent.SYNC]: (sync: SyncMessage) => void;
  [ServerEvent.ROOM_EVENT]: (event: RoomEvent) => void;
  [ServerEvent.CURSORS]: (batch: CursorBatch) => void;
  [ServerEvent.PRESENCE_SIGNAL]: (signal: PresenceSignal) => void;
  [ServerEvent.LEASE_DUE]: (due: LeaseDue) => void;
  /** The session is over (revoked, signed out elsewhere, server shutting down). */
  [ServerEvent.SESSION_ENDED]: (error: ProtocolError) => void;
  /** A refused packet that had no acknowledgement to carry the refusal (e.g. a cursor). */
  [ServerEvent.NOTICE]: (error: ProtocolError & { event?: string }) => void;
}
