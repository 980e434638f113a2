import type { RoomEvent } from '@wb/protocol';

/** Lobby waits parked on this node at most; past it a waiting page is answered at once and asks again (I10). */
export const MAX_LOBBY_WAITERS = 5_000;

type Waiter = { key: string; wake: () => void };

const keyOf = (roomId: string, userId: string) => `${roomId}:${userId}`;

/**
 * Waiting pages parked on `GET /api/session/admission?waitMs=`: each is woken early by the room
 * event that decides it (admitted, denied, withdrawn, or the room archived), on whichever node it
 * was published (the publisher relays other nodes' events). The wake is only a hint: the route
 * reads the decision from the database again, and a waiter that hears nothing simply times out.
 */
export class LobbyWaiters {
  private readonly byKey = new Map<string, Set<Waiter>>();
  private size = 0;

  constructor(private readonly limit = MAX_LOBBY_WAITERS) {}

  /** Resolves after `ms`, or earlier when the member's admission may have changed. False when full. */
  wait(roomId: string, userId: string, ms: number): Promise<void> | false {
    if (this.size >= this.limit) return false;
    const key = keyOf(roomId, userId);
    return new Promise<void>((resolve) => {
      const waiter: Waiter = {
        key,
        wake: () => {
          clearTimeout(timer);
          this.remove(waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.wake, ms);
      const set = this.byKey.get(key) ?? new Set<Waiter>();
      set.add(waiter);
      this.byKey.set(key, set);
      this.size += 1;
    });
  }

  /** Feed every applied room event here. */
  onEvent(event: RoomEvent): void {
    switch (event.kind) {
      case 'member.admitted':
      case 'member.denied':
      case 'member.withdrawn':
        this.wakeKey(keyOf(event.roomId, event.payload.userId));
        break;
      case 'room.updated':
        if (event.payload.status === 'archived') {
          for (const key of [...this.byKey.keys()]) if (key.startsWith(`${event.roomId}:`)) this.wakeKey(key);
        }
        break;
      default:
        break;
    }
  }

  /** Wakes everyone (the server is closing). */
  wakeAll(): void {
    for (const key of [...this.byKey.keys()]) this.wakeKey(key);
  }

  get waiting(): number {
    return this.size;
  }

  private wakeKey(key: string): void {
    for (const waiter of [...(this.byKey.get(key) ?? [])]) waiter.wake();
  }

  private remove(waiter: Waiter): void {
    const set = this.byKey.get(waiter.key);
    if (!set?.delete(waiter)) return;
    this.size -= 1;
    if (set.size === 0) this.byKey.delete(waiter.key);
  }
}
