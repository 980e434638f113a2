import { randomUUID } from 'node:crypto';
import { MAX_LEASE_REVISION_STEP, type Store } from '@wb/db';
import { ClientEvent, ErrorCode, ServerEvent, type ProtocolError } from '@wb/protocol';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import { roomChannel } from './channels.ts';
import type { ClientEventHandlers } from './clientEvents.ts';
import type { EphemeralFanout } from './ephemeralFanout.ts';
import type { RenewalBatcher } from './renewalBatcher.ts';
import { Refusal } from './requests.ts';
import type { RoomPublisher } from './roomPublisher.ts';
import type { SocketSession } from './socketSession.ts';
import type { WbServer } from './types.ts';

const NOT_A_MEMBER: ProtocolError = { code: ErrorCode.MEMBERSHIP_REVOKED, message: 'Not an active member of this room.' };
const REVOKED: ProtocolError = { code: ErrorCode.MEMBERSHIP_REVOKED, message: 'You can no longer take part in this lesson.' };

export interface PresenceDeps {
  io: WbServer;
  store: Store;
  config: Config;
  log: FastifyBaseLogger;
  publisher: RoomPublisher;
  renewals: RenewalBatcher;
  fanout: EphemeralFanout;
}

type PresenceEvents = typeof ClientEvent.LEASE_RENEW | typeof ClientEvent.SIGN_OUT;

/**
 * A session's presence lease seen from its socket: opened on connect, renewed when the server's
 * `lease.due` prompt is answered, signalled (not decided, I7) on close, ended by sign-out or a
 * revocation. The lease's own rules are the store's (packages/db/src/leases.ts); what this node
 * believes of it is the session's state (socketSession.ts).
 */
export class Presence {
  constructor(private readonly deps: PresenceDeps) {}

  readonly handlers: Pick<ClientEventHandlers, PresenceEvents> = {
    [ClientEvent.LEASE_RENEW]: async (session, request) => {
      const { renewals, log } = this.deps;
      let outcome;
      try {
        outcome = await renewals.submit({ sessionId: session.sessionId, ...request });
      } catch (error) {
        log.warn({ err: String(error), session: session.sessionId }, 'renewal not written');
        throw new Refusal({ code: ErrorCode.UNAVAILABLE, message: 'Renewal not recorded; the next one will retry.' });
      }
      // A routine renewal is not a transition: at district scale (10,000 students renewing every
      // 3 s) info-level renewals would be thousands of lines a second. Anything else is rare and
      // worth a line at info.
      log[outcome.decision === 'accepted' ? 'debug' : 'info'](
        {
          room: session.roomId,
          session: session.sessionId,
          request_id: request.requestId,
          prior_revision: outcome.priorRevision,
          new_revision: outcome.revision,
          decision: outcome.decision,
        },
        'lease renewal decision',
      );
      const roomRevision = outcome.roomRevision === null ? {} : { roomRevision: outcome.roomRevision };
      switch (outcome.decision) {
        case 'accepted':
          session.leaseHeld(outcome.revision);
          return { decision: outcome.decision, revision: outcome.revision, ...roomRevision };
        case 'already_applied':
        case 'ignored_old_revision':
          return { decision: outcome.decision, revision: outcome.revision, ...roomRevision };
        case 'no_lease': {
          // The lease expired (or a database crash took the UNLOGGED table) while this client
          // was alive after all: open a fresh lease, recorded as a reconnect.
          const revision = await this.openLease(session);
          if (revision === null) throw new Refusal(NOT_A_MEMBER);
          return { decision: outcome.decision, revision };
        }
        case 'not_a_member':
          this.endRevoked(session);
          throw new Refusal(NOT_A_MEMBER);
        case 'too_far_ahead':
          // Refused, the lease untouched: the next renewal from the prompted revision works.
          throw new Refusal({
            code: ErrorCode.BAD_REQUEST,
            message: `A renewal may move the lease at most ${MAX_LEASE_REVISION_STEP} revisions past its stored revision ${outcome.revision}.`,
          });
      }
    },

    [ClientEvent.SIGN_OUT]: async (session) => {
      const closed = await this.deps.store.closeSession({
        sessionId: session.sessionId,
        reason: 'signed_out',
        requestId: `signout:${session.socket.id}`,
      });
      // The publisher ends this socket (and the session's others) once the close is published.
      if (closed.decision === 'closed') this.deps.publisher.publish(closed.events);
      return {};
    },
  };

  /** Opens or resumes the session's lease; returns its revision, or null when the session is over. */
  async openLease(session: SocketSession): Promise<number | null> {
    const { store, config, log, publisher, io } = this.deps;
    const opened = await store.openLease({
      sessionId: session.sessionId,
      ttlMs: config.LEASE_TTL_MS,
      requestId: `connect:${session.socket.id}:${randomUUID().slice(0, 8)}`,
    });
    if (opened.decision === 'not_a_member') {
      this.endRevoked(session);
      return null;
    }
    session.leaseHeld(opened.lease.revision);
    log.info(
      {
        room: session.roomId,
        session: session.sessionId,
        prior_revision: opened.decision === 'resumed' ? opened.priorRevision : null,
        new_revision: opened.lease.revision,
        decision: opened.decision,
      },
      'lease open decision',
    );
    if (opened.decision === 'opened') {
      publisher.publish(opened.events);
    } else {
      io.to(roomChannel(session.roomId)).emit(ServerEvent.PRESENCE_SIGNAL, {
        sessionId: session.sessionId,
        userId: session.userId,
        connected: true,
      });
    }
    return opened.lease.revision;
  }

  /**
   * Prompts the client to renew about every LEASE_RENEW_MS, with +-20% jitter so thirty laptops
   * waking together do not renew in one spike. Returns the function that stops the prompts.
   */
  promptRenewals(session: SocketSession): () => void {
    const { config, publisher } = this.deps;
    let timer: NodeJS.Timeout | null = null;
    const schedule = () => {
      const delay = config.LEASE_RENEW_MS * (0.8 + Math.random() * 0.4);
      timer = setTimeout(() => {
        if (session.presence.status === 'ended') return; // its socket is closing
        const roomRevision = publisher.latestRevision(session.roomId);
        session.socket.emit(ServerEvent.LEASE_DUE, {
          revision: session.leaseRevision,
          ...(roomRevision === undefined ? {} : { roomRevision }),
        });
        schedule();
      }, delay);
    };
    schedule();
    return () => {
      if (timer) clearTimeout(timer);
    };
  }

  /**
   * The session's last socket on this node closed while its lease was live. A close is a signal,
   * not a decision (I7): the cursor hides now, the roster waits for the lease.
   */
  signalClosed(session: SocketSession, reason: string): void {
    const { store, io, log } = this.deps;
    store.setLeaseConnected(session.sessionId, false).then(
      (presence) => {
        if (presence) io.to(roomChannel(session.roomId)).emit(ServerEvent.PRESENCE_SIGNAL, presence);
      },
      (error: unknown) => log.warn({ err: String(error), reason }, 'could not record a socket close'),
    );
  }

  /** Ends a session whose membership turned out to be revoked (the store said `not_a_member`). */
  endRevoked(session: SocketSession): void {
    this.deps.fanout.forgetSessions(session.roomId, [session.sessionId]);
    session.end(REVOKED, 'now');
  }
}
