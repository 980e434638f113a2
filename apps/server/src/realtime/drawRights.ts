import type { CursorVisibility, EditPolicy, Role, RoomInfo } from '@wb/protocol';

/** A room's cached rights are read again after this long (ms) if someone keeps drawing in it. */
export const DRAW_RIGHTS_REFRESH_MS = 30_000;

/** What the store says about who may draw in a room (`readDrawRights`). */
export interface RoomDrawRights {
  editPolicy: EditPolicy;
  status: RoomInfo['status'];
  /** Students whose pen the teacher muted. */
  mutedUserIds: readonly string[];
  cursorVisibility: CursorVisibility;
  laserAllowed: boolean;
}

interface CachedRights {
  editPolicy: EditPolicy;
  open: boolean;
  muted: Set<string>;
  cursorVisibility: CursorVisibility;
  laserAllowed: boolean;
  /** When it was read or last heard of (ms, monotonic). */
  at: number;
}

/** Why a student may not send ink: the `policyText` key the refusal uses. */
export type InkRefusal = 'lookOnly' | 'penMuted' | 'lessonClosed';

/**
 * This node's view of who may draw in each room, for live ink, and of the lesson's other settings
 * the ephemeral path obeys (cursor visibility, the students' laser): a volatile packet 30 times a second
 * cannot afford a database read, so the answer comes from here. It is kept from `room.updated`
 * (the lesson's edit policy and status) and `member.pen` events (this node's and, through the
 * adapter, other nodes'), read once per room when unknown, and read again in the background every
 * DRAW_RIGHTS_REFRESH_MS while ink flows (a lost relay message heals by itself).
 *
 * It only filters ephemeral ink: a stale answer can show a few strokes in progress that the
 * durable `element.create` then refuses (that check is inside the store's conditional write, I11),
 * never store one. While a room's rights are unknown its students' ink is dropped, not guessed.
 */
export class DrawRights {
  private readonly rooms = new Map<string, CachedRights>();
  private readonly reading = new Map<string, Promise<void>>();

  constructor(
    private readonly read: (roomId: string) => Promise<RoomDrawRights | null>,
    private readonly now: () => number = () => performance.now(),
    private readonly refreshMs = DRAW_RIGHTS_REFRESH_MS,
  ) {}

  /**
   * Whether the member may draw in the room now: `true`, the reason they may not, or `null` while
   * the room's rights are unknown (being read). A teacher always may. On a private board of the
   * lesson (`onPrivateBoard`) the lesson's edit policy does not apply: the board has its own.
   */
  mayDraw(roomId: string, role: Role, userId: string, onPrivateBoard = false): true | InkRefusal | null {
    if (role === 'teacher') return true;
    const rights = this.rooms.get(roomId);
    if (!rights || this.now() - rights.at >= this.refreshMs) void this.learn(roomId);
    if (!rights) return null;
    if (!rights.open) return 'lessonClosed';
    if (rights.editPolicy === 'look' && !onPrivateBoard) return 'lookOnly';
    if (rights.muted.has(userId)) return 'penMuted';
    return true;
  }

  /**
   * Whose cursors the room's students receive, or `null` while unknown (being read): the fan-out
   * then sends students no one's cursor (ephemeralFanout.ts).
   */
  cursorVisibility(roomId: string): CursorVisibility | null {
    const rights = this.rooms.get(roomId);
    if (!rights) void this.learn(roomId);
    return rights?.cursorVisibility ?? null;
  }

  /** Whether the member may use the laser pointer now; `null` while the room's settings are unknown. */
  mayLaser(roomId: string, role: Role): boolean | null {
    if (role === 'teacher') return true;
    const rights = this.rooms.get(roomId);
    if (!rights) void this.learn(roomId);
    return rights ? rights.open && rights.laserAllowed : null;
  }

  /** Reads the room's rights unless a read is already under way; settles when that read has. */
  learn(roomId: string): Promise<void> {
    const under = this.reading.get(roomId);
    if (under) return under;
    const startedAt = this.now();
    const reading = this.read(roomId).then(
      (read) => {
        this.reading.delete(roomId);
        // An event heard while the read was under way is newer than the read's answer.
        const heard = this.rooms.get(roomId);
        if (read === null || (heard && heard.at > startedAt)) return;
        this.rooms.set(roomId, {
          editPolicy: read.editPolicy,
          open: read.status === 'open',
          muted: new Set(read.mutedUserIds),
          cursorVisibility: read.cursorVisibility,
          laserAllowed: read.laserAllowed,
          at: this.now(),
        });
      },
      () => {
        this.reading.delete(roomId);
      },
    );
    this.reading.set(roomId, reading);
    return reading;
  }

  /**
   * Makes the room's rights known before a student's session starts, so their first stroke's live
   * ink is not dropped as unknown: one read when this node does not know the room yet, none after.
   */
  async ensure(roomId: string): Promise<void> {
    if (!this.rooms.has(roomId)) await this.learn(roomId);
  }

  /** A `room.updated` event: the lesson's policy or status changed (published here or relayed). */
  roomUpdated(room: RoomInfo): void {
    const known = this.rooms.get(room.id);
    // Muted pens are not in the event: a room not known yet is read in full at its next ink packet.
    if (!known) return;
    const { editPolicy, cursorVisibility, laserAllowed } = room.settings;
    this.rooms.set(room.id, { ...known, editPolicy, cursorVisibility, laserAllowed, open: room.status === 'open', at: this.now() });
  }

  /** A `member.pen` event: the teacher muted a student's pen or gave it back. */
  penChanged(roomId: string, userId: string, muted: boolean): void {
    const known = this.rooms.get(roomId);
    if (!known) return; // read in full at the room's next ink packet
    if (muted) known.muted.add(userId);
    else known.muted.delete(userId);
  }

  /** The room's last local socket left (I10). */
  forgetRoom(roomId: string): void {
    this.rooms.delete(roomId);
  }
}
