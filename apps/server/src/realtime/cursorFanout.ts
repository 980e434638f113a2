import type { CursorEntry } from '@wb/protocol';

/**
 * Per-room cursor batching (cursors are ephemeral: never stored). Each room keeps the latest
 * position per session (a newer packet supersedes an unsent one) and flushes on a tick of about
 * 30 Hz. A room that has been quiet for a whole tick flushes at once, so a lone cursor does not
 * wait. Relaying each packet on its own costs ~8x more per delivered update (see BENCHMARKS.md).
 */
export class CursorFanout {
  private readonly rooms = new Map<string, RoomCursors>();

  constructor(
    private readonly tickMs: number,
    private readonly send: (roomId: string, cursors: CursorEntry[]) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  push(roomId: string, entry: CursorEntry): void {
    let room = this.rooms.get(roomId);
    if (!room) {
      room = { pending: new Map(), timer: null, lastFlush: -Infinity };
      this.rooms.set(roomId, room);
    }
    room.pending.set(entry.sessionId, entry);
    if (room.timer) return;
    const sinceLast = this.now() - room.lastFlush;
    if (sinceLast >= this.tickMs) {
      this.flush(roomId, room);
    } else {
      room.timer = setTimeout(() => {
        room.timer = null;
        this.flush(roomId, room);
      }, this.tickMs - sinceLast);
    }
  }

  /** Drops a session's unsent position: it expired, closed or was revoked (never revive it). */
  forget(roomId: string, sessionIds: Iterable<string>): void {
    const room = this.rooms.get(roomId);
    if (!room) return;
    for (const id of sessionIds) room.pending.delete(id);
  }

  /** Drops every unsent position of a user in a room. */
  forgetUser(roomId: string, userId: string): void {
    const room = this.rooms.get(roomId);
    if (!room) return;
    for (const [sessionId, entry] of room.pending) if (entry.userId === userId) room.pending.delete(sessionId);
  }

  stop(): void {
    for (const room of this.rooms.values()) if (room.timer) clearTimeout(room.timer);
    this.rooms.clear();
  }

  private flush(roomId: string, room: RoomCursors): void {
    room.lastFlush = this.now();
    if (room.pending.size === 0) {
      // Nothing moved for a tick: forget the room so idle rooms cost nothing.
      this.rooms.delete(roomId);
      return;
    }
    const cursors = [...room.pending.values()];
    room.pending.clear();
    this.send(roomId, cursors);
  }
}

interface RoomCursors {
  pending: Map<string, CursorEntry>;
  timer: NodeJS.Timeout | null;
  lastFlush: number;
}
