import type { Store } from '@wb/db';
import { ClientEvent, ErrorCode, refusalText, type RoomSnapshot, type SyncMessage } from '@wb/protocol';
import type { ClientEventHandlers } from './clientEvents.ts';
import { Refusal } from './requests.ts';
import type { RoomPublisher } from './roomPublisher.ts';
import { TokenBucket } from './tokenBucket.ts';

/** Room events a reconnecting client may be replayed; past this it gets a snapshot. */
export const REPLAY_LIMIT = 500;

/**
 * `sync.request`s per member on a node, all its tabs together (I14): a burst of 6, then one every
 * 500 ms. An honest client asks once per revision gap; past this it is a loop or a flood, and is
 * refused `rate_limited` before any database work.
 */
export const SYNC_REQUESTS_PER_MEMBER = { perSec: 2, burst: 6 } as const;

/**
 * A loaded snapshot is reused this long at most, and only while this node has published nothing
 * newer in its room: if the node missed another node's event (Redis away), a client's resync must
 * still reach the database soon.
 */
const SNAPSHOT_REUSE_MS = 1_000;

/** Members' sync budgets kept at most (I10); the least recently used go first. */
const MAX_SYNC_BUDGETS = 20_000;

/**
 * What a client syncs from, with the identical work shared (I14): the room events after the
 * revision it has (at most REPLAY_LIMIT, while the log still holds them), else a snapshot. Sent on
 * connect and on `sync.request` (a client that saw a revision gap).
 *
 * - A member's sync request while one of theirs with the same `lastRevision` is running gets that
 *   one's answer (a member's three tabs asking together cost one query).
 * - Snapshots of a room being loaded are shared by everyone asking meanwhile, and the last one is
 *   reused for up to a second while the room's revision (as this node has published it) has not moved.
 * - Each member has a budget of sync requests (SYNC_REQUESTS_PER_MEMBER), checked first: a refusal
 *   costs no database work.
 */
export class SyncService {
  private readonly running = new Map<string, Promise<SyncMessage>>();
  private readonly snapshotsLoading = new Map<string, Promise<RoomSnapshot | null>>();
  private readonly lastSnapshot = new Map<string, { snapshot: RoomSnapshot; loadedAt: number }>();
  private readonly budgets = new Map<string, TokenBucket>();

  constructor(
    private readonly store: Pick<Store, 'eventsAfter' | 'loadRoomSnapshot'>,
    private readonly publisher: Pick<RoomPublisher, 'latestRevision'>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The sync a connecting socket starts from (no budget: the handshake is limited on its own). */
  build(roomId: string, lastRevision: number | undefined): Promise<SyncMessage> {
    return this.compute(roomId, lastRevision);
  }

  /** A member's `sync.request`: shared with their running one, or charged to their budget. */
  request(roomId: string, userId: string, lastRevision: number | undefined): Promise<SyncMessage> {
    // Charged even when shared: each answer is still a reply of up to a whole board to send.
    if (!this.budgetOf(`${roomId}/${userId}`).take(this.now())) {
      return Promise.reject(new Refusal({ code: ErrorCode.RATE_LIMITED, message: refusalText.rate_limited }));
    }
    const key = `${roomId}/${userId}/${lastRevision ?? '-'}`;
    const running = this.running.get(key);
    if (running) return running;
    const work = this.compute(roomId, lastRevision).finally(() => this.running.delete(key));
    this.running.set(key, work);
    return work;
  }

  /** Forgets a room's cached snapshot (its last local socket left). */
  forgetRoom(roomId: string): void {
    this.lastSnapshot.delete(roomId);
  }

  private budgetOf(member: string): TokenBucket {
    let bucket = this.budgets.get(member);
    if (bucket) {
      this.budgets.delete(member);
    } else {
      bucket = new TokenBucket(SYNC_REQUESTS_PER_MEMBER.perSec, SYNC_REQUESTS_PER_MEMBER.burst, this.now());
      if (this.budgets.size >= MAX_SYNC_BUDGETS) {
        const oldest = this.budgets.keys().next();
        if (!oldest.done) this.budgets.delete(oldest.value);
      }
    }
    this.budgets.set(member, bucket);
    return bucket;
  }

  private async compute(roomId: string, lastRevision: number | undefined): Promise<SyncMessage> {
    if (lastRevision !== undefined) {
      const replay = await this.store.eventsAfter(roomId, lastRevision, REPLAY_LIMIT);
      if (replay.kind === 'replay') return { kind: 'replay', fromRevision: lastRevision, events: replay.events };
    }
    const snapshot = await this.snapshot(roomId);
    if (!snapshot) throw new Refusal({ code: ErrorCode.ROOM_NOT_FOUND, message: 'This room no longer exists.' });
    return { kind: 'snapshot', snapshot };
  }

  private snapshot(roomId: string): Promise<RoomSnapshot | null> {
    const cached = this.lastSnapshot.get(roomId);
    const fresh = cached && this.now() - cached.loadedAt < SNAPSHOT_REUSE_MS;
    const current = cached && (this.publisher.latestRevision(roomId) ?? cached.snapshot.revision) <= cached.snapshot.revision;
    if (fresh && current) return Promise.resolve(cached.snapshot);
    const loading = this.snapshotsLoading.get(roomId);
    if (loading) return loading;
    const load = this.store
      .loadRoomSnapshot(roomId)
      .then((snapshot) => {
        if (snapshot) this.lastSnapshot.set(roomId, { snapshot, loadedAt: this.now() });
        return snapshot;
      })
      .finally(() => this.snapshotsLoading.delete(roomId));
    this.snapshotsLoading.set(roomId, load);
    return load;
  }
}

export function syncHandlers(sync: SyncService): Pick<ClientEventHandlers, typeof ClientEvent.SYNC_REQUEST> {
  return {
    [ClientEvent.SYNC_REQUEST]: async (session, request) => ({ sync: await sync.request(session.roomId, session.userId, request.lastRevision) }),
  };
}
