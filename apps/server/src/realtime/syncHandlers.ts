import { isDeadlineExceeded, withWork, type Store } from '@wb/db';
import { ClientEvent, ErrorCode, refusalText, type RoomEvent, type RoomSnapshot, type SyncMessage } from '@wb/protocol';
import type { ClientEventHandlers } from './clientEvents.ts';
import { REQUEST_DEADLINE_MS, Refusal } from './requests.ts';
import type { SocketSession } from './socketSession.ts';
import type { RoomPublisher } from './roomPublisher.ts';
import { TokenBucket } from './tokenBucket.ts';
import { LRUCache } from 'lru-cache';

/** Room events a reconnecting client may be replayed; past this it gets a snapshot. */
export const REPLAY_LIMIT = 500;

/**
 * `sync.request`s per member on a node, all its tabs together (I14): a burst of 6, then one every
 * 500 ms. An honest client asks once per revision gap; past this it is a loop or a flood, and is
 * refused `rate_limited` before any database work.
 */
export const SYNC_REQUESTS_PER_MEMBER = { perSec: 2, burst: 6 } as const;

/**
 * A loaded answer (a snapshot, or the log's tail) is reused this long at most, and only while
 * this node has published nothing newer in its room: if the node missed another node's event
 * (Redis away), a client's resync must still reach the database soon.
 */
export const SYNC_REUSE_MS = 1_000;

/** Members' sync budgets kept at most (I10); the least recently used go first. */
const MAX_SYNC_BUDGETS = 20_000;

/** Rooms whose last answers are kept at most (I10); the least recently used go first. */
const MAX_CACHED_ROOMS = 5_000;

/** The room's events after `from` up to `revision`, as read at `loadedAt`. */
interface LogTail {
  from: number;
  revision: number;
  events: readonly RoomEvent[];
  loadedAt: number;
}

/** A room's last answers: its snapshot and the widest tail of its log, each with when it was read. */
interface RoomAnswers {
  snapshot: { snapshot: RoomSnapshot; loadedAt: number } | null;
  tail: LogTail | null;
}

/** Who asks, for the database's lanes: the member's reads are their party; the deadline their request's. */
export interface Asker {
  party: string;
  /** performance.now() past which nobody waits for the answer. */
  deadline: number;
}

/**
 * What a client syncs from, with the identical work shared (I14): the room events after the
 * revision it has (at most REPLAY_LIMIT, while the log still holds them), else a snapshot. Sent on
 * connect and on `sync.request` (a client that saw a revision gap).
 *
 * A lesson room's answer depends only on the room and the revision asked from, never on who asks
 * (the room's events and snapshot reach every member alike; private boards are rooms of their own,
 * synced by `board.sync` with their reader checked on every request). So answers are shared
 * between everyone in the room:
 * - the last snapshot and the widest tail of the log read (the events after some revision `from`
 *   up to the room's revision `r`) are kept per room for SYNC_REUSE_MS, while this node has
 *   published nothing past `r` in the room; any ask from a revision in [from, r] is answered from
 *   that tail, without the database: a flooder asking from 0 again and again, and every member
 *   already at `r`, cost no database work;
 * - a read already running for the same room and revision is shared by everyone asking meanwhile.
 * Each member has a budget of sync requests (SYNC_REQUESTS_PER_MEMBER), checked first: a refusal
 * costs no database work. Whether the asker may have the answer (its session not ended: revoked,
 * closed) is checked on every request, before and after the answer is found, cached or not.
 * The database reads run as the asker's party (the lanes take members in turn) and are dropped
 * unrun when the asker's deadline passes while they wait for a connection.
 */
export class SyncService {
  private readonly loading = new Map<string, Promise<SyncMessage>>();
  private readonly snapshotsLoading = new Map<string, Promise<RoomSnapshot | null>>();
  private readonly rooms = new LRUCache<string, RoomAnswers>({ max: MAX_CACHED_ROOMS });
  private readonly budgets = new LRUCache<string, TokenBucket>({ max: MAX_SYNC_BUDGETS });

