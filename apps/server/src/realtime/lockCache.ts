/**
 * This node's view of each element's current lock generation, kept from lock events (its own and,
 * through the adapter, other nodes'). It filters volatile drag moves: a move whose generation is
 * not current is dropped (I4). It also answers the common case of contention without a database
 * transaction: an acquire for an element that is surely held by someone else is refused here.
 *
 * "Surely held" is conservative. The node knows a lock lives at least its first term from the
 * grant, or the full term from an extension this node made, and counts from the moment it learned
 * of it (never earlier than the database's own clock started the term), minus a safety margin. A
 * stale entry can only refuse an acquire that the database would have granted, which the client
 * retries on its next pointer-down; it can never grant one. Grants and commits are decided by the
 * database, never by this cache.
 */
export interface CachedLock {
  sessionId: string | null;
  generation: number;
  /** When this node last extended the lock for a move (ms, monotonic). */
  lastExtendedAt: number;
  /** Until when (ms, monotonic) the lock is certainly still held by `sessionId`. */
  heldUntil: number;
}

export interface LockTerms {
  /** A fresh grant's first term (LOCK_FIRST_TERM_MS). */
  firstTermMs: number;
  /** A confirmed lock's term after each extension (LOCK_TTL_MS). */
  ttlMs: number;
  /** Taken off both, for the time between the database's decision and this node hearing of it. */
  marginMs?: number;
}

export class LockCache {
  private readonly locks = new Map<string, CachedLock>();
  private readonly marginMs: number;

  constructor(
    private readonly terms: LockTerms,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.marginMs = terms.marginMs ?? 500;
  }

  private key(roomId: string, elementId: string): string {
    return `${roomId}/${elementId}`;
  }

  get(roomId: string, elementId: string): CachedLock | undefined {
    return this.locks.get(this.key(roomId, elementId));
  }

  /** Records a generation; an older one than the cached never replaces it (generations only grow). */
  set(roomId: string, elementId: string, sessionId: string | null, generation: number): void {
    const key = this.key(roomId, elementId);
    const current = this.locks.get(key);
    if (current && current.generation > generation) return;
    if (current && current.generation === generation && sessionId !== null && current.sessionId === null) return;
    const same = current?.generation === generation;
    const heldUntil =
      sessionId === null ? 0 : same ? current.heldUntil : this.now() + this.terms.firstTermMs - this.marginMs;
    this.locks.set(key, { sessionId, generation, lastExtendedAt: same ? current.lastExtendedAt : 0, heldUntil });
  }

  /** This node extended the lock at `at` (taken before the request left), and the database agreed. */
  extended(roomId: string, elementId: string, generation: number, at: number): void {
    const lock = this.get(roomId, elementId);
    if (!lock || lock.generation !== generation || lock.sessionId === null) return;
    lock.heldUntil = Math.max(lock.heldUntil, at + this.terms.ttlMs - this.marginMs);
  }

  /** True when another session certainly holds the element now: an acquire would be refused. */
  heldByOther(roomId: string, elementId: string, sessionId: string): boolean {
    const lock = this.get(roomId, elementId);
    return lock !== undefined && lock.sessionId !== null && lock.sessionId !== sessionId && this.now() < lock.heldUntil;
  }

  forgetRoom(roomId: string): void {
    for (const key of this.locks.keys()) if (key.startsWith(`${roomId}/`)) this.locks.delete(key);
  }

  get size(): number {
    return this.locks.size;
  }
}
