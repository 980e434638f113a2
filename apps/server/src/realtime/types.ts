import type { ClientToServerEvents, RoomEvent, Role, ServerToClientEvents, SharedView } from '@wb/protocol';
import type { Server, Socket } from 'socket.io';

/** What the handshake proved about a socket; set once by the auth middleware (handshake.ts). Presence state lives in socketSession.ts. */
export interface SocketData {
  roomId: string;
  userId: string;
  sessionId: string;
  role: Role;
  displayName: string;
  /** The revision the client already has, for its first sync (replay or snapshot). */
  lastRevision: number | undefined;
  /** The client reads `boards.pointers` (its handshake's `features`): a tick's board batches in one message. */
  groupsBoards: boolean;
  /**
   * A teacher's socket while presenting: the view its students follow (the latest `viewport`), and
   * the page it is on (absent: the class board). Kept on the socket so a student joining on any
   * node reads it with `fetchSockets` (through the adapter) and follows at once; it goes with the
   * socket (attentionHandlers.ts).
   */
  presenting?: PresentedView;
}

/** A presenting teacher's latest view, and the page it is on (absent: the class board). */
export interface PresentedView {
  view: SharedView;
  boardId?: string;
}

/** Messages between server nodes (through the Redis adapter when there are several). */
export interface InterServerEvents {
  'wb:roomEvents': (events: RoomEvent[]) => void;
}

export type WbServer = Server<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
export type WbSocket = Socket<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
