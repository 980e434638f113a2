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
 */
import { LASER_FADE_MS, VIEWPORT_SYNC_MS, type Ack, type FollowSignal, type LaserEntry, type SharedView, type ViewportEntry } from '@wb/protocol';
import { createStore, type StoreApi } from 'zustand/vanilla';
import { clampZoom, type Viewport } from '../board/viewport.ts';

export interface AttentionPorts {
  laser(x: number, y: number): void;
  viewport(view: SharedView): void;
  followSet(following: boolean): Promise<Ack<{ following: boolean }>>;
  followBring(view: SharedView): Promise<Ack<Record<string, never>>>;
  followPresent(presenting: boolean, view: SharedView): Promise<Ack<{ presenting: boolean }>>;
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

/** Where the board should move: a serial per request, so the same view asked twice moves twice. */
export interface ViewRequest {
  readonly view: SharedView;
  readonly serial: number;
}

export interface LaserPoint {
  readonly sessionId: string;
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
  private lastTeacherView: SharedView | null = null;
  private lastOwnView: SharedView | null = null;
  private viewportSentAt = 0;
  private viewportTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly ports: AttentionPorts,
    private readonly self: { sessionId: string; role: 'teacher' | 'student' },
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

  /** Our pointer moved while the laser is on: send it and draw it here too. */
  pointLaser(x: number, y: number): void {
    this.ports.laser(x, y);
    this.addLaser([[this.self.sessionId, x, y]]);
  }

  /** Laser points of others from a batch (ours are already drawn). */
  receiveLaser(entries: readonly LaserEntry[]): void {
    this.addLaser(entries.filter(([sessionId]) => sessionId !== this.self.sessionId));
  }

  /** Drops faded points; returns whether any remain (the layer keeps animating while so). */
  pruneLaser(): boolean {
    const cutoff = this.now() - LASER_FADE_MS;
    const points = this.laser.getState().points;
    const kept = points.filter((p) => p.at > cutoff);
    if (kept.length !== points.length) this.laser.setState({ points: kept });
    return kept.length > 0;
  }

  private addLaser(entries: readonly LaserEntry[]): void {
    if (entries.length === 0) return;
    const at = this.now();
    const cutoff = at - LASER_FADE_MS;
    const points = this.laser.getState().points.filter((p) => p.at > cutoff);
    for (const [sessionId, x, y] of entries) points.push({ sessionId, x, y, at });
    this.laser.setState({ points });
  }

  /** The teacher's view from a batch: we receive it only while following. */
  receiveViewport(entry: ViewportEntry): void {
    this.lastTeacherView = entry.view;
    if (this.view.getState().following) this.requestView(entry.view);
  }

  receiveFollow(signal: FollowSignal): void {
    switch (signal.kind) {
      case 'bring':
        this.lastTeacherView = signal.view;
        this.requestView(signal.view);
        break;
      case 'presenting':
        this.lastTeacherView = signal.view;
        // Told again while we knew (after a reconnect, ours or the teacher's): a student who panned
        // away stays where they are; one who follows moves to the view. A fresh page follows.
        if (signal.presenting && this.view.getState().teacherPresenting) {
          if (this.view.getState().following) this.requestView(signal.view);
          break;
        }
        this.view.setState({ teacherPresenting: signal.presenting, following: signal.presenting });
        if (signal.presenting) {
          this.requestView(signal.view);
          void this.ports.followSet(true);
        }
        break;
      case 'followers':
        this.view.setState({ followers: signal.count });
        break;
    }
  }

  /** The person moved their own view (pan, zoom): a student stops following; a presenting teacher shares it. */
  viewMoved(view: SharedView): void {
    this.lastOwnView = view;
    if (this.isTeacher) {
      if (this.view.getState().presenting) this.shareView();
      return;
    }
    if (!this.view.getState().following) return;
    this.view.setState({ following: false });
    void this.ports.followSet(false);
  }

  /** Student: "Return to the teacher". */
  returnToTeacher(): void {
    this.view.setState({ following: true });
    if (this.lastTeacherView) this.requestView(this.lastTeacherView);
    void this.ports.followSet(true);
  }

  /** Teacher: "Bring everyone to me". */
  async bringEveryone(view: SharedView): Promise<void> {
    this.lastOwnView = view;
    await this.ports.followBring(view);
  }

  /** Teacher: start or stop presenting. */
  async setPresenting(presenting: boolean, view: SharedView): Promise<void> {
    this.lastOwnView = view;
    this.view.setState({ presenting, ...(presenting ? {} : { followers: 0 }) });
    await this.ports.followPresent(presenting, view);
  }

  /** The connection is back: the server forgot who follows and who presents; say it again. */
  reconnected(): void {
    const state = this.view.getState();
    if (this.isTeacher && state.presenting && this.lastOwnView) void this.ports.followPresent(true, this.lastOwnView);
    if (!this.isTeacher && state.following) void this.ports.followSet(true);
  }

  stop(): void {
    clearTimeout(this.viewportTimer);
  }

  private requestView(view: SharedView): void {
    this.serial += 1;
    this.viewRequest.setState({ view, serial: this.serial }, true);
  }

  /** At most one viewport packet every VIEWPORT_SYNC_MS; the last view of a burst is always sent. */
  private shareView(): void {
    if (this.viewportTimer !== undefined) return;
    const wait = this.viewportSentAt + VIEWPORT_SYNC_MS - this.now();
    const send = () => {
      this.viewportTimer = undefined;
      this.viewportSentAt = this.now();
      if (this.lastOwnView && this.view.getState().presenting) this.ports.viewport(this.lastOwnView);
    };
    if (wait <= 0) send();
    else this.viewportTimer = setTimeout(send, wait);
  }
}
