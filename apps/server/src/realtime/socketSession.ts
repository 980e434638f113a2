/**
 * One connected socket's session on this node, and the only writer of its presence state: what
 * this node believes of the session's lease. Handlers, the publisher and the wiring call the
 * transitions below; none of them writes the state.
 *
 * Lifecycle (`nextPresence`, a pure function; each transition one method of `SocketSession`):
 *   opening --leaseHeld(r)--> live(r)                   [the connect's openLease]
 *   live(r) --leaseHeld(r')--> live(max(r, r'))         [an accepted renewal, or a resume]
 *   live(r) --leaseExpired(e >= r)--> lapsed(r)         [presence.expired from any node's sweeper;
 *                                                        an expiry of an older revision is ignored]
 *   lapsed(r) --leaseHeld(r')--> live(max(r, r'))       [a renewal found no lease and reopened it]
 *   any --end(error)--> ended(code)                     [revoked, closed, archived, not a member:
 *                                                        `session.ended`, then the socket closes]
 *   any --disconnected--> ended('disconnected')         [the socket closed; I7: a signal only]
 * `ended` is final: a store reply that lands after it changes nothing. Only a live session sends cursors
 * and drags, and only a live one's close is signalled to the room (a lapsed lease has no cursor).
 */
import type { EditActor } from '@wb/db';
import { ServerEvent, type ErrorCode, type ProtocolError, type Role } from '@wb/protocol';
import type { WbServer, WbSocket } from './types.ts';

export type PresenceState =
  | { readonly status: 'opening' }
  | { readonly status: 'live'; readonly revision: number }
  | { readonly status: 'lapsed'; readonly revision: number }
  | { readonly status: 'ended'; readonly reason: ErrorCode | 'disconnected' };

/** What the session's presence hears: the store holds its lease, the room heard it expire, it ended. */
export type PresenceEvent =
  | { readonly type: 'held'; readonly revision: number }
  | { readonly type: 'expired'; readonly revision: number }
  | { readonly type: 'ended'; readonly reason: ErrorCode | 'disconnected' };

/** The lease revision a state knows (0 before the first open, and once ended). */
export function knownRevision(state: PresenceState): number {
  return state.status === 'live' || state.status === 'lapsed' ? state.revision : 0;
}

/** The lifecycle above as a pure, total function; `SocketSession` is its only caller. */
export function nextPresence(state: PresenceState, event: PresenceEvent): PresenceState {
  if (state.status === 'ended') return state;
  switch (event.type) {
    case 'held':
      return { status: 'live', revision: Math.max(knownRevision(state), event.revision) };
    case 'expired':
      return state.status === 'live' && state.revision <= event.revision ? { status: 'lapsed', revision: state.revision } : state;
    case 'ended':
      return { status: 'ended', reason: event.reason };
  }
}

const OPENING: PresenceState = { status: 'opening' };

/** How an ended socket is closed: at once, or on the next turn so a reply already being sent goes out first. */
export type CloseTiming = 'now' | 'afterReplies';

export class SocketSession {
  readonly roomId: string;
  readonly userId: string;
  readonly sessionId: string;
  readonly role: Role;
  readonly displayName: string;
  /** Who acts in the store's conditional writes. */
  readonly actor: EditActor;
  private state: PresenceState = OPENING;

  constructor(readonly socket: WbSocket) {
    const data = socket.data;
    this.roomId = data.roomId;
    this.userId = data.userId;
    this.sessionId = data.sessionId;
    this.role = data.role;
    this.displayName = data.displayName;
    this.actor = { roomId: data.roomId, sessionId: data.sessionId, userId: data.userId };
  }

  get presence(): PresenceState {
    return this.state;
  }

  /** The cursor's hot path asks this for every packet: one comparison. */
  get live(): boolean {
    return this.state.status === 'live';
  }

  /** The lease revision this node last saw stored for the session (0 before the first open). */
  get leaseRevision(): number {
    return knownRevision(this.state);
  }

  /** The store holds the lease at `revision` (opened, resumed or renewed). False once ended. */
  leaseHeld(revision: number): boolean {
    this.state = nextPresence(this.state, { type: 'held', revision });
    return this.state.status === 'live';
  }

  /**
   * The room heard `presence.expired` for the session at `revision`. Its JS may still run (a slow
   * laptop): the next renewal finds no lease and reopens it. A reload's newer lease is not touched.
   */
  leaseExpired(revision: number): void {
    this.state = nextPresence(this.state, { type: 'expired', revision });
  }

  /** Tells the client why its session is over, then closes the socket. */
  end(error: ProtocolError, timing: CloseTiming): void {
    this.state = nextPresence(this.state, { type: 'ended', reason: error.code });
    this.socket.emit(ServerEvent.SESSION_ENDED, error);
    if (timing === 'now') this.socket.disconnect(true);
    else setImmediate(() => this.socket.disconnect(true));
  }

  /** The socket closed. Returns whether the lease was live then (its close is worth a signal). */
  disconnected(): boolean {
    const wasLive = this.live;
    this.state = nextPresence(this.state, { type: 'ended', reason: 'disconnected' });
    return wasLive;
  }
}

/** This node's sessions, by socket, and how many sockets each session has here. */
export class LocalSessions {
  private readonly bySocket = new Map<string, SocketSession>();
  /** A reload's new socket may arrive before the old one closes. */
  private readonly socketsPerSession = new Map<string, number>();

  constructor(private readonly io: WbServer) {}

  add(session: SocketSession): void {
    this.bySocket.set(session.socket.id, session);
    this.socketsPerSession.set(session.sessionId, (this.socketsPerSession.get(session.sessionId) ?? 0) + 1);
  }

  /** Forgets a closed socket's session; returns how many sockets its session still has here. */
  remove(session: SocketSession): number {
    this.bySocket.delete(session.socket.id);
    const remaining = (this.socketsPerSession.get(session.sessionId) ?? 1) - 1;
    if (remaining > 0) this.socketsPerSession.set(session.sessionId, remaining);
    else this.socketsPerSession.delete(session.sessionId);
    return remaining;
  }

  /** The sessions of this node's sockets in a Socket.IO room (see channels.ts). */
  inChannel(channel: string): SocketSession[] {
    const ids = this.io.sockets.adapter.rooms.get(channel);
    if (!ids) return [];
    return [...ids].flatMap((id) => {
      const session = this.bySocket.get(id);
      return session ? [session] : [];
    });
  }

  /** Whether any socket of the room is still connected to this node. */
  roomHasSockets(roomChannel: string): boolean {
    return (this.io.sockets.adapter.rooms.get(roomChannel)?.size ?? 0) > 0;
  }
}
