import {
  BOARD_POINTER_MS,
  ClientEvent,
  ErrorCode,
  MAX_COORDINATE,
  PROTOCOL_VERSION,
  ServerEvent,
  isErrorCode,
  isFatalErrorCode,
  type Ack,
  type AckedClientEvent,
  type BoardInfo,
  type Page,
  type BoardPointers,
  type ClearBoardReply,
  type ClientReply,
  type ClientRequest,
  type EditPolicy,
  type ClientToServerEvents,
  type CursorUpdate,
  type ElementReply,
  type HistoryEntry,
  type RestoreBatchReply,
  type RoomInfo,
  type HandshakeAuth,
  type ProtocolError,
  type ServerToClientEvents,
  type SessionGrant,
  type SyncRequest,
  type Welcome,
} from '@wb/protocol';
import { io, type Socket } from 'socket.io-client';
import { AttentionClient, type AttentionPorts } from '../attention/attentionClient.ts';
import { ActivityClient } from '../activity/activityClient.ts';
import type { BoardEditor, EditorTransport } from '../elements/boardEditor.ts';
import { createStore, type StoreApi } from 'zustand/vanilla';
import { signOut as signOutOverHttp } from '../api/roomsApi.ts';
import { installDebugHook } from '../debug/debugHook.ts';
import { keepBoardPicture } from '../offline/boardPicture.ts';
import { deviceEditKeeper, type BoardScope } from '../offline/deviceStore.ts';
import { randomId } from '../session/randomId.ts';
import type { RoomState } from '../sync/roomState.ts';
import { ActivityTracker, sameSet } from '../sync/activity.ts';
import { ChecksClient } from '../checks/checksClient.ts';
import { deriveLobby, deriveRoster, type LobbyEntry, type RosterEntry } from '../sync/roster.ts';
import type { SyncEngine, SyncPhase } from '../sync/syncEngine.ts';
import { PagesClient } from '../pages/pagesClient.ts';
import { BoardEngine, sharedFrame, type CursorView, type InkView } from './boardEngine.ts';
import {
  exhaustedBy,
  initialConnectionState,
  noRefusals,
  recordRefusal,
  transition,
  type ConnectionEvent,
  type ConnectionState,
} from './connectionMachine.ts';
import { drainReconnectDelay } from './drain.ts';
import type { Request } from './request.ts';
import { SOCKET_TRANSPORTS } from './transports.ts';

export type { CursorView, InkView };

/** Cursor packets at most every 33 ms (~30 Hz): smooth with interpolation, light on the wire. */
export const CURSOR_SYNC_MS = 33;
/** How often idleness is re-judged (ms): a minute's threshold needs no finer grain. */
const ACTIVITY_CHECK_MS = 5_000;
/** Local input re-sends our cursor at most this often (ms), so others see we are active. */
const ACTIVITY_PING_MS = 10_000;
/** How often time-based sync rules (gap hold, lost sync reply) are checked (ms). */
const SYNC_TICK_MS = 250;
/** A sync.request or sign-out reply later than this is treated as lost (ms). */
const REPLY_TIMEOUT_MS = 5_000;
/** Manual retry backoff after a retryable refusal, which Socket.IO does not retry itself (ms). */
const RETRY_BASE_MS = 500;
const RETRY_MAX_MS = 8_000;

/** What React reads: changes only when the roster, the connection or the session changes. */
export interface RoomView {
  readonly connection: ConnectionState;
  readonly phase: SyncPhase;
  readonly state: RoomState | null;
  readonly roster: readonly RosterEntry[];
  /** Students waiting in the lobby or declined from it (shown to the teacher only). */
  readonly lobby: readonly LobbyEntry[];
  readonly welcome: Welcome | null;
  /** Present users with no input for a minute (changes at most every ACTIVITY_CHECK_MS). */
  readonly idle: ReadonlySet<string>;
}

/** The private boards this client follows (docs/boards.md), one engine each, by board id. */
export interface BoardEnginesView {
  readonly byId: ReadonlyMap<string, BoardEngine>;
}

/** While our own live ink flowed this recently (ms), it carries our cursor: no cursor packet is sent. */
const INK_CARRIES_CURSOR_MS = 100;

type RoomSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/**
 * How long an attention packet naming a page waits for this socket to read the page (ms): a page
 * is read within a round trip or two of coming on the stage; a view older than this is stale.
 */
const PAGE_READ_WAIT_MS = 10_000;

/** What of the kit waits for a page to be read: the latest of each kind waits. */
type WaitingKind = 'viewport' | 'bring' | 'present';

/** An attention packet waiting for its page to be read: sent then, or dropped (superseded, stale, stopped). */
interface WaitingForPage {
  send(): void;
  drop(): void;
  /** When it began to wait (ms, this screen's clock). */
  at: number;
}

/**
 * The shell around the pure sync engines and the connection machine: owns the socket, holds one
 * `BoardEngine` per board this member may see (the class board, and each private board the
 * activity shows them), routes each packet to its board's engine, answers lease prompts and
 * throttles cursor packets.
 */