  constructor(
    private readonly store: Pick<Store, 'eventsAfter' | 'loadRoomSnapshot'>,
    private readonly publisher: Pick<RoomPublisher, 'latestRevision'>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The sync a connecting socket starts from (no budget: the handshake is limited on its own). */
  build(roomId: string, lastRevision: number | undefined, asker?: Asker): Promise<SyncMessage> {
    return this.compute(roomId, lastRevision, asker);
  }

  /** A member's `sync.request`, charged to their budget (refused `rate_limited` past it). */
  request(roomId: string, userId: string, lastRevision: number | undefined, asker?: Asker): Promise<SyncMessage> {
    // Charged even when shared or cached: each answer is still a reply of up to a whole board to send.
    if (!this.budgetOf(`${roomId}/${userId}`).take(this.now())) {
      return Promise.reject(new Refusal({ code: ErrorCode.RATE_LIMITED, message: refusalText.rate_limited }));
    }
    return this.compute(roomId, lastRevision, asker ?? { party: `${roomId}/${userId}`, deadline: Infinity });
  }

  /** Forgets a room's cached answers (its last local socket left). */
  forgetRoom(roomId: string): void {
    this.rooms.delete(roomId);
  }

  private budgetOf(member: string): TokenBucket {
    let bucket = this.budgets.get(member);
    if (!bucket) {
      bucket = new TokenBucket(SYNC_REQUESTS_PER_MEMBER.perSec, SYNC_REQUESTS_PER_MEMBER.burst, this.now());
      this.budgets.set(member, bucket);
    }
    return bucket;
  }

  private answersOf(roomId: string): RoomAnswers {
    let answers = this.rooms.get(roomId);
    if (!answers) {
      answers = { snapshot: null, tail: null };
      this.rooms.set(roomId, answers);
    }
    return answers;
  }

  /** Whether an answer read at `revision` and `loadedAt` may still be served (see the class comment). */
  private reusable(roomId: string, revision: number, loadedAt: number): boolean {
    return this.now() - loadedAt < SYNC_REUSE_MS && (this.publisher.latestRevision(roomId) ?? revision) <= revision;
  }

  private compute(roomId: string, lastRevision: number | undefined, asker?: Asker): Promise<SyncMessage> {
    if (lastRevision === undefined) return this.snapshotSync(roomId, asker);
    const tail = this.rooms.get(roomId)?.tail;
    if (tail && lastRevision >= tail.from && lastRevision <= tail.revision && this.reusable(roomId, tail.revision, tail.loadedAt)) {
      const events = tail.events.slice(lastRevision - tail.from);
      return Promise.resolve({ kind: 'replay', fromRevision: lastRevision, events: [...events] });
    }
    const key = `${roomId}/${lastRevision}`;
    const loading = this.loading.get(key);
    if (loading) return loading;
    const load = this.readReplay(roomId, lastRevision, asker).finally(() => this.loading.delete(key));
    this.loading.set(key, load);
    return load;
  }

  private async readReplay(roomId: string, lastRevision: number, asker: Asker | undefined): Promise<SyncMessage> {
    const loadedAt = this.now();
    const replay = await this.asAsker(asker, () => this.store.eventsAfter(roomId, lastRevision, REPLAY_LIMIT));
    if (replay.kind !== 'replay') return this.snapshotSync(roomId, asker);
    const answers = this.answersOf(roomId);
    const kept = answers.tail;
    // A tail past its reuse goes; else the newest wins, and at the same revision the wider (or as wide: fresher).
    const replace =
      !kept ||
      !this.reusable(roomId, kept.revision, kept.loadedAt) ||
      replay.revision > kept.revision ||
      (replay.revision === kept.revision && lastRevision <= kept.from);
    if (replace) {
      answers.tail = { from: lastRevision, revision: replay.revision, events: replay.events, loadedAt };
    }
    return { kind: 'replay', fromRevision: lastRevision, events: replay.events };
  }

  private async snapshotSync(roomId: string, asker: Asker | undefined): Promise<SyncMessage> {
    const snapshot = await this.snapshot(roomId, asker);
    if (!snapshot) throw new Refusal({ code: ErrorCode.ROOM_NOT_FOUND, message: 'This room no longer exists.' });
    return { kind: 'snapshot', snapshot };
  }

  private snapshot(roomId: string, asker: Asker | undefined): Promise<RoomSnapshot | null> {
    const cached = this.rooms.get(roomId)?.snapshot;
    if (cached && this.reusable(roomId, cached.snapshot.revision, cached.loadedAt)) return Promise.resolve(cached.snapshot);
    const loading = this.snapshotsLoading.get(roomId);
    if (loading) return loading;
    const loadedAt = this.now();
    const load = this.asAsker(asker, () => this.store.loadRoomSnapshot(roomId))
      .then((snapshot) => {
        if (snapshot) this.answersOf(roomId).snapshot = { snapshot, loadedAt };
        return snapshot;
      })
      .finally(() => this.snapshotsLoading.delete(roomId));
    this.snapshotsLoading.set(roomId, load);
    return load;
  }

  private asAsker<T>(asker: Asker | undefined, read: () => Promise<T>): Promise<T> {
    if (!asker) return read();
    return withWork({ party: asker.party, ...(Number.isFinite(asker.deadline) ? { deadline: asker.deadline } : {}) }, read);
  }
}

/** A session that has ended (revoked, closed, signed out) is answered with why, never with the room. */
function refuseEnded(session: SocketSession): void {
  const presence = session.presence;
  if (presence.status !== 'ended') return;
  const code = presence.reason === ErrorCode.MEMBERSHIP_REVOKED ? ErrorCode.MEMBERSHIP_REVOKED : ErrorCode.SESSION_CLOSED;
  throw new Refusal({ code, message: code === ErrorCode.MEMBERSHIP_REVOKED ? refusalText.membership_revoked : 'This session has ended.' });
}

export function syncHandlers(sync: SyncService): Pick<ClientEventHandlers, typeof ClientEvent.SYNC_REQUEST> {
  return {
    [ClientEvent.SYNC_REQUEST]: async (session, request) => {
      refuseEnded(session);
      const asker = { party: `${session.roomId}/${session.userId}`, deadline: performance.now() + REQUEST_DEADLINE_MS };
      let answer: SyncMessage;
      try {
        answer = await sync.request(session.roomId, session.userId, request.lastRevision, asker);
      } catch (error) {
        // Dropped unrun past the deadline: the server is past capacity, the client asks again.
        if (isDeadlineExceeded(error)) throw new Refusal({ code: ErrorCode.BUSY, message: refusalText.busy });
        throw error;
      }
      // The session may have ended while the answer was found (a revocation applied meanwhile).
      refuseEnded(session);
      return { sync: answer };
    },
  };
}
