/**
 * The client side of the teacher's attention kit, with no React and no socket (ports passed in):
 * - local: hide others' cursors, the laser pointer on or off;
 * - follow (student): `following` the teacher's view while they present (a page opened while the
 *   teacher presents is told so by the server and follows at once); a pan of one's own stops it
 *   ("Return to the teacher" starts it again); "bring everyone" moves the view once;
 * - follow (teacher): presenting (every change of the view is shared, throttled), the count of
 *   students following, "bring everyone to me";
 * - laser trails: every point seen (ours included) for LASER_FADE_MS, then gone.
 * Where the board should move is published as `viewRequest` (a serial makes repeats distinct);
 * the board fits it to its own size (fitView).
 *
 * Every lesson page has the kit (the class board is the first page; a private board has none). A
 * point or a view is in one board's coordinates, so each names its board (the wire leaves the
 * class board's out, see @wb/protocol attention.ts), and:
 * - a laser point is drawn only on the board it was made on;
 * - a view request names its board and moves only that board (`takeView`). A student asked to a
 *   view on another page (brought, following, "Return to the teacher") is taken to that page first
 *   (`goToBoard`): following the teacher means being where she is, page included, and a student
 *   browsing freely must not have page 3's view fitted onto the page 2 they look at. The request
 *   waits for its board to come on the stage (`boardShown`). A paced student is on the teacher's
 *   page already (a move of hers arrives before her first view there);
 * - a following student who goes to another page on their own stops following (as a pan does);
 * - a presenting teacher who changes page shares her view there at once, so followers come along.
 */
import { LASER_FADE_MS, VIEWPORT_SYNC_MS, type Ack, type FollowSignal, type LaserEntry, type SharedView, type ViewportEntry } from '@wb/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';
import { clampZoom, type Viewport } from '../board/viewport.ts';

/** The server's side; `boardId` is the wire's: a page's id, absent for the class board. */
export interface AttentionPorts {
  laser(x: number, y: number, boardId?: string): void;
  viewport(view: SharedView, boardId?: string): void;
  followSet(following: boolean): Promise<Ack<{ following: boolean }>>;
  followBring(view: SharedView, boardId?: string): Promise<Ack<Record<string, never>>>;
  followPresent(presenting: boolean, view: SharedView, boardId?: string): Promise<Ack<{ presenting: boolean }>>;
  /** Take this person to a page of the lesson (the lesson's id: its own page), where they may go. */
  goToBoard(boardId: string): void;
}

export interface AttentionView {
  /** This person hides everyone else's cursor on their own screen. */
  readonly hideCursors: boolean;
  /** This person's pointer is a laser. */
  readonly laserOn: boolean;
  /** Student: the teacher is presenting. */
  readonly teacherPresenting: boolean;
  /** Student: the view follows the teacher's. */
  readonly following: boolean;
  /** Teacher: presenting (students follow). */
  readonly presenting: boolean;
  /** Teacher: how many students follow now. */
  readonly followers: number;
}

/** A view on one board (the lesson's id for the class board). */
export interface BoardView {
  readonly view: SharedView;
  readonly boardId: string;
}

/** Where a board should move: a serial per request, so the same view asked twice moves twice. */
export interface ViewRequest extends BoardView {
  readonly serial: number;
}

export interface LaserPoint {
  readonly sessionId: string;
  /** The board it was made on (the lesson's id for the class board). */
  readonly boardId: string;
  readonly x: number;
  readonly y: number;
  /** When it was seen here (ms, this screen's clock): its age decides its fade. */
  readonly at: number;
}

export interface LaserView {
  readonly points: readonly LaserPoint[];
}

/** A shared view as this screen shows it: the same centre, zoomed so the whole of it fits. */
export function fitView(view: SharedView, screen: { width: number; height: number }): Viewport {
  const zoom = clampZoom(Math.min(screen.width / view.w, screen.height / view.h));
  return { zoom, x: screen.width / 2 - view.cx * zoom, y: screen.height / 2 - view.cy * zoom };
}

/** What this screen shows, as a shared view (board coordinates). */
export function sharedViewOf(vp: Viewport, screen: { width: number; height: number }): SharedView {
  return { cx: (screen.width / 2 - vp.x) / vp.zoom, cy: (screen.height / 2 - vp.y) / vp.zoom, w: screen.width / vp.zoom, h: screen.height / vp.zoom };
}