export class RoomClient {
  readonly view: StoreApi<RoomView>;
  /** The class board: the lesson's own log. */
  readonly classBoard: BoardEngine;
  /** The private boards followed, by id (the activity decides which). */
  readonly boards: StoreApi<BoardEnginesView> = createStore<BoardEnginesView>(() => ({ byId: new Map() }));
  /** The attention kit: hidden cursors, laser, follow the teacher. */
  readonly attention: AttentionClient;
  /** Activities: which boards this member sees (activity/activityClient.ts). */
  readonly activity: ActivityClient;
  /** The timer's clock, the poll's answers and the flags (checks/checksClient.ts). */
  readonly checks: ChecksClient;
  /** The lesson's pages: which page this member looks at (pages/pagesClient.ts). */
  readonly pages: PagesClient;
  private readonly socket: RoomSocket;
  /** The private boards' ephemeral stores publish in one frame callback (boardEngine.ts). */
  private readonly boardFrame = sharedFrame();
  private tickTimer: ReturnType<typeof setInterval> | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private cursorTimer: ReturnType<typeof setTimeout> | undefined;
  private retries = 0;
  /** Retryable refusals from the server since the last applied sync (connectionMachine.ts). */
  private refusals = noRefusals;
  /** A retryable refusal the server noticed just before closing the connection. */
  private closingNotice: ProtocolError | null = null;
  private lastCursorSentAt = 0;
  /** Our next pointer packet: on the class board (a cursor), or on the private board it names. */
  private pendingCursor: (CursorUpdate & { boardId?: string }) | null = null;
  private lastCursor: { x: number; y: number; boardId?: string } | null = null;
  private lastActivityPingAt = 0;
  private lastInkAt = -Infinity;
  private readonly idleness = new ActivityTracker();
  private activityTimer: ReturnType<typeof setInterval> | undefined;
  private stopped = false;
  /** Set while leaving on purpose: the server's "session ended" is then our own doing. */
  private signingOut = false;
  private readonly cleanups: Array<() => void> = [];
  /** The kit's packets naming a page this socket does not read yet, by page and kind (`whenReading`). */
  private readonly waitingForPages = new Map<string, Map<WaitingKind, WaitingForPage>>();

  constructor(readonly grant: SessionGrant) {
    const self = { userId: grant.userId, sessionId: grant.sessionId, role: grant.role };
    this.classBoard = new BoardEngine(
      grant.room.id,
      { kind: 'class' },
      { transport: this.transport(undefined), requestSync: (lastRevision) => this.requestSync(lastRevision), keeper: deviceEditKeeper(this.scopeOf(grant.room.id)) },
      self,
    );
    this.view = createStore<RoomView>(() => ({
      connection: initialConnectionState,
      phase: 'idle',
      state: null,
      roster: [],
      lobby: [],
      welcome: null,
      idle: new Set(),
    }));
    this.attention = new AttentionClient(this.attentionPorts(), { sessionId: grant.sessionId, role: grant.role, lessonId: grant.room.id });
    this.socket = io({
      path: '/socket.io',
      ...SOCKET_TRANSPORTS,
      transports: [...SOCKET_TRANSPORTS.transports],
      autoConnect: false,
      // Each StrictMode mount or second room gets its own connection, not a shared manager.
      forceNew: true,
      reconnectionDelay: RETRY_BASE_MS,
      reconnectionDelayMax: RETRY_MAX_MS,
      // A callback, so every reconnect sends the revision applied by then.
      auth: (send) => send(this.handshakeAuth()),
    });
    this.activity = new ActivityClient(
      {
        request: this.request,
        follow: (info, editPolicy) => this.followBoard(info, editPolicy),
        unfollow: (boardId) => this.unfollowBoard(boardId),
        policyChanged: (boardId, editPolicy) => this.boards.getState().byId.get(boardId)?.reframe(this.engine.state, editPolicy),
      },
      { lessonId: grant.room.id, userId: grant.userId, role: grant.role },
    );
    this.checks = new ChecksClient(this.request, { role: grant.role });
    this.pages = new PagesClient(
      {
        request: this.request,
        show: (page) => this.followPage(page),
        hide: (pageId) => this.unfollowBoard(pageId),
        chose: (pageId) => this.attention.boardChosen(pageId),
      },
      { lessonId: grant.room.id, role: grant.role },
    );
  }

  /**
   * A page of the lesson (not its own board) to hold an engine for: framed by the lesson like a
   * private board, under the lesson's edit policy and the page's own paper, synced by `page.sync`.
   */
  private followPage(page: Page): void {
    const editPolicy = this.engine.state?.room.settings.editPolicy ?? 'own';
    const existing = this.boards.getState().byId.get(page.id);
    if (existing) {
      existing.reframe(this.engine.state, editPolicy, page.background);
      if (existing.sync.phase !== 'live') this.requestBoardSync(existing, existing.sync.revision);
      return;
    }
    const self = { userId: this.grant.userId, sessionId: this.grant.sessionId, role: this.grant.role };
    const engine: BoardEngine = new BoardEngine(
      page.id,
      { kind: 'page', frame: { boardId: page.id, editPolicy, paper: page.background } },
      { transport: this.transport(page.id), requestSync: (lastRevision) => this.requestBoardSync(engine, lastRevision), keeper: deviceEditKeeper(this.scopeOf(page.id)) },
      self,
      this.boardFrame,
    );
    const byId = new Map(this.boards.getState().byId);
    byId.set(page.id, engine);
    this.boards.setState({ byId });
    if (this.socket.connected) {
      engine.connectionOpened(Date.now());
      this.requestBoardSync(engine, undefined);
    }
  }

