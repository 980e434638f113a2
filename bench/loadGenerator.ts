/**
 * The load-generator process: simulated classrooms speaking the product's protocol (HTTP join,
 * authenticated socket, lease renewals answered from the `lease.due` handler, volatile cursor
 * packets at 30 Hz with a random phase), or the bare relay's minimal one. Started by run.ts with
 * `fork`; takes commands over IPC (generatorMessages.ts) and reports its own CPU, so a saturated
 * generator is never mistaken for a saturated server.
 *
 * Latency is measured on one clock: a room's senders and receivers are on the same thread, which
 * records when each packet was sent (performance.timeOrigin + now). A packet is `{x, y}`, the shape
 * the web client sends (no stamp, numbers to 0.1 like its board coordinates): x carries the
 * sender's index in the room and y a per-sender sequence number (see `onTheWire`), so a receiver
 * finds the send time, and can tell a lost update from one that a newer position replaced (the
 * product's batcher keeps only the latest position per tick).
 */
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import {
  ClientEvent,
  PROTOCOL_VERSION,
  ServerEvent,
  type Ack,
  type CursorBatch,
  type CursorVisibility,
  type LeaseDue,
  type LeaseRenewResult,
  type LessonSettingsReply,
  type LessonSettingsRequest,
  type RoomEvent,
  type SessionGrant,
  type SyncMessage,
  type Welcome,
} from '@wb/protocol';
import { openSocket, type BenchSocket, type ClientKind } from './benchSocket.ts';
import type {
  ChurnParams,
  ChurnResult,
  CommandMessage,
  CommandName,
  ConnectResult,
  CursorLoadParams,
  DistrictParams,
  DistrictResult,
  CursorLoadResult,
  DrawingLoadParams,
  DrawingLoadResult,
  GeneratorCommands,
  GeneratorMessage,
  GhostParams,
  GhostResult,
  GhostSample,
  LockWorkloadParams,
  LockWorkloadResult,
  SelfStats,
  StormResult,
  TargetKind,
} from './generatorMessages.ts';
import { CursorAccounting, TEACHER_LOCAL, USERS_PER_ROOM } from './cursorAccounting.ts';
import { LatencyHistogram, percentileOf, type SparseHistogram } from './latencyHistogram.ts';
import { LockWorkload } from './lockWorkload.ts';
import { DrawingWorkload, LIVE_INK_WIRE, REPLY_TIMEOUT_MS } from './drawingWorkload.ts';
import { addRecords, addStrokeCounts, StrokeAccounting } from './strokeAccounting.ts';

const TARGET_URL = requiredEnv('BENCH_TARGET_URL');
/** The handshake's protocol version: this checkout's, or the baseline server's in an A/B (baseline.ts). */
const HANDSHAKE_PROTOCOL = Number(process.env.BENCH_PROTOCOL_VERSION ?? PROTOCOL_VERSION);
const TARGET_KIND = requiredEnv('BENCH_TARGET_KIND') as TargetKind;
const CLIENT_KIND: ClientKind = process.env.BENCH_CLIENT === 'socket.io' ? 'socket.io' : 'wire';
/**
 * Added to the room index when choosing the room's loopback source address: a second generator
 * on the same server (the lock benchmark's) must not share addresses with the first one, or
 * their joins would add up against the server's per-address join limit.
 */
const ROOM_ADDRESS_OFFSET = Number(process.env.BENCH_ROOM_ADDRESS_OFFSET ?? 0);
/**
 * A generated room starts showing students every member's cursor: the O(n²) fan-out most
 * scenarios measure. A cursor load asking for another mode (the capacity sweep's default-mode
 * line: the teacher's cursor only) has each room's teacher change the lesson's setting first, as
 * a teacher would (`lesson.settings`), and the accounting owes each receiver only what the mode
 * lets it see (cursorAccounting.ts).
 */
const CURSOR_VISIBILITY: CursorVisibility = 'everyone';
/** How long a room's teacher waits for the answer to a change of the lesson's cursor visibility (ms). */
const SETTINGS_TIMEOUT_MS = 10_000;
/**
 * Threads of this generator process (BENCH_GENERATOR_THREADS, default 1). With more than one, the
 * process's main thread only relays commands and merges results, and each thread runs every
 * THREADS-th room: a room's senders and receivers stay on one thread, so latency is still
 * measured on one clock, and no thread's event loop is busy enough for its own queueing to show
 * up in the latency (at 16 rooms one thread is busy ~0.8 of the time, its loop delay p99 25-30 ms).
 */
const THREADS = Math.max(1, Number(process.env.BENCH_GENERATOR_THREADS ?? 1));
const shard = isMainThread ? null : (workerData as { shard: number; shards: number });
const SHARD = shard?.shard ?? 0;
const SHARDS = shard?.shards ?? 1;
const CONNECT_TIMEOUT_MS = 20_000;
/** Sockets connecting at once in an ordinary connect (the storm connects all at once on purpose). */
const CONNECT_CONCURRENCY = 50;

const clock = (): number => performance.timeOrigin + performance.now();

/**
 * A sender index or sequence number as a cursor coordinate of the size and form the web client
 * sends (four or more digits and one decimal, e.g. 1005.5), so batches parse like real ones.
 */
const onTheWire = (n: number): number => 1000 + n + 0.5;
const offTheWire = (v: number): number => Math.floor(v) - 1000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

/** The bare relay forwards the sender's packet as is. */
interface BarePacket {
  x: number;
  y: number;
}

interface ConnectOutcome {
  ok: boolean;
  ms: number;
  error?: string;
  sync?: SyncMessage['kind'];
}

/** One simulated person in one browser tab. */
class Client {
  socket: BenchSocket | null = null;
  live = false;
  /** A closed laptop lid: the socket stays open but nothing is answered or sent. */
  lidClosed = false;
  closingOnPurpose = false;
  lastRevision = 0;
  leaseRevision = 0;
  /** When the last accepted renewal (or the welcome) was acknowledged. */
  lastLeaseAckAt = 0;
  renewCounter = 0;
  seq = 0;
  nextDue = 0;
  lastSeqFrom = new Int32Array(USERS_PER_ROOM).fill(-1);
  grant: SessionGrant | null = null;

  constructor(
    readonly room: number,
    readonly local: number,
  ) {}

  get global(): number {
    return this.room * USERS_PER_ROOM + this.local;
  }
}

/** Counters a scenario can read; reset by each scenario. */
class Counters {
  renewalAcks: Record<string, number> = {};
  renewalErrors = 0;
  /**
   * Renewals followed one by one (the drawing class: none may be lost): only while `followRenewals`
   * is set, so the answers to renewals sent before the end still count after it.
   */
  followRenewals = false;
  renewals = { sent: 0, accepted: 0, late: 0, pending: 0, byDecision: {} as Record<string, number>, errors: {} as Record<string, number> };
  readonly renewalLatency = new LatencyHistogram();
  notices = 0;
  unexpectedDisconnects = 0;
  expiredEvents = new Map<string, { sessionId: string; observers: Set<Client>; firstAt: number; lastAt: number }>();
  duplicateExpiryDeliveries = 0;
  noLeaseSessions = new Set<string>();
}

