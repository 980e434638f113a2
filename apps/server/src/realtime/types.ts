import type { ClientToServerEvents, RoomEvent, Role, ServerToClientEvents } from '@wb/protocol';
import type { Server, Socket } from 'socket.io';

/** What the handshake proved about a socket; set once by the auth middleware. */
export interface SocketData {
  roomId: string;
  userId: string;
  sessionId: string;
  role: Role;
  displayName: string;
  lastRevision: number | undefined;
  /** The lease revision this node last saw stored for the session. */
  leaseRevision: number;
  /** False until the lease is open, and again once it expired, closed or was revoked. */
  leaseLive: boolean;
}

/** Messages between server nodes (through the Redis adapter when there are several). */
export interface InterServerEvents {
  'wb:roomEvents': (events: RoomEvent[]) => void;
}

export type WbServer = Server<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
export type WbSocket = Socket<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