  /** Whose records on this device a board's are (offline/deviceStore.ts): this session's, on that board of this lesson. */
  private scopeOf(boardId: string): BoardScope {
    return { lessonId: this.grant.room.id, boardId, sessionId: this.grant.sessionId };
  }

  /** The class board's sync engine: the lesson's roster, presence and settings come from it. */
  private get engine(): SyncEngine {
    return this.classBoard.sync;
  }

  /** The class board's editor (the teacher's controls act on the lesson through it). */
  get editor(): BoardEditor {
    return this.classBoard.editor;
  }

  get cursors(): StoreApi<CursorView> {
    return this.classBoard.cursors;
  }

  get ink(): StoreApi<InkView> {
    return this.classBoard.ink;
  }

  /** An acknowledged request: the event names its payload and its reply (request.ts). */
  readonly request: Request = <E extends AckedClientEvent>(event: E, payload: ClientRequest<E>) => {
    const timed = this.socket.timeout(REPLY_TIMEOUT_MS);
    // Socket.IO's own types resolve an event's acknowledgement only for a literal name, not through
    // a generic one; this states the same map entry (`ClientRequest<E>` in, `ClientReply<E>` back).
    const emit = timed.emitWithAck as (event: E, payload: ClientRequest<E>) => Promise<Ack<ClientReply<E>>>;
    return emit.call(timed, event, payload).catch(() => ({ ok: false as const, error: { code: ErrorCode.UNAVAILABLE, message: 'The server did not answer.' } }));
  };

  /** A private board to hold an engine for: made, synced once the lesson's state is here. */
  private followBoard(info: BoardInfo, editPolicy: EditPolicy): void {
    const existing = this.boards.getState().byId.get(info.id);
    if (existing) {
      existing.reframe(this.engine.state, editPolicy);
      // Subscriptions are per socket: after a reconnect the board is asked for again.
      if (existing.sync.phase !== 'live') this.requestBoardSync(existing, existing.sync.revision);
      return;
    }
    const self = { userId: this.grant.userId, sessionId: this.grant.sessionId, role: this.grant.role };
    const engine: BoardEngine = new BoardEngine(
      info.id,
      { kind: 'private', frame: { boardId: info.id, editPolicy }, ownerUserId: info.ownerUserId },
      { transport: this.transport(info.id), requestSync: (lastRevision) => this.requestBoardSync(engine, lastRevision), keeper: deviceEditKeeper(this.scopeOf(info.id)) },
      self,
      // A teacher's grid of 30 drawing students: every board's ephemera publish once a frame, together.
      this.boardFrame,
    );
    const byId = new Map(this.boards.getState().byId);
    byId.set(info.id, engine);
    this.boards.setState({ byId });
    if (this.socket.connected) {
      engine.connectionOpened(Date.now());
      this.requestBoardSync(engine, undefined);
    }
  }

  private unfollowBoard(boardId: string): void {
    const engine = this.boards.getState().byId.get(boardId);
    if (!engine) return;
    engine.stop();
    const byId = new Map(this.boards.getState().byId);
    byId.delete(boardId);
    this.boards.setState({ byId });
  }

  /** Every board engine: the class board's, then the private boards'. */
  private allBoards(): BoardEngine[] {
    return [this.classBoard, ...this.boards.getState().byId.values()];
  }

  /** A private board's sync (`board.sync`), or a page's (`page.sync`): it also subscribes this socket to its channel. */
  private requestBoardSync(engine: BoardEngine, lastRevision: number | undefined): void {
    if (!this.socket.connected) return; // the next connect asks again
    if (engine.isPage) {
      void this.request(ClientEvent.PAGE_SYNC, { pageId: engine.id, ...(lastRevision !== undefined ? { lastRevision } : {}) }).then((reply) => {
        if (this.boards.getState().byId.get(engine.id) !== engine) return;
        if (reply.ok) engine.receiveBoardSync(reply.sync, this.engine.state, Date.now());
        if (engine.sync.phase === 'live') this.pageRead(engine.id);
      });
      return;
    }
    void this.request(ClientEvent.BOARD_SYNC, { boardId: engine.id, ...(lastRevision !== undefined ? { lastRevision } : {}) }).then((reply) => {
      if (this.boards.getState().byId.get(engine.id) !== engine) return;
      // A refusal (over the sync budget, a lost reply) is asked again by the engine's own timeout.
      if (reply.ok) engine.receiveBoardSync(reply.sync, this.engine.state, Date.now());
    });
  }