class Fleet {
  readonly rooms: Client[][] = [];
  /** Each product room's cursor visibility as its teacher last set it (absent: as created). */
  private readonly roomVisibility = new Map<number, CursorVisibility>();
  counters = new Counters();
  accounting: CursorAccounting | null = null;
  /** The lock workload while it runs: it sees every room event and cursor batch of its room. */
  lockWorkload: LockWorkload | null = null;
  /** The drawing class while it runs: it sees every room event and cursor batch. */
  drawingWorkload: DrawingWorkload | null = null;
  private cpuMark = process.cpuUsage();
  private wallMark = performance.now();
  private readonly loopDelay = monitorEventLoopDelay({ resolution: 5 });

  constructor() {
    this.loopDelay.enable();
  }

  selfStats(reset = true): SelfStats {
    const cpu = process.cpuUsage(this.cpuMark);
    const wall = performance.now() - this.wallMark;
    const stats = {
      cores: wall > 0 ? (cpu.user + cpu.system) / 1000 / wall : 0,
      eventLoopP99Ms: this.loopDelay.percentile(99) / 1e6,
    };
    if (reset) {
      this.cpuMark = process.cpuUsage();
      this.wallMark = performance.now();
      this.loopDelay.reset();
    }
    return stats;
  }

  clientsOf(rooms: number, firstRoom = 0, members = USERS_PER_ROOM): Client[] {
    // flat() skips the holes: rooms another thread of this generator owns.
    const clients = this.rooms.slice(firstRoom, firstRoom + rooms).flat();
    return members >= USERS_PER_ROOM ? clients : clients.filter((c) => c.local < members);
  }

  // ---------------------------------------------------------------------------------------------
  // Setup: sessions over HTTP (product) or plain room names (bare relay)

  async setup(rooms: number): Promise<GeneratorCommands['setup']['result']> {
    const started = performance.now();
    const missing: number[] = [];
    // A generator thread owns every SHARDS-th room (the rooms array has holes for the others').
    for (let r = this.rooms.length; r < rooms; r++) if (r % SHARDS === SHARD) missing.push(r);
    // A few rooms at a time: each room joins from its own loopback address (the server limits
    // joins per address, as it should), and PGlite serialises writes anyway.
    await runLimited(missing, 4, async (r) => {
      const clients = Array.from({ length: USERS_PER_ROOM }, (_, local) => new Client(r, local));
      if (TARGET_KIND === 'product') await joinRoom(r, clients);
      this.rooms[r] = clients;
    });
    return { rooms: this.rooms.length, users: this.rooms.flat().length, ms: performance.now() - started };
  }

  // ---------------------------------------------------------------------------------------------
  // Connecting

  async connect(rooms: number, withLastRevision = false, firstRoom = 0, members = USERS_PER_ROOM): Promise<ConnectResult> {
    const started = performance.now();
    const pending = this.clientsOf(rooms, firstRoom, members).filter((c) => !c.live);
    const outcomes = await runLimited(pending, CONNECT_CONCURRENCY, (c) => this.connectClient(c, withLastRevision));
    return summariseConnects(outcomes, performance.now() - started);
  }

