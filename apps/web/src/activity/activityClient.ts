/**
 * The activity, as this member may know it (docs/boards.md): the running activity, the boards of it
 * this member may see (a student their own and the shown ones; the teacher every board), and when
 * each board's owner last drew. Only what is about activities: each board itself (its sync state,
 * editor, undo, live ink, drags) is a `BoardEngine` like the class board's, which the connection
 * holds and this only asks it to follow or drop (`ActivityPorts`). The server decides who sees what;
 * this mirrors it. Pure of React: the views read its store.
 */
import { ClientEvent, ErrorCode, type Activity, type ActivityStart, type BoardInfo, type EditPolicy, type ProtocolError, type RoomEvent } from '@wb/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Request } from '../connection/request.ts';
import { randomUuid } from '../session/randomId.ts';

/** One board of the activity as the activity layer knows it. */
export interface ActivityBoard {
  readonly info: BoardInfo;
  /**
   * When its owner last changed an element on it (ms, local clock), for "last drew N s ago": from
   * the teacher's `board.list` (`lastDrewMsAgo`, so it survives a reload), then from the owner's
   * element events as they arrive (never the teacher's own comments).
   */
  readonly lastDrewAt: number | null;
}

export interface ActivityState {
  readonly activity: Activity | null;
  readonly boards: ReadonlyMap<string, ActivityBoard>;
  /** This student's own board of the current activity. */
  readonly mine: string | null;
  /** The board the teacher opened full size from the grid (null: the grid, or the class board). */
  readonly opened: string | null;
  /** The teacher's class grid is shown over the class board. */
  readonly gridOpen: boolean;
  readonly error: string | null;
}

/** What the activity needs from the connection. */
export interface ActivityPorts {
  request: Request;
  /** Hold a board engine for this board (made and synced if new). */
  follow(info: BoardInfo, editPolicy: EditPolicy): void;
  /** Drop the board's engine: no longer ours to see. */
  unfollow(boardId: string): void;
  /** The boards' edit policy changed with the activity's status (`frozen`, `ended`: look only). */
  policyChanged(boardId: string, editPolicy: EditPolicy): void;
}

/** A board's edit policy under its activity's status (the store's `setActivityStatus`). */
export const policyUnder = (status: Activity['status']): EditPolicy => (status === 'running' ? 'own' : 'look');

export class ActivityClient {
  readonly store: StoreApi<ActivityState> = createStore<ActivityState>(() => ({
    activity: null,
    boards: new Map(),
    mine: null,
    opened: null,
    gridOpen: true,
    error: null,
  }));
  /** Per board, the newest revision whose "last drew" was counted: a repeated event counts once. */
  private readonly counted = new Map<string, number>();
  /** Per board, the revision of the newest flag event applied. */
  private readonly flagged = new Map<string, number>();

  constructor(
    private readonly ports: ActivityPorts,
    private readonly self: { lessonId: string; userId: string; role: 'teacher' | 'student' },
    private readonly now: () => number = Date.now,
  ) {}

  /** After every (re)connect: subscriptions are per socket, so list and follow again. */
  async reconnected(): Promise<void> {
    const listed = await this.ports.request(ClientEvent.BOARD_LIST, {});
    if (!listed.ok) return;
    this.setActivity(listed.activity);
    for (const board of listed.boards) this.know(board);
    if (this.self.role === 'student' && listed.activity && listed.activity.status !== 'ended') await this.openMine();
  }

  /** A room event of the lesson (the activity changed) or of one of its boards (someone drew). */
  receiveEvent(event: RoomEvent): void {
    if (event.roomId === this.self.lessonId) {
      if (event.kind === 'activity.updated') this.activityChanged(event.payload);
      return;
    }
    const board = this.store.getState().boards.get(event.roomId);
    if (board && event.kind === 'board.flagged') {
      // The owner's "I'm done" / "I need help", or its clearing: the tile and the help queue read it.
      // Newest first wins (I1): a late flag event older than the one applied changes nothing.
      if ((this.flagged.get(event.roomId) ?? -1) >= event.revision) return;
      this.flagged.set(event.roomId, event.revision);
      this.put({ ...board, info: { ...board.info, flag: event.payload.flag, flaggedAt: event.payload.flaggedAt } });
      return;
    }
    if (!board || (this.counted.get(event.roomId) ?? -1) >= event.revision) return;
    if (event.kind !== 'element.created' && event.kind !== 'element.updated' && event.kind !== 'element.restored') return;
    this.counted.set(event.roomId, event.revision);
    // "Last drew" is the owner's work, as the server counts it (lastDrewMsAgo): not a teacher's comment.
    if (event.payload.element.updatedBy !== board.info.ownerUserId) return;
    this.put({ ...board, lastDrewAt: this.now() });
  }