  start(): void {
    this.engine.subscribe((changes) => {
      const patch: { -readonly [K in keyof RoomView]?: RoomView[K] } = {};
      if (changes.has('state')) {
        patch.state = this.engine.state;
        // The lesson's people and rules frame every private board (SyncEngine.reframe).
        const lesson = this.engine.state;
        for (const board of this.boards.getState().byId.values()) {
          // A page takes the lesson's edit policy (its paper is its own).
          if (board.isPage) board.reframe(lesson, lesson?.room.settings.editPolicy);
          else board.reframe(lesson);
        }
        // Element events do not change the roster: keep its identity so the roster does not re-render.
        const roster = this.engine.state ? deriveRoster(this.engine.state) : [];
        if (!sameRoster(roster, this.view.getState().roster)) patch.roster = roster;
        const lobby = this.engine.state ? deriveLobby(this.engine.state) : [];
        if (!sameLobby(lobby, this.view.getState().lobby)) patch.lobby = lobby;
      }
      if (changes.has('phase')) {
        patch.phase = this.engine.phase;
        if (this.engine.phase === 'live') {
          this.refusals = noRefusals;
          this.dispatch({ type: 'sync.applied' });
        }
        if (this.engine.phase === 'resyncing') this.dispatch({ type: 'sync.lost' });
      }
      if (Object.keys(patch).length > 0) this.view.setState(patch);
      if (changes.has('cursors')) for (const c of this.engine.cursors.values()) this.idleness.noteActivity(c.userId, c.receivedAt);
      // A private board's snapshot is framed by the lesson: one asked before the lesson was here is asked again.
      if (changes.has('phase') && this.engine.phase === 'live') {
        for (const board of this.boards.getState().byId.values()) if (board.sync.phase === 'awaiting_sync') this.requestBoardSync(board, board.sync.revision);
      }
    });
    this.wireSocket();
    this.tickTimer = setInterval(() => {
      const now = Date.now();
      for (const board of this.allBoards()) board.sync.tick(now);
    }, SYNC_TICK_MS);
    this.activityTimer = setInterval(() => this.judgeIdle(), ACTIVITY_CHECK_MS);
    const onInput = () => this.noteLocalInput();
    const inputs = ['pointerdown', 'pointermove', 'keydown', 'wheel'] as const;
    for (const type of inputs) window.addEventListener(type, onInput, { passive: true, capture: true });
    this.cleanups.push(() => {
      for (const type of inputs) window.removeEventListener(type, onInput, { capture: true });
    });
    const onOnline = () => this.dispatch({ type: 'network.online' });
    const onOffline = () => this.dispatch({ type: 'network.offline' });
    window.addEventListener('online', onOnline);
    window.addEventListener('offline', onOffline);
    this.cleanups.push(() => {
      window.removeEventListener('online', onOnline);
      window.removeEventListener('offline', onOffline);
    });
    this.cleanups.push(installDebugHook(this.engine, () => this.view.getState().connection));
    // The class board as last synced, shown after a reload until the server's sync replaces it.
    this.cleanups.push(keepBoardPicture(this.engine, this.scopeOf(this.grant.room.id)));
    this.socket.connect();
  }

  stop(): void {
    this.stopped = true;
    for (const board of this.allBoards()) board.stop();
    this.attention.stop();
    for (const byKind of this.waitingForPages.values()) for (const waiting of byKind.values()) waiting.drop();
    this.waitingForPages.clear();
    clearInterval(this.tickTimer);
    clearInterval(this.activityTimer);
    clearTimeout(this.retryTimer);
    clearTimeout(this.cursorTimer);
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    this.socket.removeAllListeners();
    this.socket.disconnect();
  }

  /**
   * Our pointer moved to board coordinates (x, y) on the class board, or on the private board
   * `boardId` (sent there as `board.pointer`, to that board's audience only). Sent at most every
   * CURSOR_SYNC_MS (BOARD_POINTER_MS on a private board: its batches go out at that tick).
   */
  sendCursor(x: number, y: number, boardId?: string): void {
    const clamp = (v: number) => Math.max(-MAX_COORDINATE, Math.min(MAX_COORDINATE, Math.round(v * 10) / 10));
    // No stamp `t`: nothing reads it on screen, and every other member would receive it 30 times
    // a second. Positions to 0.1 board units keep each entry short.
    this.pendingCursor = { x: clamp(x), y: clamp(y), ...(boardId ? { boardId } : {}) };
    this.lastCursor = { x, y, ...(boardId ? { boardId } : {}) };
    this.lastActivityPingAt = Date.now();
    if (this.cursorTimer !== undefined) return;
    const wait = this.lastCursorSentAt + (boardId ? BOARD_POINTER_MS : CURSOR_SYNC_MS) - Date.now();
    if (wait <= 0) this.flushCursor();
    else this.cursorTimer = setTimeout(() => this.flushCursor(), wait);
  }

  /**
   * Leave the lesson on purpose: the roster shows "signed out", not "connection lost". Over the
   * socket when it is up (acknowledged), else over HTTP; either way this tab forgets the session.
   */
  async signOut(): Promise<void> {
    this.signingOut = true;
    let done = false;
    if (this.socket.connected) {
      try {
        const reply = await this.socket.timeout(REPLY_TIMEOUT_MS).emitWithAck(ClientEvent.SIGN_OUT, {});
        done = reply.ok;
      } catch {
        done = false;
      }
    }
    this.stop();
    if (!done) await signOutOverHttp(this.grant.token);
  }

  // -------------------------------------------------------------------------------------------

