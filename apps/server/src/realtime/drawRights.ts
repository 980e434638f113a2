import type { Role } from '@wb/protocol';

/** A room's cached rights are read again after this long (ms) if someone keeps drawing in it. */
export const DRAW_RIGHTS_REFRESH_MS = 30_000;

interface RoomRights {
  boardLocked: boolean;
  /** When it was read or heard (ms, monotonic). */
  at: number;
}

/**
 * This node's view of who may draw in each room, for live ink: a volatile packet 30 times a second
 * cannot afford a database read, so the answer comes from here. It is kept from `board.locked`
 * events (this node's and, through the adapter, other nodes'), read once per room when unknown,
 * and read again in the background every DRAW_RIGHTS_REFRESH_MS while ink flows (a lost relay
 * message heals by itself).
 *
 * It only filters ephemeral ink: a stale answer can show a few strokes in progress that the
 * durable `element.create` then refuses (that check is inside the store's conditional write, I11),
 * never store one. While a room's rights are unknown its students' ink is dropped, not guessed.
 */
export class DrawRights {
  private readonly rooms = new Map<string, RoomRights>();
  private readonly reading = new Set<string>();

  constructor(
    private readonly read: (roomId: string) => Promise<boolean | null>,
    private readonly now: () => number = () => performance.now(),
    private readonly refreshMs = DRAW_RIGHTS_REFRESH_MS,
  ) {}

  /** Whether a member of `role` may draw in the room now: null while unknown (being read). */
  mayDraw(roomId: string, role: Role): boolean | null {
    if (role === 'teacher') return true;
    const rights = this.rooms.get(roomId);
    if (!rights || this.now() - rights.at >= this.refreshMs) this.learn(roomId);
    return rights ? !rights.boardLocked : null;
  }

  /** Reads the room's rights unless a read is already under way. */
  learn(roomId: string): void {
    if (this.reading.has(roomId)) return;
    this.reading.add(roomId);
    const startedAt = this.now();
    this.read(roomId).then(
      (boardLocked) => {
        this.reading.delete(roomId);
        // An event heard while the read was under way is newer than the read's answer.
        const heard = this.rooms.get(roomId);
        if (boardLocked === null || (heard && heard.at > startedAt)) return;
        this.rooms.set(roomId, { boardLocked, at: this.now() });
      },
      () => this.reading.delete(roomId),
    );
  }

  /** A `board.locked` event (published here or relayed from another node). */
  boardLocked(roomId: string, locked: boolean): void {
    this.rooms.set(roomId, { boardLocked: locked, at: this.now() });
  }

  /** The room's last local socket left (I10). */
  forgetRoom(roomId: string): void {
    this.rooms.delete(roomId);
  }
}