  /** Teachers: a student who joined later opened their board. */
  receiveOpened(board: BoardInfo): void {
    this.know(board);
  }

  async start(title: string, start: ActivityStart): Promise<ProtocolError | null> {
    const reply = await this.ports.request(ClientEvent.ACTIVITY_START, { activityId: randomUuid(), title, start });
    if (!reply.ok) return reply.error;
    this.setActivity(reply.activity);
    for (const board of reply.boards) this.know(board);
    this.store.setState({ gridOpen: true, opened: null });
    return null;
  }

  /** Teacher: freeze, run (also: undo an end, when the server still allows it) or end; the refusal, if any. */
  async setStatus(status: Activity['status']): Promise<ProtocolError | null> {
    const activity = this.store.getState().activity;
    if (!activity) return null;
    const reply = await this.ports.request(ClientEvent.ACTIVITY_STATUS, { activityId: activity.id, status });
    if (!reply.ok) return reply.error;
    this.activityChanged(reply.activity);
    return null;
  }

  async show(boardId: string, label: string | null): Promise<void> {
    const activity = this.store.getState().activity;
    if (!activity) return;
    const reply = await this.ports.request(ClientEvent.BOARD_SHOW, { activityId: activity.id, boards: [{ boardId, label }] });
    if (reply.ok) this.activityChanged(reply.activity);
  }

  /** Teacher: open one board full size (null: back to the grid). */
  open(boardId: string | null): void {
    this.store.setState({ opened: boardId });
  }

  /** Teacher: the class grid over the class board, or the class board alone. */
  showGrid(open: boolean): void {
    this.store.setState({ gridOpen: open, opened: open ? this.store.getState().opened : null });
  }

  private setActivity(activity: Activity | null): void {
    const before = this.store.getState().activity;
    if (activity && before?.id !== activity.id) {
      // A new activity: the boards of the one before are no longer followed.
      for (const id of this.store.getState().boards.keys()) this.ports.unfollow(id);
      this.counted.clear();
      this.store.setState({ boards: new Map(), mine: null, opened: null, gridOpen: true });
    }
    this.store.setState({ activity });
  }

  private activityChanged(activity: Activity): void {
    const before = this.store.getState().activity;
    const isNew = before?.id !== activity.id;
    this.setActivity(activity);
    if (!isNew && before?.status !== activity.status) {
      for (const id of this.store.getState().boards.keys()) this.ports.policyChanged(id, policyUnder(activity.status));
    }
    if (this.self.role === 'student') {
      if (activity.status !== 'ended' && (isNew || !this.store.getState().mine)) void this.openMine();
      // Shown boards: follow the newly shown; drop the hidden ones that are not ours.
      const shown = new Set(activity.shown.map((s) => s.boardId));
      const mine = this.store.getState().mine;
      const boards = new Map(this.store.getState().boards);
      for (const id of [...boards.keys()]) {
        if (shown.has(id) || id === mine) continue;
        boards.delete(id);
        this.ports.unfollow(id);
      }
      this.store.setState({ boards });
      if ([...shown].some((id) => !boards.has(id))) void this.reconnected();
    } else if (isNew) {
      void this.reconnected();
    }
  }

  private async openMine(): Promise<void> {
    const reply = await this.ports.request(ClientEvent.BOARD_MINE, {});
    if (!reply.ok) {
      if (reply.error.code !== ErrorCode.NOT_FOUND) this.store.setState({ error: reply.error.message });
      return;
    }
    this.know(reply.board);
    this.store.setState({ mine: reply.board.id });
  }

  private know(info: BoardInfo): void {
    const existing = this.store.getState().boards.get(info.id);
    // The server's "how long ago" (a duration, I2) becomes a moment on our clock; a later event wins.
    const told = info.lastDrewMsAgo === undefined ? null : this.now() - info.lastDrewMsAgo;
    const lastDrewAt = Math.max(existing?.lastDrewAt ?? -Infinity, told ?? -Infinity);
    this.put({ info, lastDrewAt: Number.isFinite(lastDrewAt) ? lastDrewAt : null });
    const status = this.store.getState().activity?.status;
    this.ports.follow(info, status ? policyUnder(status) : info.editPolicy);
  }

  private put(board: ActivityBoard): void {
    const boards = new Map(this.store.getState().boards);
    boards.set(board.info.id, board);
    this.store.setState({ boards });
  }
}