  private handshakeAuth(): HandshakeAuth {
    const lastRevision = this.engine.revision;
    // `boards.pointers`: a teacher's grid gets a tick's board batches in one message.
    const base = { token: this.grant.token, protocol: PROTOCOL_VERSION, features: ['boards.pointers' as const] };
    return lastRevision === undefined ? base : { ...base, lastRevision };
  }

  private wireSocket(): void {
    const socket = this.socket;
    socket.on('connect', () => {
      this.retries = 0;
      const now = Date.now();
      for (const board of this.allBoards()) board.connectionOpened(now);
      this.dispatch({ type: 'socket.connected' });
    });
    socket.on('disconnect', (reason) => {
      for (const board of this.allBoards()) board.connectionClosed();
      if (this.stopped || reason === 'io client disconnect') return;
      this.dispatch({ type: 'socket.disconnected' });
      // The server closing us is not retried by Socket.IO; unless it was a verdict, we retry.
      if (reason === 'io server disconnect') {
        const notice = this.closingNotice;
        this.closingNotice = null;
        if (notice && this.countRefusal(notice)) return;
        this.scheduleRetry();
      }
    });
    socket.on('connect_error', (err: Error & { data?: unknown }) => {
      const refusal = asProtocolError(err.data);
      this.dispatch(refusal ? { type: 'connect.failed', error: refusal } : { type: 'connect.failed' });
      if (refusal && this.countRefusal(refusal)) return;
      // A refusal from the server's handshake is not retried by Socket.IO (socket.active is false).
      if (!socket.active) this.scheduleRetry();
    });
    socket.on(ServerEvent.WELCOME, (welcome) => {
      this.view.setState({ welcome });
      this.attention.reconnected();
      void this.activity.reconnected();
      void this.checks.reconnected();
      void this.pages.reconnected();
    });
    socket.on(ServerEvent.FOLLOW, (signal) => this.attention.receiveFollow(signal));
    socket.on(ServerEvent.SYNC, (sync) => this.engine.receiveSync(sync, Date.now()));
    // Each event to its board's engine (the lesson's own to the class board), then to the activity.
    socket.on(ServerEvent.ROOM_EVENT, (event) => {
      const board = event.roomId === this.classBoard.id ? this.classBoard : this.boards.getState().byId.get(event.roomId);
      board?.sync.receiveEvent(event, Date.now());
      this.activity.receiveEvent(event);
      this.pages.receiveEvent(event);
      if (event.kind === 'poll.updated' && event.roomId === this.classBoard.id) this.checks.pollSeen(event.payload.id);
    });
    socket.on(ServerEvent.POLL_ANSWERS, (update) => this.checks.receiveAnswers(update));
    socket.on(ServerEvent.BOARD_OPENED, (signal) => this.activity.receiveOpened(signal.board));
    socket.on(ServerEvent.BOARD_POINTERS, (batch) => this.receiveBoardPointers(batch));
    socket.on(ServerEvent.BOARDS_POINTERS, ({ batches }) => {
      for (const batch of batches) this.receiveBoardPointers(batch);
    });
    socket.on(ServerEvent.CURSORS, (batch) => {
      // Laser points and the teacher's view are not room state: they go straight to the kit.
      if (batch.laser) this.attention.receiveLaser(batch.laser, this.classBoard.id);
      if (batch.viewport) this.attention.receiveViewport(batch.viewport);
      this.engine.receiveCursors(batch, Date.now());
    });
    socket.on(ServerEvent.PRESENCE_SIGNAL, (signal) => this.engine.receivePresenceSignal(signal));
    socket.on(ServerEvent.LEASE_DUE, (due) => {
      // The room revision this node has published: behind it with nothing held means a lost event.
      if (due.roomRevision !== undefined) this.engine.receiveRoomRevision(due.roomRevision, Date.now());
      // Answered here, in the message handler, not from a timer: hidden tabs throttle timers, and
      // a late renewal would let the lease lapse while the student is still here.
      socket.emit(ClientEvent.LEASE_RENEW, { revision: due.revision + 1, requestId: randomId() }, (reply) => {
        if (!reply.ok && isFatalErrorCode(reply.error.code)) this.endSession(reply.error);
        // The database's room revision at the renewal: the same lost-event check, across nodes.
        else if (reply.ok && reply.roomRevision !== undefined) this.engine.receiveRoomRevision(reply.roomRevision, Date.now());
      });
    });
    socket.on(ServerEvent.SESSION_ENDED, (error) => this.endSession(error));
    // Only unacknowledged packets (cursors) are refused this way; the next packet supersedes a
    // refused cursor, so this is a diagnostic, not something to interrupt a lesson with.
    socket.on(ServerEvent.NOTICE, (notice) => {
      // The server is draining for shutdown: move to another node at a random moment in the
      // window it gives, so its users do not all arrive on the others in the same second.
      if (notice.code === ErrorCode.SERVER_RESTARTING && notice.reconnectWithinMs !== undefined) {
        this.reconnectWithin(notice.reconnectWithinMs);
        return;
      }
      // A notice naming no event precedes the server closing this connection (unavailable, restarting).
      if (notice.event === undefined) this.closingNotice = notice;
      console.warn(`server refused ${notice.event ?? 'a packet'}: ${notice.code}`);
    });
  }

