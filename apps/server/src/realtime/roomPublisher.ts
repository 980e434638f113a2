import { ErrorCode, ServerEvent, refusalText, type RoomEvent } from '@wb/protocol';
import type { Metrics } from '../metrics.ts';
import { memberChannel, roomChannel, sessionChannel, shownChannel } from './channels.ts';
import { shownEvent, type ShownBoards } from './shownView.ts';
import type { DrawRights } from './drawRights.ts';
import type { EphemeralFanout } from './ephemeralFanout.ts';
import type { TestHooks } from '../testHooks.ts';
import type { LockCache } from './lockCache.ts';
import type { LocalSessions } from './socketSession.ts';
import type { WbServer } from './types.ts';

/**
 * Publishes committed room events to every client in the room (on every node), and applies each
 * event's consequences for this node's own sockets. Called only after the transaction that made
 * the events has committed.
 */
export class RoomPublisher {
  /** Set once a cluster adapter (Redis) joins this node to others. */
  clustered = false;
  /** The newest revision this node has seen published per room (its own and other nodes'). */
  private readonly revisions = new Map<string, number>();

  private readonly listeners = new Set<(event: RoomEvent) => void>();

  constructor(
    private readonly io: WbServer,
    private readonly fanout: EphemeralFanout,
    private readonly locks: LockCache,
    private readonly sessions: LocalSessions,
    private readonly metrics: Metrics,
    private readonly hooks: TestHooks | null = null,
    private readonly rights: DrawRights | null = null,
    private readonly shown: ShownBoards | null = null,
  ) {
    io.on('wb:roomEvents', (events) => this.applyLocally(events));
  }

  /** Told to clients with each renewal prompt, so a client that lost the last event notices. */
  latestRevision(roomId: string): number | undefined {
    return this.revisions.get(roomId);
  }

  /**
   * Called with every event applied on this node, its own and other nodes' (the lobby's waiters
   * listen here). Returns the unsubscribe function.
   */
  onEvent(listener: (event: RoomEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  forgetRoom(roomId: string): void {
    this.revisions.delete(roomId);
  }

  publish(events: readonly RoomEvent[]): void {
    if (events.length === 0) return;
    for (const event of events) {
      const withheld = this.hooks?.takeWithheld() ?? [];
      this.io.to(roomChannel(event.roomId)).except(withheld.map(sessionChannel)).emit(ServerEvent.ROOM_EVENT, event);
      // A board shown to the class: the classmates get its anonymous view (shownView.ts).
      if (this.shown?.has(event.roomId)) this.io.to(shownChannel(event.roomId)).except(withheld.map(sessionChannel)).emit(ServerEvent.ROOM_EVENT, shownEvent(event));
      this.metrics.eventsPublished.inc({ kind: event.kind });
    }
    this.applyLocally(events);
    // Other nodes apply the same consequences to their sockets.
    if (this.clustered) this.io.serverSideEmit('wb:roomEvents', [...events]);
  }

  /** What an event means for sockets held by this node. */
  private applyLocally(events: readonly RoomEvent[]): void {
    for (const event of events) {
      if ((this.revisions.get(event.roomId) ?? -1) < event.revision) this.revisions.set(event.roomId, event.revision);
      for (const listener of this.listeners) listener(event);
      switch (event.kind) {
        case 'activity.updated':
          this.shown?.activityUpdated(event.payload.id, event.payload.shown);
          break;
        case 'lock.granted':
          this.locks.set(event.roomId, event.payload.elementId, event.payload.sessionId, event.payload.generation);
          break;
        case 'lock.released':
          this.locks.set(event.roomId, event.payload.elementId, null, event.payload.generation);
          this.fanout.forgetDrag(event.roomId, event.payload.elementId);
          break;
        case 'element.deleted':
          this.fanout.forgetDrag(event.roomId, event.payload.elementId);
          this.fanout.forgetInk(event.roomId, event.payload.elementId);
          break;
        case 'element.created':
          // The durable stroke is out: its live ink still unsent must not follow it and reappear.
          this.fanout.forgetInk(event.roomId, event.payload.element.id);
          break;
        case 'member.pen':
          this.rights?.penChanged(event.roomId, event.payload.userId, event.payload.muted);
          break;
        case 'presence.expired': {
          this.fanout.forgetSessions(event.roomId, [event.payload.sessionId]);
          const { revision } = event.payload;
          for (const session of this.sessions.inChannel(sessionChannel(event.payload.sessionId))) session.leaseExpired(revision);
          break;
        }
        case 'session.closed': {
          this.fanout.forgetSessions(event.roomId, [event.payload.sessionId]);
          if (event.payload.reason === 'lesson_ended') {
            this.endSockets(sessionChannel(event.payload.sessionId), ErrorCode.LESSON_ENDED, refusalText.lesson_ended);
            break;
          }
          const message =
            event.payload.reason === 'signed_out' ? 'You left the lesson.' : 'This session was closed by the server.';
          this.endSockets(sessionChannel(event.payload.sessionId), ErrorCode.SESSION_CLOSED, message);
          break;
        }
        case 'room.updated': {
          this.rights?.roomUpdated(event.payload);
          // An archived lesson is over for everyone in it; its sessions' closes follow.
          if (event.payload.status === 'archived') {
            this.endSockets(roomChannel(event.roomId), ErrorCode.ROOM_ARCHIVED, 'This lesson has been archived.');
          }
          break;
        }
        case 'member.revoked': {
          this.fanout.forgetUser(event.roomId, event.payload.userId);
          const reason = event.payload.reason ? ` Reason: ${event.payload.reason}` : '';
          this.endSockets(
            memberChannel(event.roomId, event.payload.userId),
            ErrorCode.MEMBERSHIP_REVOKED,
            `The teacher removed you from this lesson.${reason}`,
          );
          break;
        }
        // Lobby decisions touch no socket: a waiting or denied member never has one (the
        // handshake refuses them); their waiting page hears it through the admission route.
        case 'member.pending':
        case 'member.admitted':
        case 'member.denied':
        case 'member.withdrawn':
        case 'member.joined':
        case 'member.hand':
        case 'presence.opened':
        case 'element.updated':
        case 'element.restored':
          break;
      }
    }
  }

  private endSockets(channel: string, code: ErrorCode, message: string): void {
    // After replies: an acknowledgement already being sent (a sign-out's) goes out first.
    for (const session of this.sessions.inChannel(channel)) session.end({ code, message }, 'afterReplies');
  }
}