  connectClient(client: Client, withLastRevision: boolean): Promise<ConnectOutcome> {
    this.closeSocket(client);
    client.lidClosed = false;
    client.closingOnPurpose = false;
    const started = performance.now();
    return new Promise<ConnectOutcome>((resolve) => {
      let settled = false;
      const settle = (outcome: Omit<ConnectOutcome, 'ms'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...outcome, ms: performance.now() - started });
      };
      const timer = setTimeout(() => settle({ ok: false, error: 'timeout' }), CONNECT_TIMEOUT_MS);
      const onConnectError = (payload: unknown) => {
        const error = payload as { message?: string; data?: { code?: string } };
        settle({ ok: false, error: error.data?.code ?? error.message ?? 'connect_error' });
      };
      if (TARGET_KIND === 'bare') {
        const socket = openSocket(CLIENT_KIND, { url: TARGET_URL, auth: { room: `room-${client.room}` }, timeoutMs: CONNECT_TIMEOUT_MS });
        client.socket = socket;
        socket.on('connect', () => {
          client.live = true;
          settle({ ok: true });
        });
        socket.on('connect_error', onConnectError);
        socket.on('cursor', (payload) => {
          const packet = payload as BarePacket;
          this.onCursor(client, offTheWire(packet.x), offTheWire(packet.y));
        });
        // The drawing class's traffic as the relay forwards it (bareRelay.ts): live ink as sent, strokes as room events.
        socket.on('ink', (payload) => this.drawingWorkload?.onServerMessage('ink', payload));
        socket.on(ServerEvent.ROOM_EVENT, (payload) => this.drawingWorkload?.onRoomEvent(client, payload as RoomEvent));
        socket.on('disconnect', () => this.onDisconnect(client));
        return;
      }
      const grant = client.grant;
      if (!grant) return settle({ ok: false, error: 'no session' });
      const auth = {
        token: grant.token,
        protocol: HANDSHAKE_PROTOCOL,
        ...(withLastRevision && client.lastRevision > 0 ? { lastRevision: client.lastRevision } : {}),
      };
      const socket = openSocket(CLIENT_KIND, { url: TARGET_URL, auth, timeoutMs: CONNECT_TIMEOUT_MS });
      client.socket = socket;
      socket.on('connect_error', onConnectError);
      // Payloads are the server's, already validated there; the generator trusts their shape.
      socket.on(ServerEvent.WELCOME, (payload) => {
        client.leaseRevision = (payload as Welcome).leaseRevision;
        client.lastLeaseAckAt = clock();
      });
      socket.on(ServerEvent.SYNC, (payload) => {
        const sync = payload as SyncMessage;
        client.lastRevision = Math.max(client.lastRevision, syncRevision(sync));
        client.live = true;
        settle({ ok: true, sync: sync.kind });
      });
      socket.on(ServerEvent.ROOM_EVENT, (payload) => this.onRoomEvent(client, payload as RoomEvent));
      socket.on(ServerEvent.LEASE_DUE, (payload) => this.onLeaseDue(client, socket, payload as LeaseDue));
      socket.on(ServerEvent.CURSORS, (payload) => this.onBatch(client, payload as CursorBatch));
      socket.on(ServerEvent.NOTICE, () => {
        this.counters.notices += 1;
      });
      socket.on('disconnect', () => this.onDisconnect(client));
    });
  }

  closeSocket(client: Client): void {
    const socket = client.socket;
    if (!socket) return;
    client.closingOnPurpose = true;
    client.live = false;
    socket.close();
    client.socket = null;
  }

  disconnectAll(): number {
    let closed = 0;
    for (const client of this.rooms.flat()) {
      if (client.socket) closed += 1;
      this.closeSocket(client);
    }
    return closed;
  }

  private onDisconnect(client: Client): void {
    client.live = false;
    if (!client.closingOnPurpose) {
      this.counters.unexpectedDisconnects += 1;
      this.onUnexpectedDrop?.(client);
    }
  }

  /** Set while the district day runs: a dropped client reconnects on its own, as the web client does. */
  onUnexpectedDrop: ((client: Client) => void) | null = null;

  // ---------------------------------------------------------------------------------------------
  // Inbound product events

  private onLeaseDue(client: Client, socket: BenchSocket, due: LeaseDue): void {
    // A closed lid answers nothing: that is exactly what the sweeper must notice.
    if (client.lidClosed) return;
    client.renewCounter += 1;
    const requestId = `renew-${client.global}-${client.renewCounter}`;
    const counters = this.counters;
    const followed = counters.followRenewals;
    const sentAt = clock();
    if (followed) {
      counters.renewals.sent += 1;
      counters.renewals.pending += 1;
    }
    socket.emit(ClientEvent.LEASE_RENEW, { revision: due.revision + 1, requestId }, (payload) => {
      const reply = payload as Ack<LeaseRenewResult>;
      if (followed) followRenewal(counters, reply, clock() - sentAt);
      if (!reply.ok) {
        this.counters.renewalErrors += 1;
        return;
      }
      this.counters.renewalAcks[reply.decision] = (this.counters.renewalAcks[reply.decision] ?? 0) + 1;
      if (reply.decision === 'no_lease' && client.grant) this.counters.noLeaseSessions.add(client.grant.sessionId);
      if (reply.decision === 'accepted' || reply.decision === 'no_lease') client.lastLeaseAckAt = clock();
      client.leaseRevision = Math.max(client.leaseRevision, reply.revision);
    });
  }

  private onRoomEvent(client: Client, event: RoomEvent): void {
    client.lastRevision = Math.max(client.lastRevision, event.revision);
    this.lockWorkload?.onRoomEvent(client, event);
    this.drawingWorkload?.onRoomEvent(client, event);
    if (event.kind !== 'presence.expired') return;
    const at = clock();
    let seen = this.counters.expiredEvents.get(event.eventId);
    if (!seen) {
      seen = { sessionId: event.payload.sessionId, observers: new Set(), firstAt: at, lastAt: at };
      this.counters.expiredEvents.set(event.eventId, seen);
    }
    if (seen.observers.has(client)) {
      this.counters.duplicateExpiryDeliveries += 1;
      return;
    }
    seen.observers.add(client);
    seen.lastAt = at;
  }

  private onBatch(client: Client, batch: CursorBatch): void {
    this.lockWorkload?.onBatch(client, batch);
    this.drawingWorkload?.onServerMessage(ServerEvent.CURSORS, batch);
    const accounting = this.accounting;
    if (!accounting) return;
    const now = clock();
    if (now >= accounting.windowStart && now < accounting.windowEnd) accounting.messagesInWindow += 1;
    // Entries are [sessionId, x, y]: x carries the sender's index in its room, y its sequence number.
    for (const entry of batch.cursors) accounting.onReceive(client, offTheWire(entry[1]), offTheWire(entry[2]), now);
  }

  private onCursor(client: Client, x: number, y: number): void {
    const accounting = this.accounting;
    if (!accounting) return;
    const now = clock();
    if (now >= accounting.windowStart && now < accounting.windowEnd) accounting.messagesInWindow += 1;
    accounting.onReceive(client, x, y, now);
  }

  // ---------------------------------------------------------------------------------------------
  // Cursor motion: one scheduler for every mover (a timer per client would cost more than the
  // sends and drift independently).

  startMotion(movers: Client[], hz: number, accounting: CursorAccounting | null): () => void {
    const period = 1000 / hz;
    const start = clock();
    for (const mover of movers) {
      mover.seq = 0;
      mover.nextDue = start + Math.random() * period;
    }
    const timer = setInterval(() => {
      const now = clock();
      for (const mover of movers) {
        if (now < mover.nextDue) continue;
        // Behind by more than a period (a busy generator): skip the missed slots rather than
        // burst, so the shortfall shows up as a lower sent ratio.
        while (now - mover.nextDue >= period) mover.nextDue += period;
        mover.nextDue += period;
        if (mover.lidClosed || !mover.live || !mover.socket) continue;
        this.send(mover, now, accounting);
      }
    }, 2);
    return () => clearInterval(timer);
  }

  private send(mover: Client, now: number, accounting: CursorAccounting | null): void {
    const socket = mover.socket;
    if (!socket) return;
    const seq = mover.seq++;
    // Stamp before sending: a synchronous receive path must find the stamp already recorded.
    accounting?.stampBeforeSend(mover.global, seq, now);
    const sent = socket.emitVolatile(ClientEvent.CURSOR, { x: onTheWire(mover.local), y: onTheWire(seq) });
    accounting?.afterSend(mover.global, seq, now, sent);
  }

  // ---------------------------------------------------------------------------------------------
  // Scenarios

  /**
   * Has the teacher of each of the first `rooms` rooms set the lesson's cursor visibility to
   * `mode` where it differs (the bare relay has no settings: it relays to everyone).
   */
  async setCursorVisibility(rooms: number, mode: CursorVisibility): Promise<void> {
    if (TARGET_KIND !== 'product') {
      if (mode !== 'everyone') throw new Error(`the bare relay has no cursor visibility but everyone's (asked: ${mode})`);
      return;
    }
    const teachers = this.rooms
      .slice(0, rooms)
      .map((room, index) => ({ index, teacher: room[TEACHER_LOCAL] }))
      .filter((r) => r.teacher !== undefined && (this.roomVisibility.get(r.index) ?? CURSOR_VISIBILITY) !== mode);
    const failures: string[] = [];
    await runLimited(teachers, CONNECT_CONCURRENCY, async ({ index, teacher }) => {
      const socket = teacher?.socket;
      if (!socket) return void failures.push(`room ${index}: teacher not connected`);
      const reply = await new Promise<Ack<LessonSettingsReply> | 'timeout'>((resolve) => {
        const timer = setTimeout(() => resolve('timeout'), SETTINGS_TIMEOUT_MS);
        const request: LessonSettingsRequest = { requestId: `visibility-${index}-${mode}-${Date.now()}`, settings: { cursorVisibility: mode } };
        socket.emit(ClientEvent.LESSON_SETTINGS, request, (answer) => {
          clearTimeout(timer);
          resolve(answer as Ack<LessonSettingsReply>);
        });
      });
      if (reply === 'timeout') failures.push(`room ${index}: timeout`);
      else if (!reply.ok) failures.push(`room ${index}: ${reply.error.code}`);
      else this.roomVisibility.set(index, reply.settings.cursorVisibility);
    });
    if (failures.length > 0) throw new Error(`cursor visibility ${mode} not set: ${failures.slice(0, 5).join(', ')}`);
  }

  async cursorLoad(params: CursorLoadParams): Promise<CursorLoadResult> {
    const visibility = params.visibility ?? 'everyone';
    await this.setCursorVisibility(params.rooms, visibility);
    const clients = this.clientsOf(params.rooms);
    for (const c of clients) c.lastSeqFrom.fill(-1);
    const movers = params.movers === 'all' ? clients : clients.filter((c) => c.local === 1);
    const totalMs = params.warmupMs + params.windowMs + params.drainMs;
    const maxSeq = Math.ceil((totalMs / 1000) * params.hz) + 16;
    const accounting = new CursorAccounting(this.rooms.length * USERS_PER_ROOM, maxSeq, visibility);
    this.accounting = accounting;
    this.counters = new Counters();
    const start = clock();
    accounting.windowStart = start + params.warmupMs;
    accounting.windowEnd = accounting.windowStart + params.windowMs;
    const stop = this.startMotion(movers, params.hz, accounting);
    await sleep(params.warmupMs);
    this.selfStats(true);
    mark('windowStart');
    await sleep(params.windowMs);
    mark('windowEnd');
    const generator = this.selfStats(true);
    await sleep(params.drainMs);
    stop();
    // Stragglers: anything later than this is far past the 100 ms budget anyway.
    await sleep(300);
    this.accounting = null;

    // Owed per the rooms' visibility: every other member's under `everyone`; under `teacher` the
    // teacher's position to all 30, a student's to the teacher only.
    const expected = accounting.expectedFrom(movers.map((m) => m.global));
    return {
      visibility,
      senders: movers.length,
      receiversPerUpdate: accounting.sent > 0 ? expected / accounting.sent : 0,
      intended: Math.round(movers.length * (params.windowMs / 1000) * params.hz),
      sent: accounting.sent,
      discardedByClient: accounting.discardedByClient,
      expected,
      received: accounting.received,
      supersededInTime: accounting.supersededInTime,
      supersededLate: accounting.supersededLate,
      duplicates: accounting.duplicates,
      forbidden: accounting.forbidden,
      expectedAtTeacher: accounting.expectedFrom(movers.map((m) => m.global), true),
      deliveredAtTeacher: accounting.deliveredAtTeacher,
      latency: accounting.hist.summary(),
      latencyMergedCounted: accounting.mergedHist.summary(),
      histogram: accounting.hist.toSparse(),
      mergedHistogram: accounting.mergedHist.toSparse(),
      messagesPerClientPerSec: accounting.messagesInWindow / clients.length / (params.windowMs / 1000),
      generator,
      notices: this.counters.notices,
      disconnects: this.counters.unexpectedDisconnects,
    };
  }

  /**
   * The drawing class in `rooms` rooms from `firstRoom` (this thread's share of them): strokes
   * (drawingWorkload.ts) and, beside them, every member's cursor at `cursorHz`. After the window
   * the same load goes on, uncounted, until every in-window stroke reached every other member (or
   * `drainBoundMs` passed), so the last strokes wait under the load the others had.
   */
  async drawingLoad(params: DrawingLoadParams): Promise<DrawingLoadResult> {
    const members = params.members ?? USERS_PER_ROOM;
    const clients = this.clientsOf(params.rooms, params.firstRoom, members);
    if (params.visibility) await this.setCursorVisibility(params.firstRoom + params.rooms, params.visibility);
    for (const c of clients) c.lastSeqFrom.fill(-1);
    this.counters = new Counters();
    this.counters.followRenewals = true;
    const strokes = new StrokeAccounting(members);
    const cursorDrainMs = 500;
    const maxSeq = Math.ceil(((params.warmupMs + params.windowMs + params.drainBoundMs + cursorDrainMs) / 1000) * params.cursorHz) + 16;
    const cursors = params.cursorHz > 0 ? new CursorAccounting(this.rooms.length * USERS_PER_ROOM, maxSeq) : null;
    const start = clock();
    strokes.windowStart = start + params.warmupMs;
    strokes.windowEnd = strokes.windowStart + params.windowMs;
    if (cursors) {
      cursors.windowStart = strokes.windowStart;
      cursors.windowEnd = strokes.windowEnd;
    }
    this.accounting = cursors;
    const drawers = params.drawers === undefined ? clients : clients.filter((c) => c.local < (params.drawers ?? 0));
    const workload = new DrawingWorkload(drawers, strokes, { liveInk: params.liveInk ? LIVE_INK_WIRE : null, clock, random: Math.random });
    this.drawingWorkload = workload;
    const stopMotion = cursors ? this.startMotion(clients, params.cursorHz, cursors) : () => undefined;
    workload.start();
    let generator: SelfStats;
    let drainMs: number;
    try {
      await sleep(params.warmupMs);
      this.selfStats(true);
      mark('windowStart');
      await sleep(params.windowMs);
      mark('windowEnd');
      generator = this.selfStats(true);
      const drainStart = clock();
      // The cursor accounting needs a little drain too: a packet's replacement comes after it.
      while ((!strokes.settled() || clock() - drainStart < cursorDrainMs) && clock() - drainStart < params.drainBoundMs) await sleep(20);
      drainMs = clock() - drainStart;
      // The run ends here for the strokes: a pair still missing counts at this moment.
      strokes.finish(clock());
    } finally {
      workload.stop();
      stopMotion();
      this.counters.followRenewals = false;
    }
    // Answers already on their way (renewals, late acks): bounded like every wait here.
    const answersBy = clock() + REPLY_TIMEOUT_MS;
    while (this.counters.renewals.pending > 0 && clock() < answersBy) await sleep(50);
    await sleep(300);
    const strokeCounts = strokes.counts;
    this.drawingWorkload = null;
    this.accounting = null;
    const r = this.counters.renewals;
    const expected = cursors ? cursors.expectedFrom(clients.map((c) => c.global)) : 0;
    return {
      users: clients.length,
      windowMs: params.windowMs,
      strokes: strokeCounts,
      strokeLatency: strokes.latency.summary(),
      ackLatency: strokes.ackLatency.summary(),
      liveInkLatency: strokes.liveInkLatency.summary(),
      drainMs,
      renewals: {
        sent: r.sent,
        accepted: r.accepted,
        lost: r.sent - r.accepted,
        late: r.late,
        byDecision: r.byDecision,
        errors: r.errors,
        unanswered: r.pending,
        latency: this.counters.renewalLatency.summary(),
      },
      expiriesSeen: this.counters.expiredEvents.size,
      cursors: cursors
        ? {
            senders: clients.length,
            intended: Math.round(clients.length * (params.windowMs / 1000) * params.cursorHz),
            sent: cursors.sent,
            expected,
            received: cursors.received,
            supersededInTime: cursors.supersededInTime,
            latency: cursors.hist.summary(),
            latencyMergedCounted: cursors.mergedHist.summary(),
          }
        : null,
      generator,
      notices: this.counters.notices,
      disconnects: this.counters.unexpectedDisconnects,
      histograms: {
        ...strokes.histograms(),
        cursor: cursors ? cursors.hist.toSparse() : null,
        cursorMerged: cursors ? cursors.mergedHist.toSparse() : null,
        renewal: this.counters.renewalLatency.toSparse(),
      },
    };
  }

  async ghost(params: GhostParams): Promise<GhostResult> {
    const connected = await this.connect(params.rooms);
    if (connected.failed > 0) throw new Error(`ghost: ${connected.failed} clients could not connect`);
    this.counters = new Counters();
    const clients = this.clientsOf(params.rooms);
    const stop = this.startMotion(clients, params.hz, null);
    const samples: GhostSample[] = [];
    let closes = 0;
    let timedOut = 0;
    try {
      for (let round = 0; round < params.rounds; round++) {
        // Let everyone renew at least once after the previous round's wake-ups.
        await sleep(4_000);
        const closers = this.rooms
          .slice(0, params.rooms)
          .flatMap((room) => shuffle(room.filter((c) => c.local !== 0)).slice(0, params.closesPerRoom));
        // Lids close at random moments within a renewal interval, as real ones would.
        await Promise.all(
          closers.map(async (c) => {
            await sleep(Math.random() * 3_000);
            c.lidClosed = true;
          }),
        );
        closes += closers.length;
        const observersPerRoom = USERS_PER_ROOM - params.closesPerRoom;
        const deadline = performance.now() + params.timeoutMs;
        const removedEverywhere = (c: Client) => {
          const event = this.findExpiry(c);
          return event !== undefined && event.observers.size >= observersPerRoom;
        };
        while (performance.now() < deadline && !closers.every(removedEverywhere)) await sleep(100);
        for (const c of closers) {
          const event = this.findExpiry(c);
          if (!event || event.observers.size < observersPerRoom) {
            timedOut += 1;
            continue;
          }
          samples.push({
            firstMs: event.firstAt - c.lastLeaseAckAt,
            lastMs: event.lastAt - c.lastLeaseAckAt,
            observers: event.observers.size,
          });
        }
        // The lids open: a reconnect, which opens a new lease.
        await runLimited(closers, CONNECT_CONCURRENCY, (c) => this.connectClient(c, true));
        this.counters.expiredEvents.clear();
      }
    } finally {
      stop();
    }
    return { closes, observed: samples.length, timedOut, samples, duplicateExpiries: this.counters.duplicateExpiryDeliveries };
  }

  private findExpiry(client: Client) {
    const sessionId = client.grant?.sessionId;
    for (const event of this.counters.expiredEvents.values()) if (event.sessionId === sessionId) return event;
    return undefined;
  }

  async churn(params: ChurnParams): Promise<ChurnResult> {
    const connected = await this.connect(params.rooms);
    if (connected.failed > 0) throw new Error(`churn: ${connected.failed} clients could not connect`);
    const clients = this.clientsOf(params.rooms);
    await sleep(params.warmupMs);
    this.counters = new Counters();
    mark('windowStart');
    const closers = shuffle(clients.filter((c) => c.local !== 0)).slice(0, params.lidCloses);
    for (const c of closers) c.lidClosed = true;
    const closedSessions = new Set(closers.map((c) => c.grant?.sessionId));

    let reconnects = 0;
    let reconnectFailures = 0;
    const inFlight = new Set<Promise<void>>();
    const everyMs = 60_000 / Math.max(1, params.churnPerMinute * clients.length);
    const windowEnd = performance.now() + params.windowMs;
    while (performance.now() < windowEnd) {
      await sleep(everyMs);
      const candidates = clients.filter((c) => c.live && !c.lidClosed);
      const victim = candidates[Math.floor(Math.random() * candidates.length)];
      if (!victim) continue;
      this.closeSocket(victim);
      // A reload or a wifi blip: back well within the lease term, with the last revision applied.
      const task = (async () => {
        await sleep(500 + Math.random() * 3_500);
        const outcome = await this.connectClient(victim, true);
        if (outcome.ok) reconnects += 1;
        else reconnectFailures += 1;
      })();
      inFlight.add(task);
      void task.finally(() => inFlight.delete(task));
    }
    mark('windowEnd');
    await Promise.all(inFlight);

    let falseEvictions = 0;
    let expiredEventsForClosed = 0;
    for (const event of this.counters.expiredEvents.values()) {
      if (closedSessions.has(event.sessionId)) expiredEventsForClosed += 1;
      else falseEvictions += 1;
    }
    for (const sessionId of this.counters.noLeaseSessions) if (!closedSessions.has(sessionId)) falseEvictions += 1;
    // Open the lids again so the next scenario starts from live clients.
    await runLimited(closers, CONNECT_CONCURRENCY, (c) => this.connectClient(c, true));
    return {
      users: clients.length,
      reconnects,
      reconnectFailures,
      renewalAcks: this.counters.renewalAcks,
      renewalErrors: this.counters.renewalErrors,
      falseEvictions,
      lidCloses: closers.length,
      expiredEventsForClosed,
      duplicateDeliveries: this.counters.duplicateExpiryDeliveries,
    };
  }

  /**
   * The district day's lesson window (districtDay.ts): every client connected through the
   * balancer, some lids closed at the start, and whoever's socket drops (the orchestrator kills a
   * node meanwhile) reconnects after the web client's jitter, retrying until it is live again.
   */
  async district(params: DistrictParams): Promise<DistrictResult> {
    // A client whose first handshake times out (a loaded machine) tries again, as the web client
    // does; the retries are reported, and a client that never connects fails the run.
    let connected = await this.connect(params.rooms);
    let connectRetries = 0;
    for (let attempt = 1; connected.failed > 0 && attempt <= 3; attempt++) {
      connectRetries += connected.failed;
      await sleep(1_000);
      connected = await this.connect(params.rooms);
    }
    if (connected.failed > 0) throw new Error(`district: ${connected.failed} clients could not connect (${connected.errors.join(', ')})`);
    const clients = this.clientsOf(params.rooms);
    await sleep(params.warmupMs);
    this.counters = new Counters();
    mark('windowStart');
    const closers = shuffle(clients.filter((c) => c.local !== 0)).slice(0, params.lidCloses);
    for (const c of closers) c.lidClosed = true;
    const closedSessions = new Set(closers.map((c) => c.grant?.sessionId));

    const moved = new Map<Client, { droppedAt: number; liveAt: number | null }>();
    let attemptsFailed = 0;
    const inFlight = new Set<Promise<void>>();
    const giveUpAt = performance.now() + params.windowMs + params.settleBoundMs;
    const { min, max } = params.reconnectDelayMs;
    this.onUnexpectedDrop = (client) => {
      // A closed lid does not reconnect: its lease must expire.
      if (client.lidClosed || moved.has(client)) return;
      const entry = { droppedAt: performance.now(), liveAt: null as number | null };
      moved.set(client, entry);
      const task = (async () => {
        let delay = min + Math.random() * (max - min);
        while (performance.now() < giveUpAt) {
          await sleep(delay);
          const outcome = await this.connectClient(client, true);
          if (outcome.ok) {
            entry.liveAt = performance.now();
            return;
          }
          attemptsFailed += 1;
          // The web client's backoff: doubling, ± 50 %, at most 8 s (RETRY_MAX_MS in roomClient.ts).
          delay = Math.min(8_000, delay * 2) * (0.5 + Math.random());
        }
      })();
      inFlight.add(task);
      void task.finally(() => inFlight.delete(task));
    };
    try {
      await sleep(params.windowMs);
      mark('windowEnd');
      const bound = sleep(params.settleBoundMs);
      await Promise.race([Promise.all(inFlight), bound]);
    } finally {
      this.onUnexpectedDrop = null;
    }

    const movedSessions = new Set([...moved.keys()].map((c) => c.grant?.sessionId));
    let falseEvictionsStayed = 0;
    let falseEvictionsMoved = 0;
    let expiredEventsForClosed = 0;
    const evicted = new Set<string>();
    for (const event of this.counters.expiredEvents.values()) {
      if (closedSessions.has(event.sessionId)) expiredEventsForClosed += 1;
      else evicted.add(event.sessionId);
    }
    for (const sessionId of this.counters.noLeaseSessions) if (!closedSessions.has(sessionId)) evicted.add(sessionId);
    for (const sessionId of evicted) {
      if (movedSessions.has(sessionId)) falseEvictionsMoved += 1;
      else falseEvictionsStayed += 1;
    }
    const times = [...moved.values()].flatMap((m) => (m.liveAt === null ? [] : [m.liveAt - m.droppedAt]));
    const result: DistrictResult = {
      users: clients.length,
      connectRetries,
      liveAtEnd: clients.filter((c) => c.live && !c.lidClosed).length,
      dropped: moved.size,
      movedLive: times.length,
      moveMs: { p50: percentileOf(times, 50), p99: percentileOf(times, 99), max: times.length ? Math.max(...times) : Number.NaN },
      moveAttemptsFailed: attemptsFailed,
      movedSessions: [...movedSessions].filter((s): s is string => typeof s === 'string'),
      lidClosedSessions: [...closedSessions].filter((s): s is string => typeof s === 'string'),
      falseEvictionsStayed,
      falseEvictionsMoved,
      expiredEventsForClosed,
      duplicateDeliveries: this.counters.duplicateExpiryDeliveries,
      renewalAcks: this.counters.renewalAcks,
      renewalErrors: this.counters.renewalErrors,
    };
    this.disconnectAll();
    return result;
  }

  async locks(params: LockWorkloadParams): Promise<LockWorkloadResult> {
    const clients = this.rooms[params.room];
    if (!clients) throw new Error(`locks: room ${params.room} is not set up`);
    const workload = new LockWorkload(clients, params);
    this.lockWorkload = workload;
    this.selfStats(true);
    try {
      const result = await workload.run();
      return { ...result, generator: this.selfStats(true) };
    } finally {
      this.lockWorkload = null;
    }
  }

  async signOut(rooms: number, firstRoom = 0): Promise<{ signedOut: number; failed: number }> {
    const clients = this.clientsOf(rooms, firstRoom).filter((c) => c.live && c.socket);
    const outcomes = await runLimited(clients, CONNECT_CONCURRENCY, (c) =>
      new Promise<boolean>((resolve) => {
        const socket = c.socket;
        if (!socket) {
          resolve(false);
          return;
        }
        // The server ends the session and disconnects the socket: that close is on purpose.
        c.closingOnPurpose = true;
        const timer = setTimeout(() => resolve(false), 10_000);
        socket.emit(ClientEvent.SIGN_OUT, {}, (payload) => {
          clearTimeout(timer);
          resolve((payload as Ack<Record<string, never>>).ok);
        });
      }),
    );
    for (const c of clients) this.closeSocket(c);
    return { signedOut: outcomes.filter(Boolean).length, failed: outcomes.filter((ok) => !ok).length };
  }

  async storm(rooms: number, timeoutMs: number): Promise<StormResult> {
    const clients = this.clientsOf(rooms);
    for (const c of clients) this.closeSocket(c);
    mark('stormStart');
    const started = performance.now();
    // Everyone at once, on purpose: that is the storm. Bounded by the connect timeout.
    const outcomes = await Promise.race([
      Promise.all(clients.map((c) => this.connectClient(c, true))),
      sleep(timeoutMs).then(() => null),
    ]);
    const allLiveMs = performance.now() - started;
    mark('stormEnd');
    if (!outcomes) {
      return { clients: clients.length, live: clients.filter((c) => c.live).length, failed: 0, allLiveMs, p50Ms: NaN, p99Ms: NaN, snapshots: 0, replays: 0, errors: ['timeout'] };
    }
    const summary = summariseConnects(outcomes, allLiveMs);
    const times = outcomes.filter((o) => o.ok).map((o) => o.ms);
    return {
      clients: clients.length,
      live: summary.connected,
      failed: summary.failed,
      allLiveMs,
      p50Ms: percentileOf(times, 50),
      p99Ms: percentileOf(times, 99),
      snapshots: summary.snapshots,
      replays: summary.replays,
      errors: summary.errors,
    };
  }
}