  /**
   * A private board's ephemera (pointers, live ink, drags), read as the class board's cursor batch
   * is: the engine draws a pointer only for a connected presence, ink only until its element, a
   * drag only under the element's current lock generation (I1, I4).
   */
  private receiveBoardPointers(batch: BoardPointers): void {
    const board = this.boards.getState().byId.get(batch.boardId);
    if (!board) return;
    // A page's laser points, like the class board's, go straight to the kit.
    if (batch.laser && board.isPage) this.attention.receiveLaser(batch.laser, batch.boardId);
    board.sync.receiveCursors(
      {
        cursors: batch.pointers.map(([sessionId, , x, y]) => [sessionId, x, y] as const),
        ...(batch.ink ? { ink: batch.ink } : {}),
        ...(batch.drags ? { drags: batch.drags } : {}),
      },
      Date.now(),
    );
  }

  private endSession(error: ProtocolError): void {
    if (this.signingOut) return;
    this.dispatch({ type: 'session.ended', error });
    if (this.view.getState().connection.status === 'refused') {
      clearTimeout(this.retryTimer);
      this.socket.disconnect();
      for (const board of this.allBoards()) board.sync.connectionClosed();
    }
  }

  private dispatch(event: ConnectionEvent): void {
    const before = this.view.getState().connection;
    const after = transition(before, event);
    if (after === before) return;
    this.view.setState({ connection: after });
    if (after.status === 'refused') {
      clearTimeout(this.retryTimer);
      this.socket.disconnect();
    }
  }

  /** Counts a retryable refusal; true when the streak ended the retries (the state is now refused). */
  private countRefusal(error: ProtocolError): boolean {
    this.refusals = recordRefusal(this.refusals, error);
    const exhausted = exhaustedBy(this.refusals);
    if (exhausted) this.dispatch(exhausted);
    return exhausted !== null;
  }

