/**
 * This node's view of each element's current lock generation, kept from lock events (its own and,
 * through the adapter, other nodes'). It only filters volatile drag moves: a move whose generation
 * is not current is dropped (I4). Commits are decided by the database, never by this cache.
 */
export interface CachedLock {
  sessionId: string | null;
  generation: number;
  /** When this node last extended the lock for a move (ms, monotonic). */
  lastExtendedAt: number;
}

export class LockCache {
  private readonly locks = new Map<string, CachedLock>();

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
    this.locks.set(key, { sessionId, generation, lastExtendedAt: current?.generation === generation ? current.lastExtendedAt : 0 });
  }

  forgetRoom(roomId: string): void {
    for (const key of this.locks.keys()) if (key.startsWith(`${roomId}/`)) this.locks.delete(key);
  }

  get size(): number {
    return this.locks.size;
  }
}