export class AttentionClient {
  readonly view: StoreApi<AttentionView>;
  readonly viewRequest: StoreApi<ViewRequest | null>;
  readonly laser: StoreApi<LaserView>;
  private serial = 0;
  /** The serial of the latest request a board took: each request moves its board once. */
  private takenSerial = 0;
  /** The board on this person's stage with the kit, as the board last said (`boardShown`). */
  private stageBoard: string | null = null;
  private lastTeacherView: BoardView | null = null;
  private lastOwnView: BoardView | null = null;
  private viewportSentAt = 0;
  private viewportTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly ports: AttentionPorts,
    private readonly self: { sessionId: string; role: 'teacher' | 'student'; lessonId: string },
    private readonly now: () => number = () => Date.now(),
  ) {
    this.view = createStore<AttentionView>(() => ({ hideCursors: false, laserOn: false, teacherPresenting: false, following: false, presenting: false, followers: 0 }));
    this.viewRequest = createStore<ViewRequest | null>(() => null);
    this.laser = createStore<LaserView>(() => ({ points: [] }));
  }

  get isTeacher(): boolean {
    return this.self.role === 'teacher';
  }

  setHideCursors(hide: boolean): void {
    this.view.setState({ hideCursors: hide });
  }

  setLaser(on: boolean): void {
    this.view.setState({ laserOn: on });
  }

  /** Our pointer moved on `boardId` while the laser is on: send it and draw it here too. */
  pointLaser(x: number, y: number, boardId: string): void {
    this.ports.laser(x, y, this.wire(boardId));
    this.addLaser([[this.self.sessionId, x, y]], boardId);
  }

  /** Laser points of others from a batch of `boardId` (ours are already drawn). */
  receiveLaser(entries: readonly LaserEntry[], boardId: string): void {
    this.addLaser(
      entries.filter(([sessionId]) => sessionId !== this.self.sessionId),
      boardId,
    );
  }

  /** Drops faded points; returns whether any remain (the layer keeps animating while so). */
  pruneLaser(): boolean {
    const cutoff = this.now() - LASER_FADE_MS;
    const points = this.laser.getState().points;
    const kept = points.filter((p) => p.at > cutoff);
    if (kept.length !== points.length) this.laser.setState({ points: kept });
    return kept.length > 0;
  }

  private addLaser(entries: readonly LaserEntry[], boardId: string): void {
    if (entries.length === 0) return;
    const at = this.now();
    const cutoff = at - LASER_FADE_MS;
    const points = this.laser.getState().points.filter((p) => p.at > cutoff);
    for (const [sessionId, x, y] of entries) points.push({ sessionId, boardId, x, y, at });
    this.laser.setState({ points });
  }

  /** The teacher's view from a batch: we receive it only while following. */
  receiveViewport(entry: ViewportEntry): void {
    this.lastTeacherView = this.onBoard(entry.view, entry.boardId);
    if (this.view.getState().following) this.requestView(this.lastTeacherView);
  }

  receiveFollow(signal: FollowSignal): void {
    switch (signal.kind) {
      case 'bring':
        this.lastTeacherView = this.onBoard(signal.view, signal.boardId);
        this.requestView(this.lastTeacherView);
        break;
      case 'presenting':
        this.lastTeacherView = this.onBoard(signal.view, signal.boardId);
        // Told again while we knew (after a reconnect, ours or the teacher's): a student who panned
        // away stays where they are; one who follows moves to the view. A fresh page follows.
        if (signal.presenting && this.view.getState().teacherPresenting) {
          if (this.view.getState().following) this.requestView(this.lastTeacherView);
          break;
        }
        this.view.setState({ teacherPresenting: signal.presenting, following: signal.presenting });
        if (signal.presenting) {
          this.requestView(this.lastTeacherView);
          void this.ports.followSet(true);
        }
        break;
      case 'followers':
        this.view.setState({ followers: signal.count });
        break;
    }
  }

  /** The person moved their own view (pan, zoom) on `boardId`: a student stops following; a presenting teacher shares it. */
  viewMoved(view: SharedView, boardId: string): void {
    this.lastOwnView = { view, boardId };
    if (this.isTeacher) {
      if (this.view.getState().presenting) this.shareView();
      return;
    }
    this.stopFollowing();
  }

  /**
   * A board with the kit came on this person's stage, showing `view`. Returns the view it should
   * move to first: a request for it made before it was there (the student was being taken to it).
   * A presenting teacher shares her view of it at once, so the students following come along.
   */
  boardShown(boardId: string, view: SharedView): SharedView | null {
    this.stageBoard = boardId;
    if (this.isTeacher) {
      this.lastOwnView = { view, boardId };
      if (this.view.getState().presenting) this.shareView();
    }
    return this.takeView(boardId);
  }

  /** The board left the stage (another page, a private board). */
  boardHidden(boardId: string): void {
    if (this.stageBoard === boardId) this.stageBoard = null;
  }

  /** The latest view request, if it is for `boardId` and no board took it yet. */
  takeView(boardId: string): SharedView | null {
    const request = this.viewRequest.getState();
    if (!request || request.boardId !== boardId || request.serial <= this.takenSerial) return null;
    this.takenSerial = request.serial;
    return request.view;
  }

  /**
   * Student: they go to a page on their own (browsing freely). Away from the teacher's page they
   * no longer follow her (as after a pan); to her page, they still do.
   */
  boardChosen(boardId: string): void {
    if (this.isTeacher || boardId === this.lastTeacherView?.boardId) return;
    this.stopFollowing();
  }

  /** Student: "Return to the teacher" (to her page, then her view). */
  returnToTeacher(): void {
    this.view.setState({ following: true });
    if (this.lastTeacherView) this.requestView(this.lastTeacherView);
    void this.ports.followSet(true);
  }

  /** Teacher: "Bring everyone to me" (to `view` on `boardId`). */
  async bringEveryone(view: SharedView, boardId: string): Promise<void> {
    this.lastOwnView = { view, boardId };
    await this.ports.followBring(view, this.wire(boardId));
  }

  /** Teacher: start or stop presenting (from `view` on `boardId`). */
  async setPresenting(presenting: boolean, view: SharedView, boardId: string): Promise<void> {
    this.lastOwnView = { view, boardId };
    this.view.setState({ presenting, ...(presenting ? {} : { followers: 0 }) });
    await this.ports.followPresent(presenting, view, this.wire(boardId));
  }

  /** The connection is back: the server forgot who follows and who presents; say it again. */
  reconnected(): void {
    const state = this.view.getState();
    const own = this.lastOwnView;
    if (this.isTeacher && state.presenting && own) void this.ports.followPresent(true, own.view, this.wire(own.boardId));
    if (!this.isTeacher && state.following) void this.ports.followSet(true);
  }

  stop(): void {
    clearTimeout(this.viewportTimer);
  }

  private stopFollowing(): void {
    if (!this.view.getState().following) return;
    this.view.setState({ following: false });
    void this.ports.followSet(false);
  }

  /** A view as received: its board is the class board when the wire names none. */
  private onBoard(view: SharedView, boardId: string | undefined): BoardView {
    return { view, boardId: boardId ?? this.self.lessonId };
  }

  /** A board id as the wire has it: none for the class board. */
  private wire(boardId: string): string | undefined {
    return boardId === this.self.lessonId ? undefined : boardId;
  }

  /** Moves the board to the view; the student goes to its page first when elsewhere. */
  private requestView(target: BoardView): void {
    this.serial += 1;
    this.viewRequest.setState({ ...target, serial: this.serial }, true);
    if (!this.isTeacher && target.boardId !== this.stageBoard) this.ports.goToBoard(target.boardId);
  }

  /** At most one viewport packet every VIEWPORT_SYNC_MS; the last view of a burst is always sent. */
  private shareView(): void {
    if (this.viewportTimer !== undefined) return;
    const wait = this.viewportSentAt + VIEWPORT_SYNC_MS - this.now();
    const send = () => {
      this.viewportTimer = undefined;
      this.viewportSentAt = this.now();
      const own = this.lastOwnView;
      if (own && this.view.getState().presenting) this.ports.viewport(own.view, this.wire(own.boardId));
    };
    if (wait <= 0) send();
    else this.viewportTimer = setTimeout(send, wait);
  }
}