  /** Reconnects (through the balancer, to a node that is ready) after a random delay in [0, windowMs). */
  private reconnectWithin(windowMs: number): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      if (this.stopped || !this.socket.connected) return;
      this.dispatch({ type: 'socket.disconnected' });
      this.socket.disconnect(); // its 'disconnect' handler closes the engine and the editor
      this.socket.connect();
    }, drainReconnectDelay(windowMs));
  }

  private scheduleRetry(): void {
    if (this.stopped || this.view.getState().connection.status === 'refused') return;
    clearTimeout(this.retryTimer);
    const delay = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** this.retries) * (0.75 + Math.random() * 0.5);
    this.retries += 1;
    this.retryTimer = setTimeout(() => {
      if (!this.stopped && !this.socket.connected) this.socket.connect();
    }, delay);
  }

  private requestSync(lastRevision: number | undefined): void {
    if (!this.socket.connected) return; // the next connect brings its own sync
    const request: SyncRequest = lastRevision === undefined ? {} : { lastRevision };
    this.socket.timeout(REPLY_TIMEOUT_MS).emit(ClientEvent.SYNC_REQUEST, request, (err, reply) => {
      // A lost reply is asked for again by the engine's own timeout; nothing to do here.
      if (err) return;
      if (reply.ok) this.engine.receiveSync(reply.sync, Date.now());
      else if (isFatalErrorCode(reply.error.code)) this.endSession(reply.error);
    });
  }

  /**
   * Any local input counts as activity. Pointer moves over the board already send cursor packets;
   * other input (typing, a click in a panel) re-sends the last cursor now and then, so the others'
   * idle clocks see it (the packet's arrival is the signal; its stamp is diagnostics only, I2).
   */
  private noteLocalInput(): void {
    const now = Date.now();
    this.idleness.noteActivity(this.grant.userId, now);
    if (this.lastCursor && now - this.lastActivityPingAt >= ACTIVITY_PING_MS) this.sendCursor(this.lastCursor.x, this.lastCursor.y, this.lastCursor.boardId);
  }

  private judgeIdle(): void {
    const state = this.engine.state;
    const now = Date.now();
    if (state) this.idleness.notePresent([...state.presence.values()].filter((p) => p.connected).map((p) => p.userId), now);
    const idle = this.idleness.idleUsers(now);
    if (!sameSet(idle, this.view.getState().idle)) this.view.setState({ idle });
  }

  /**
   * A board editor's way to the server: acknowledged requests time out as "not delivered". On a
   * private board every request names it (`boardId`): the server's one element, ink and lock path
   * decides the right to that board (docs/boards.md).
   */
  private transport(boardId: string | undefined): EditorTransport {
    const acked = () => this.socket.timeout(REPLY_TIMEOUT_MS);
    const on = boardId === undefined ? {} : { boardId };
    const live = () => (boardId === undefined ? this.engine : this.boards.getState().byId.get(boardId)?.sync)?.phase === 'live';
    return {
      isConnected: () => this.socket.connected && live(),
      createElement: (request) => acked().emitWithAck(ClientEvent.ELEMENT_CREATE, { ...request, ...on }),
      updateElement: (request) => acked().emitWithAck(ClientEvent.ELEMENT_UPDATE, { ...request, ...on }),
      deleteElement: (request) => acked().emitWithAck(ClientEvent.ELEMENT_DELETE, { ...request, ...on }),
      acquireLock: (request) => acked().emitWithAck(ClientEvent.LOCK_ACQUIRE, { ...request, ...on }),
      acquireLocks: (request) => acked().emitWithAck(ClientEvent.LOCK_ACQUIRE_MANY, { ...request, ...on }),
      // Volatile like cursors: a late move is worthless, the next one supersedes it.
      moveLocked: (move) => {
        if (this.socket.connected) this.socket.volatile.emit(ClientEvent.LOCK_MOVE, { ...move, ...on });
      },
      // A group's moves go in one task; the volatile flag would drop all but the first (see ink).
      moveLockedGroup: (moves) => {
        if (!this.socket.connected) return;
        for (const move of moves) this.socket.emit(ClientEvent.LOCK_MOVE, { ...move, ...on });
      },
      // Unacknowledged and droppable like cursors, but not sent with Socket.IO's volatile flag:
      // that drops a packet emitted in the same task as another (the transport is writable again
      // only a microtask later), which is where ink goes, right after the move's cursor packet.
      // While connected the websocket buffers it as it would a volatile one; offline it is not sent.
      // The server moves our cursor with our ink, so cursor packets pause meanwhile.
      sendInk: (update) => {
        if (!this.socket.connected) return;
        this.lastInkAt = Date.now();
        this.socket.emit(ClientEvent.INK, { ...update, ...on });
      },
      releaseLock: (request) => acked().emitWithAck(ClientEvent.LOCK_RELEASE, { ...request, ...on }),
      pinElement: (request) => acked().emitWithAck(ClientEvent.ELEMENT_PIN, { ...request, ...on }),
      breakLock: (request) => acked().emitWithAck(ClientEvent.LOCK_BREAK, { ...request, ...on }),
      setLessonSettings: (request) => acked().emitWithAck(ClientEvent.LESSON_SETTINGS, request),
      // A page's paper is its own (`page.update`); the class board's is the lesson's setting.
      setPaper: (paper) =>
        boardId === undefined
          ? acked().emitWithAck(ClientEvent.LESSON_SETTINGS, { requestId: randomId(), settings: { paper } })
          : this.request(ClientEvent.PAGE_UPDATE, { pageId: boardId, background: paper }),
      setPen: (request) => acked().emitWithAck(ClientEvent.MEMBER_PEN, request),
    };
  }

  /** The teacher's history panel: the board's recent changes, optionally one member's. */
  listHistory(by?: string): Promise<Ack<{ entries: HistoryEntry[] }>> {
    return this.socket.timeout(REPLY_TIMEOUT_MS).emitWithAck(ClientEvent.HISTORY_LIST, by ? { by } : {});
  }

  /** Teacher: an element back to one of its kept versions (a deleted one comes back). */
  restoreElement(elementId: string, version: number): Promise<Ack<ElementReply>> {
    return this.socket.timeout(REPLY_TIMEOUT_MS).emitWithAck(ClientEvent.ELEMENT_RESTORE, { requestId: randomId(), elementId, version });
  }

  /** Teacher: clear the board, or one member's work, as one restorable action. */
  clearBoard(of?: string): Promise<Ack<ClearBoardReply>> {
    return this.socket.timeout(REPLY_TIMEOUT_MS).emitWithAck(ClientEvent.BOARD_CLEAR, { requestId: randomId(), ...(of ? { of } : {}) });
  }

  /** Teacher: end the lesson (students are disconnected and cannot join), or open it again. */
  setLessonEnded(ended: boolean): Promise<Ack<{ room: RoomInfo }>> {
    return this.socket.timeout(REPLY_TIMEOUT_MS).emitWithAck(ended ? ClientEvent.LESSON_END : ClientEvent.LESSON_REOPEN, { requestId: randomId() });
  }

  /** Teacher: undo one clear. */
  restoreBatch(batchId: string): Promise<Ack<RestoreBatchReply>> {
    return this.socket.timeout(REPLY_TIMEOUT_MS).emitWithAck(ClientEvent.BATCH_RESTORE, { requestId: randomId(), batchId });
  }

  private flushCursor(): void {
    this.cursorTimer = undefined;
    const update = this.pendingCursor;
    this.pendingCursor = null;
    if (!update || !this.socket.connected) return;
    if (Date.now() - this.lastInkAt < INK_CARRIES_CURSOR_MS) return;
    this.lastCursorSentAt = Date.now();
    // The laser point moves our pointer on the server too: one packet, not two. Every lesson page
    // has the laser (the class board, the others); a private board has none.
    const laserBoard = update.boardId === undefined || this.boards.getState().byId.get(update.boardId)?.isPage;
    if (this.attention.view.getState().laserOn && laserBoard) {
      this.attention.pointLaser(update.x, update.y, update.boardId ?? this.classBoard.id);
      return;
    }
    if (update.boardId) {
      this.socket.volatile.emit(ClientEvent.BOARD_POINTER, { boardId: update.boardId, x: update.x, y: update.y });
      return;
    }
    // Volatile: a cursor packet that cannot go now is superseded by the next one anyway.
    this.socket.volatile.emit(ClientEvent.CURSOR, update);
  }

  /** Student: raise or lower your hand. Teacher: lower a student's (`userId`). */
  async setHand(raised: boolean, userId?: string): Promise<void> {
    const acked = this.socket.timeout(REPLY_TIMEOUT_MS);
    await (raised
      ? acked.emitWithAck(ClientEvent.HAND_RAISE, { requestId: randomId() })
      : acked.emitWithAck(ClientEvent.HAND_LOWER, { requestId: randomId(), ...(userId ? { userId } : {}) })
    ).catch(() => null);
  }

  /** Teacher: lower every raised hand. */
  async lowerAllHands(): Promise<void> {
    await this.socket.timeout(REPLY_TIMEOUT_MS).emitWithAck(ClientEvent.HAND_LOWER_ALL, { requestId: randomId() }).catch(() => null);
  }

  /**
   * The kit's packets. One naming a page waits until this socket reads it (its `page.sync`
   * answered): the server refuses it before (`board_forbidden`), and a page just gone to, or
   * read again after a reconnect, is read a moment after its board is on the stage. A laser point
   * is dropped meanwhile (the next supersedes it); a view or a follow request waits, the latest
   * of each, and goes when the page is read, unless PAGE_READ_WAIT_MS passed (it is stale then).
   */
  private attentionPorts(): AttentionPorts {
    const acked = () => this.socket.timeout(REPLY_TIMEOUT_MS);
    const lost = { ok: false as const, error: { code: ErrorCode.UNAVAILABLE, message: 'No answer from the server.' } };
    const on = (boardId: string | undefined) => (boardId === undefined ? {} : { boardId });
    const request = <T,>(kind: WaitingKind, boardId: string | undefined, send: () => Promise<T>, superseded: T): Promise<T> =>
      new Promise((resolve) => this.whenReading(boardId, kind, { send: () => resolve(send()), drop: () => resolve(superseded) }));
    return {
      laser: (x, y, boardId) => {
        if (this.reading(boardId)) this.socket.volatile.emit(ClientEvent.LASER, { x, y, ...on(boardId) });
      },
      viewport: (view, boardId) =>
        this.whenReading(boardId, 'viewport', { send: () => this.socket.volatile.emit(ClientEvent.VIEWPORT, { ...view, ...on(boardId) }), drop: () => {} }),
      followSet: (following) => acked().emitWithAck(ClientEvent.FOLLOW_SET, { requestId: randomId(), following }).catch(() => lost),
      followBring: (view, boardId) =>
        request('bring', boardId, () => acked().emitWithAck(ClientEvent.FOLLOW_BRING, { requestId: randomId(), view, ...on(boardId) }).catch(() => lost), lost),
      followPresent: (presenting, view, boardId) =>
        request('present', boardId, () => acked().emitWithAck(ClientEvent.FOLLOW_PRESENT, { requestId: randomId(), presenting, view, ...on(boardId) }).catch(() => lost), lost),
      goToBoard: (boardId) => void this.pages.go(boardId),
    };
  }

  /** Whether this socket reads the board now: the class board always; a page once its sync is applied. */
  private reading(boardId: string | undefined): boolean {
    const engine = boardId === undefined ? undefined : this.boards.getState().byId.get(boardId);
    return engine === undefined || !engine.isPage || engine.sync.phase === 'live';
  }

  /** Sends now when this socket reads the board, else once it does (`pageRead`); a later send of the same kind supersedes it. */
  private whenReading(boardId: string | undefined, kind: WaitingKind, waiting: Omit<WaitingForPage, 'at'>): void {
    if (boardId === undefined || this.reading(boardId)) return waiting.send();
    let byKind = this.waitingForPages.get(boardId);
    if (!byKind) this.waitingForPages.set(boardId, (byKind = new Map()));
    byKind.get(kind)?.drop();
    byKind.set(kind, { ...waiting, at: Date.now() });
  }

  /** The page's sync is applied: what waited for it goes, unless it is stale. */
  private pageRead(boardId: string): void {
    const byKind = this.waitingForPages.get(boardId);
    this.waitingForPages.delete(boardId);
    const now = Date.now();
    for (const waiting of byKind?.values() ?? []) {
      if (now - waiting.at <= PAGE_READ_WAIT_MS) waiting.send();
      else waiting.drop();
    }
  }
}

function sameRoster(a: readonly RosterEntry[], b: readonly RosterEntry[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((e, i) => {
    const o = b[i];
    return o !== undefined && e.userId === o.userId && e.displayName === o.displayName && e.role === o.role && e.state === o.state && e.sessions === o.sessions && e.departure === o.departure && e.handRaisedAt === o.handRaisedAt && e.colorIndex === o.colorIndex;
  });
}

function sameLobby(a: readonly LobbyEntry[], b: readonly LobbyEntry[]): boolean {
  return a.length === b.length && a.every((e, i) => e.userId === b[i]?.userId && e.displayName === b[i]?.displayName && e.status === b[i]?.status);
}

function asProtocolError(data: unknown): ProtocolError | null {
  if (typeof data !== 'object' || data === null || !('code' in data)) return null;
  const { code } = data;
  if (typeof code !== 'string' || !isErrorCode(code)) return null;
  const message = 'message' in data && typeof data.message === 'string' ? data.message : code;
  return { code, message };
}
