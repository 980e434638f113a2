import type { CursorBatch, CursorEntry, DragEntry } from '@wb/protocol';

/**
 * The ephemeral fan-out: per room, everything volatile that moves (today cursors and the drag
 * moves of locked elements; other volatile motion, such as viewports, belongs here too) is
 * batched, never stored, and sent to the room once per tick as one `cursors` batch. Each room
 * keeps the latest position per session and per dragged element (a newer packet supersedes an
 * unsent one). The tick is read at each scheduling, so it can follow the node's load (see
 * adaptiveTick.ts): about 80 Hz on a calm node, 30 Hz on a busy one. A room that has been quiet
 * for a whole tick flushes at once, so a lone cursor does not wait. Relaying each packet on its
 * own costs several times more per delivered update (see BENCHMARKS.md).
 */
export class EphemeralFanout {
  private readonly rooms = new Map<string, RoomEphemera>();

  private readonly tickMs: () => number;

  constructor(
    tick: number | (() => number),
    private readonly send: (roomId: string, batch: CursorBatch) => void,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tickMs = typeof tick === 'number' ? () => tick : tick;
  }

  /** The latest position of a session (`entry[0]`) of user `userId`. */
  pushCursor(roomId: string, userId: string, entry: CursorEntry): void {
    const room = this.room(roomId);
    room.pending.set(entry[0], { userId, entry });
    this.schedule(roomId, room);
  }

  /** A drag move under a current lock generation; a newer one for the element supersedes it. */
  pushDrag(roomId: string, entry: DragEntry): void {
    const room = this.room(roomId);
    room.drags.set(entry.elementId, entry);
    this.schedule(roomId, room);
  }

  /** Drops an element's unsent drag position: its lock ended (a late move must not show). */
  forgetDrag(roomId: string, elementId: string): void {
    this.rooms.get(roomId)?.drags.delete(elementId);
  }

  private room(roomId: string): RoomEphemera {
    let room = this.rooms.get(roomId);
    if (!room) {
      room = { pending: new Map(), drags: new Map(), timer: null, lastFlush: -Infinity };
      this.rooms.set(roomId, room);
    }
    return room;
  }

  private schedule(roomId: string, room: RoomEphemera): void {
    if (room.timer) return;
    const sinceLast = this.now() - room.lastFlush;
    const tickMs = this.tickMs();
    if (sinceLast >= tickMs) {
      this.flush(roomId, room);
    } else {
      room.timer = setTimeout(() => {
        room.timer = null;
        this.flush(roomId, room);
      }, tickMs - sinceLast);
    }
  }

  /** Drops a session's unsent position: it expired, closed or was revoked (never revive it). */
  forgetSessions(roomId: string, sessionIds: Iterable<string>): void {
    const room = this.rooms.get(roomId);
    if (!room) return;
    for (const id of sessionIds) {
      room.pending.delete(id);
      for (const [elementId, drag] of room.drags) if (drag.sessionId === id) room.drags.delete(elementId);
    }
  }

  /** Drops every unsent position of a user in a room. */
  forgetUser(roomId: string, userId: string): void {
    const room = this.rooms.get(roomId);
    if (!room) return;
    for (const [sessionId, pending] of room.pending) if (pending.userId === userId) room.pending.delete(sessionId);
    for (const [elementId, drag] of room.drags) if (drag.userId === userId) room.drags.delete(elementId);
  }

  stop(): void {
    for (const room of this.rooms.values()) if (room.timer) clearTimeout(room.timer);
    this.rooms.clear();
  }

  private flush(roomId: string, room: RoomEphemera): void {
    room.lastFlush = this.now();
    if (room.pending.size === 0 && room.drags.size === 0) {
      // Nothing moved for a tick: forget the room so idle rooms cost nothing.
      this.rooms.delete(roomId);
      return;
    }
    const batch: CursorBatch = { cursors: Array.from(room.pending.values(), (pending) => pending.entry) };
    if (room.drags.size > 0) batch.drags = [...room.drags.values()];
    room.pending.clear();
    room.drags.clear();
    this.send(roomId, batch);
  }
}

/** One room's unsent positions. */
interface RoomEphemera {
  /** By session id: the user is kept beside the entry (the wire entry has none) for forgetUser. */
  pending: Map<string, { userId: string; entry: CursorEntry }>;
  drags: Map<string, DragEntry>;
  timer: NodeJS.Timeout | null;
  lastFlush: number;
}