/** One followed renewal's answer (the drawing class counts every renewal that was not accepted). */
function followRenewal(counters: Counters, reply: Ack<LeaseRenewResult>, ms: number): void {
  const r = counters.renewals;
  r.pending -= 1;
  counters.renewalLatency.record(ms);
  if (!reply.ok) {
    r.errors[reply.error.code] = (r.errors[reply.error.code] ?? 0) + 1;
    return;
  }
  r.byDecision[reply.decision] = (r.byDecision[reply.decision] ?? 0) + 1;
  if (reply.decision !== 'accepted') return;
  r.accepted += 1;
  if (ms > REPLY_TIMEOUT_MS) r.late += 1;
}

function syncRevision(sync: SyncMessage): number {
  if (sync.kind === 'snapshot') return sync.snapshot.revision;
  const last = sync.events[sync.events.length - 1];
  return last ? last.revision : sync.fromRevision;
}

function summariseConnects(outcomes: ConnectOutcome[], ms: number): ConnectResult {
  const errors = new Map<string, number>();
  for (const o of outcomes) if (!o.ok) errors.set(o.error ?? 'unknown', (errors.get(o.error ?? 'unknown') ?? 0) + 1);
  return {
    connected: outcomes.filter((o) => o.ok).length,
    failed: outcomes.filter((o) => !o.ok).length,
    ms,
    errors: [...errors].map(([error, count]) => `${error} x${count}`),
    snapshots: outcomes.filter((o) => o.sync === 'snapshot').length,
    replays: outcomes.filter((o) => o.sync === 'replay').length,
  };
}

function shuffle<T>(items: T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

async function runLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

// -----------------------------------------------------------------------------------------------
// HTTP join, from one loopback address per room (the server rate-limits joins per address)

function sourceAddress(index: number): string {
  const room = index + ROOM_ADDRESS_OFFSET;
  return `127.0.${1 + Math.floor(room / 250)}.${1 + (room % 250)}`;
}

function postJson(path: string, body: unknown, localAddress: string): Promise<{ status: number; body: unknown }> {
  const url = new URL(path, TARGET_URL);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        localAddress,
        agent: false,
        timeout: 15_000,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown });
          } catch {
            resolve({ status: res.statusCode ?? 0, body: text });
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`POST ${path} timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** A join refused `429` is tried again after this long, at most JOIN_WAITS_AT_MOST times in all (bounded). */
const JOIN_RETRY_MS = 1_100;
const JOIN_WAITS_AT_MOST = 600;

async function joinRoom(room: number, clients: Client[]): Promise<void> {
  const from = sourceAddress(room);
  const memberKey = () => randomBytes(18).toString('base64url');
  const [teacher, ...students] = clients;
  if (!teacher) return;
  const created = await postJson('/api/rooms', { teacherName: `Teacher ${room}`, memberKey: memberKey(), settings: { cursorVisibility: CURSOR_VISIBILITY } }, from);
  if (created.status !== 201) throw new Error(`create room ${room}: ${created.status} ${JSON.stringify(created.body)}`);
  teacher.grant = created.body as SessionGrant;
  const code = teacher.grant.room.code;
  for (const student of students) {
    const body = { displayName: `Student ${room}-${student.local}`, memberKey: memberKey() };
    let joined = await postJson(`/api/rooms/${code}/join`, body, from);
    // A lesson takes 60 joins a minute (apps/server/src/http/rateLimits.ts): a lecture hall's
    // 150 wait their turn, as its students would, about a second each past the first 60.
    for (let waits = 0; joined.status === 429 && waits < JOIN_WAITS_AT_MOST; waits++) {
      await sleep(JOIN_RETRY_MS);
      joined = await postJson(`/api/rooms/${code}/join`, body, from);
    }
    if (joined.status !== 200) throw new Error(`join room ${room}: ${joined.status} ${JSON.stringify(joined.body)}`);
    student.grant = joined.body as SessionGrant;
  }
}

// -----------------------------------------------------------------------------------------------
// IPC: the orchestrator's commands arrive over the process channel; in a threaded generator the
// main thread relays them to the threads (`parentPort`) and merges their replies.

function send(message: GeneratorMessage): void {
  if (parentPort) parentPort.postMessage(message);
  else process.send?.(message);
}

function mark(name: string): void {
  send({ kind: 'mark', name });
}

async function handle(fleet: Fleet, message: CommandMessage): Promise<unknown> {
  const name: CommandName = message.name;
  switch (name) {
    case 'setup':
      return fleet.setup((message as CommandMessage<'setup'>).params.rooms);
    case 'connect': {
      const { rooms, withLastRevision, firstRoom, members } = (message as CommandMessage<'connect'>).params;
      return fleet.connect(rooms, withLastRevision ?? false, firstRoom ?? 0, members ?? USERS_PER_ROOM);
    }
    case 'disconnect': {
      const closed = fleet.disconnectAll();
      // Let the server process the closes before the next point starts.
      await sleep(500);
      return { closed };
    }
    case 'cursorLoad':
      return fleet.cursorLoad((message as CommandMessage<'cursorLoad'>).params);
    case 'ghost':
      return fleet.ghost((message as CommandMessage<'ghost'>).params);
    case 'churn':
      return fleet.churn((message as CommandMessage<'churn'>).params);
    case 'storm': {
      const { rooms, timeoutMs } = (message as CommandMessage<'storm'>).params;
      return fleet.storm(rooms, timeoutMs);
    }
    case 'locks':
      return fleet.locks((message as CommandMessage<'locks'>).params);
    case 'district':
      return fleet.district((message as CommandMessage<'district'>).params);
    case 'signOut': {
      const { rooms, firstRoom } = (message as CommandMessage<'signOut'>).params;
      return fleet.signOut(rooms, firstRoom ?? 0);
    }
    case 'drawingLoad':
      return fleet.drawingLoad((message as CommandMessage<'drawingLoad'>).params);
    case 'selfStats':
      return fleet.selfStats(true);
  }
}

function reply(id: number, work: Promise<unknown>): void {
  work.then(
    (result) => send({ kind: 'reply', id, ok: true, result }),
    (error: unknown) => send({ kind: 'reply', id, ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
}

/** Commands whose replies the threaded generator knows how to merge (the cursor-load scenarios). */
const MERGEABLE = new Set<CommandName>(['setup', 'connect', 'disconnect', 'cursorLoad', 'drawingLoad', 'signOut', 'selfStats']);

/** The main thread of a threaded generator: one worker thread per shard of the rooms. */
class ThreadedGenerator {
  private readonly threads: Worker[] = [];
  private nextId = 1;
  private readonly pending = new Map<number, (reply: Extract<GeneratorMessage, { kind: 'reply' }>) => void>();

  async start(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      // The thread runs this same file, through a plain module that loads TypeScript for it.
      const thread = new Worker(new URL('./generatorThread.mjs', import.meta.url), { workerData: { shard: i, shards: count } });
      const ready = new Promise<void>((resolve, reject) => {
        thread.on('message', (message: GeneratorMessage) => {
          if (message.kind === 'ready') resolve();
          // Window marks: every thread's windows start together; the first thread's stand for all.
          else if (message.kind === 'mark' && i === 0) send(message);
          else if (message.kind === 'reply') {
            this.pending.get(message.id)?.(message);
            this.pending.delete(message.id);
          }
        });
        thread.once('error', reject);
      });
      this.threads.push(thread);
      await ready;
    }
  }

  private call(thread: Worker, name: CommandName, params: unknown): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, (message) => (message.ok ? resolve(message.result) : reject(new Error(message.error))));
      thread.postMessage({ kind: 'command', id, name, params });
    });
  }

  async handle(message: CommandMessage): Promise<unknown> {
    if (!MERGEABLE.has(message.name)) throw new Error(`${message.name} does not run on a threaded generator (BENCH_GENERATOR_THREADS)`);
    const results = await Promise.all(this.threads.map((t) => this.call(t, message.name, message.params)));
    return mergeResults(message.name, results);
  }
}

function mergeResults(name: CommandName, results: unknown[]): unknown {
  const sum = <T>(pick: (r: T) => number) => (results as T[]).reduce((total, r) => total + pick(r), 0);
  const max = <T>(pick: (r: T) => number) => Math.max(...(results as T[]).map(pick));
  switch (name) {
    case 'setup':
      return { rooms: max<GeneratorCommands['setup']['result']>((r) => r.rooms), users: sum<GeneratorCommands['setup']['result']>((r) => r.users), ms: max<GeneratorCommands['setup']['result']>((r) => r.ms) };
    case 'connect': {
      const all = results as ConnectResult[];
      return {
        connected: sum<ConnectResult>((r) => r.connected),
        failed: sum<ConnectResult>((r) => r.failed),
        ms: max<ConnectResult>((r) => r.ms),
        errors: [...new Set(all.flatMap((r) => r.errors))],
        snapshots: sum<ConnectResult>((r) => r.snapshots),
        replays: sum<ConnectResult>((r) => r.replays),
      } satisfies ConnectResult;
    }
    case 'disconnect':
      return { closed: sum<{ closed: number }>((r) => r.closed) };
    case 'signOut':
      return { signedOut: sum<{ signedOut: number }>((r) => r.signedOut), failed: sum<{ failed: number }>((r) => r.failed) };
    case 'drawingLoad':
      return mergeDrawingResults(results as DrawingLoadResult[]);
    case 'selfStats':
      // CPU is the whole process's in every thread (getrusage); loop delay is per thread.
      return { cores: max<SelfStats>((r) => r.cores), eventLoopP99Ms: max<SelfStats>((r) => r.eventLoopP99Ms) } satisfies SelfStats;
    case 'cursorLoad': {
      const all = results as CursorLoadResult[];
      const hist = new LatencyHistogram();
      const mergedHist = new LatencyHistogram();
      for (const r of all) {
        if (r.histogram) hist.merge(r.histogram);
        if (r.mergedHistogram) mergedHist.merge(r.mergedHistogram);
      }
      const senders = sum<CursorLoadResult>((r) => r.senders);
      const sent = sum<CursorLoadResult>((r) => r.sent);
      const expected = sum<CursorLoadResult>((r) => r.expected);
      return {
        visibility: all[0]?.visibility ?? 'everyone',
        senders,
        receiversPerUpdate: sent > 0 ? expected / sent : 0,
        intended: sum<CursorLoadResult>((r) => r.intended),
        sent,
        discardedByClient: sum<CursorLoadResult>((r) => r.discardedByClient),
        expected,
        received: sum<CursorLoadResult>((r) => r.received),
        supersededInTime: sum<CursorLoadResult>((r) => r.supersededInTime),
        supersededLate: sum<CursorLoadResult>((r) => r.supersededLate),
        duplicates: sum<CursorLoadResult>((r) => r.duplicates),
        forbidden: sum<CursorLoadResult>((r) => r.forbidden),
        expectedAtTeacher: sum<CursorLoadResult>((r) => r.expectedAtTeacher),
        deliveredAtTeacher: sum<CursorLoadResult>((r) => r.deliveredAtTeacher),
        latency: hist.summary(),
        latencyMergedCounted: mergedHist.summary(),
        histogram: hist.toSparse(),
        mergedHistogram: mergedHist.toSparse(),
        // Weighted by each thread's senders (in proportion to its rooms).
        messagesPerClientPerSec: senders > 0 ? sum<CursorLoadResult>((r) => r.messagesPerClientPerSec * r.senders) / senders : 0,
        generator: { cores: max<CursorLoadResult>((r) => r.generator.cores), eventLoopP99Ms: max<CursorLoadResult>((r) => r.generator.eventLoopP99Ms) },
        notices: sum<CursorLoadResult>((r) => r.notices),
        disconnects: sum<CursorLoadResult>((r) => r.disconnects),
      } satisfies CursorLoadResult;
    }
    default:
      throw new Error(`no merge for ${name}`);
  }
}

/** A drawing class run on several threads: counts add up, latencies are merged histograms. */
function mergeDrawingResults(all: DrawingLoadResult[]): DrawingLoadResult {
  const first = all[0];
  if (!first) throw new Error('drawingLoad: no thread answered');
  const merged = (pick: (h: NonNullable<DrawingLoadResult['histograms']>) => SparseHistogram | null) => {
    const hist = new LatencyHistogram();
    for (const r of all) {
      const sparse = r.histograms ? pick(r.histograms) : null;
      if (sparse) hist.merge(sparse);
    }
    return hist;
  };
  const sum = (pick: (r: DrawingLoadResult) => number) => all.reduce((total, r) => total + pick(r), 0);
  const withCursors = all.filter((r) => r.cursors !== null);
  const stroke = merged((h) => h.stroke);
  const ack = merged((h) => h.ack);
  const liveInk = merged((h) => h.liveInk);
  const cursor = merged((h) => h.cursor);
  const cursorMerged = merged((h) => h.cursorMerged);
  const renewal = merged((h) => h.renewal);
  const sumCursors = (pick: (c: NonNullable<DrawingLoadResult['cursors']>) => number) => withCursors.reduce((total, r) => total + (r.cursors ? pick(r.cursors) : 0), 0);
  return {
    users: sum((r) => r.users),
    windowMs: first.windowMs,
    strokes: all.map((r) => r.strokes).reduce(addStrokeCounts),
    strokeLatency: stroke.summary(),
    ackLatency: ack.summary(),
    liveInkLatency: liveInk.summary(),
    drainMs: Math.max(...all.map((r) => r.drainMs)),
    renewals: {
      sent: sum((r) => r.renewals.sent),
      accepted: sum((r) => r.renewals.accepted),
      lost: sum((r) => r.renewals.lost),
      late: sum((r) => r.renewals.late),
      byDecision: addRecords(all.map((r) => r.renewals.byDecision)),
      errors: addRecords(all.map((r) => r.renewals.errors)),
      unanswered: sum((r) => r.renewals.unanswered),
      latency: renewal.summary(),
    },
    expiriesSeen: sum((r) => r.expiriesSeen),
    cursors:
      withCursors.length === 0
        ? null
        : {
            senders: sumCursors((c) => c.senders),
            intended: sumCursors((c) => c.intended),
            sent: sumCursors((c) => c.sent),
            expected: sumCursors((c) => c.expected),
            received: sumCursors((c) => c.received),
            supersededInTime: sumCursors((c) => c.supersededInTime),
            latency: cursor.summary(),
            latencyMergedCounted: cursorMerged.summary(),
          },
    // CPU is the whole process's in every thread (getrusage); loop delay is per thread.
    generator: { cores: Math.max(...all.map((r) => r.generator.cores)), eventLoopP99Ms: Math.max(...all.map((r) => r.generator.eventLoopP99Ms)) },
    notices: sum((r) => r.notices),
    disconnects: sum((r) => r.disconnects),
  };
}

/** Histograms are for merging between threads; the orchestrator gets the summaries only. */
const HISTOGRAM_KEYS = new Set(['histogram', 'mergedHistogram', 'histograms']);
function withoutHistogram(result: unknown): unknown {
  if (!result || typeof result !== 'object') return result;
  return Object.fromEntries(Object.entries(result).filter(([key]) => !HISTOGRAM_KEYS.has(key)));
}

if (parentPort) {
  // A thread of a threaded generator.
  const fleet = new Fleet();
  const port = parentPort;
  port.on('message', (message: CommandMessage) => reply(message.id, handle(fleet, message)));
  send({ kind: 'ready' });
} else if (THREADS > 1) {
  const threaded = new ThreadedGenerator();
  await threaded.start(THREADS);
  process.on('message', (message: CommandMessage) => reply(message.id, threaded.handle(message).then(withoutHistogram)));
  process.on('disconnect', () => process.exit(0));
  send({ kind: 'ready' });
} else {
  const fleet = new Fleet();
  process.on('message', (message: CommandMessage) => reply(message.id, handle(fleet, message).then(withoutHistogram)));
  // The orchestrator going away must not leave a generator holding hundreds of sockets.
  process.on('disconnect', () => process.exit(0));
  send({ kind: 'ready' });
}
