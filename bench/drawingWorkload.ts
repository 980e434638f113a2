/**
 * The generator side of the drawing class (issue 19): every member of a room draws pen strokes the
 * way the web client sends them today. A stroke lasts 0.3-1.2 s, then a pause of 0.2-0.7 s, then
 * the next (about 0.84 strokes a second per member, about 26 per 31-member room). At pointer-up
 * the stroke joins its author's edit queue, which sends one acknowledged `element.create` at a
 * time (apps/web/src/elements/boardEditor.ts): a reply timeout (5 s) or a retryable error
 * (`unavailable`, `rate_limited`, ...) sends the same request again after 1 s, a final refusal
 * drops it. The cursor load beside it is the generator's ordinary 30 Hz motion (loadGenerator.ts).
 *
 * Live ink (`--live-ink`): while a stroke is drawn, `LIVE_INK_WIRE` sends the points drawn since
 * the last chunk at most every 33 ms as the protocol's `ink` packet (the web client's way: see
 * apps/web/src/elements/inkSender.ts), and receivers report the chunks they find in the cursor
 * batches, so their latency is measured beside the strokes'.
 */
import {
  ClientEvent,
  MAX_INK_POINTS_PER_PACKET,
  ServerEvent,
  type Ack,
  type CreateElementRequest,
  type CursorBatch,
  type ElementReply,
  type ErrorCode,
  type InkUpdate,
  type RoomEvent,
} from '@wb/protocol';
import type { BenchSocket } from './benchSocket.ts';
import { StrokeAccounting, type CreateAnswer } from './strokeAccounting.ts';
import { penStrokeRequest } from './strokeShape.ts';

/** Stroke and pause lengths (uniform), in ms: the class, about 26 strokes/s per room. */
export const STROKE_MS = { min: 300, max: 1_200 } as const;
export const PAUSE_MS = { min: 200, max: 700 } as const;
/** The web client's reply timeout and retry pause for edits (roomClient.ts, boardEditor.ts). */
export const REPLY_TIMEOUT_MS = 5_000;
export const RETRY_MS = 1_000;
/** Live ink goes out at most this often per stroke (30 Hz, like cursors). */
export const LIVE_INK_INTERVAL_MS = 33;
/** The drawing scheduler's tick: pointer-ups land within this of their planned moment. */
const SCHEDULER_TICK_MS = 5;

/** Strokes per second per member that the stroke and pause lengths give on average. */
export const STROKES_PER_MEMBER_PER_SEC = 1000 / ((STROKE_MS.min + STROKE_MS.max) / 2 + (PAUSE_MS.min + PAUSE_MS.max) / 2);

/** What live ink needs of the stroke being drawn: its id, anchor and style. */
export interface InkStroke {
  readonly id: string;
  readonly x: number;
  readonly y: number;
  readonly stroke: string;
  readonly strokeWidth: number;
}

/**
 * How live ink travels. `send` puts the points drawn since the last chunk (relative to the
 * stroke's anchor, as the pen shape holds them) on the ephemeral path (false when the transport
 * dropped it); `chunksIn` finds the chunks in a server message a receiver got. A chunk is named by
 * its stroke id and the stroke's point count after it.
 */
export interface LiveInkWire {
  send(socket: BenchSocket, stroke: InkStroke, points: ReadonlyArray<readonly [number, number, number]>, pointCount: number): boolean;
  chunksIn(event: string, payload: unknown): Array<{ strokeId: string; pointCount: number }>;
}

/**
 * The protocol's `ink` packet, sent as the web client sends it (a plain emit, unacknowledged),
 * in packets of at most MAX_INK_POINTS_PER_PACKET. The server joins one stroke's packets of a
 * tick into one entry of the room's `cursors` batch; a receiver reports every point count the
 * entry covers, so a chunk the server merged with the next one counts as arriving with it (the
 * accounting ignores counts that were never a chunk's end).
 */
export const LIVE_INK_WIRE: LiveInkWire = {
  send(socket, stroke, points, pointCount) {
    let from = pointCount - points.length;
    for (let i = 0; i < points.length; i += MAX_INK_POINTS_PER_PACKET) {
      const update: InkUpdate = {
        strokeId: stroke.id,
        from,
        points: points.slice(i, i + MAX_INK_POINTS_PER_PACKET).map(([dx, dy, p]): [number, number, number] => [stroke.x + dx, stroke.y + dy, p]),
        stroke: stroke.stroke,
        strokeWidth: stroke.strokeWidth,
      };
      socket.emit(ClientEvent.INK, update);
      from += update.points.length;
    }
    return true;
  },
  chunksIn(event, payload) {
    // The bare relay forwards each packet as it was sent (bareRelay.ts).
    if (event === 'ink') {
      const update = payload as InkUpdate;
      const chunks: Array<{ strokeId: string; pointCount: number }> = [];
      for (let count = update.from + 1; count <= update.from + update.points.length; count++) chunks.push({ strokeId: update.strokeId, pointCount: count });
      return chunks;
    }
    if (event !== ServerEvent.CURSORS) return [];
    const chunks: Array<{ strokeId: string; pointCount: number }> = [];
    for (const entry of (payload as CursorBatch).ink ?? []) {
      for (let count = entry.from + 1; count <= entry.from + entry.points.length; count++) chunks.push({ strokeId: entry.strokeId, pointCount: count });
    }
    return chunks;
  },
};

/** What the workload needs of the generator's Client (structural, so no import cycle). */
export interface Drawer {
  readonly room: number;
  readonly local: number;
  socket: BenchSocket | null;
  live: boolean;
}

interface QueuedStroke {
  strokeId: string;
  request: CreateElementRequest;
  attempts: number;
}

interface DrawerState {
  drawer: Drawer;
  drawing: boolean;
  /** When the current stroke or pause ends. */
  phaseEndsAt: number;
  strokeStartedAt: number;
  /** The stroke being drawn, whole from pointer-down: live ink sends its points as they are drawn. */
  current: CreateElementRequest | null;
  liveInkSentPoints: number;
  lastLiveInkAt: number;
  queue: QueuedStroke[];
  sending: boolean;
  retryTimer: ReturnType<typeof setTimeout> | undefined;
}

export interface DrawingWorkloadOptions {
  liveInk: LiveInkWire | null;
  clock: () => number;
  random: () => number;
}

const FINAL_REFUSALS: ReadonlySet<string> = new Set<ErrorCode>(['conflict', 'forbidden', 'locked', 'not_found', 'bad_request', 'payload_too_large', 'stale_generation']);

const penPoints = (request: CreateElementRequest) => (request.shape.kind === 'pen' ? request.shape.points : []);
const between = (range: { min: number; max: number }, random: () => number) => range.min + random() * (range.max - range.min);

export class DrawingWorkload {
  private readonly states: DrawerState[];
  private timer: ReturnType<typeof setInterval> | undefined;
  private stopped = false;

  constructor(
    drawers: readonly Drawer[],
    private readonly accounting: StrokeAccounting,
    private readonly options: DrawingWorkloadOptions,
  ) {
    const now = options.clock();
    const cycle = STROKE_MS.max + PAUSE_MS.max;
    // Everyone starts in a pause of random length, so the room's pointer-ups are spread out.
    this.states = drawers.map((drawer) => ({
      drawer,
      drawing: false,
      phaseEndsAt: now + options.random() * cycle,
      strokeStartedAt: 0,
      current: null,
      liveInkSentPoints: 0,
      lastLiveInkAt: 0,
      queue: [],
      sending: false,
      retryTimer: undefined,
    }));
  }

  start(): void {
    this.timer = setInterval(() => this.tick(), SCHEDULER_TICK_MS);
  }

  /** No new strokes; queued ones are dropped, answers still arriving are still counted. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    for (const state of this.states) {
      clearTimeout(state.retryTimer);
      state.queue.length = 0;
    }
  }

  /** Room events of the drawers' rooms (the generator forwards every one). */
  onRoomEvent(receiver: Drawer, event: RoomEvent): void {
    if (event.kind !== 'element.created') return;
    this.accounting.onCreated(event.payload.element.id, receiver.local, this.options.clock());
  }

  /** Any other server message a receiver got: live-ink chunks, when the wire finds some in it. */
  onServerMessage(event: string, payload: unknown): void {
    const wire = this.options.liveInk;
    if (!wire) return;
    const at = this.options.clock();
    for (const chunk of wire.chunksIn(event, payload)) this.accounting.onLiveInkReceived(chunk.strokeId, chunk.pointCount, at);
  }

  private tick(): void {
    const now = this.options.clock();
    for (const state of this.states) {
      if (state.drawing) this.maybeSendLiveInk(state, now);
      if (now < state.phaseEndsAt) continue;
      if (state.drawing) {
        this.pointerUp(state, now);
        state.drawing = false;
        state.phaseEndsAt = now + between(PAUSE_MS, this.options.random);
      } else {
        const strokeMs = between(STROKE_MS, this.options.random);
        state.drawing = true;
        state.strokeStartedAt = now;
        state.current = penStrokeRequest(strokeMs, this.options.random);
        state.liveInkSentPoints = 0;
        state.lastLiveInkAt = now;
        state.phaseEndsAt = now + strokeMs;
      }
    }
  }

  private pointerUp(state: DrawerState, now: number): void {
    const request = state.current;
    state.current = null;
    if (!request) return;
    const points = penPoints(request).length;
    this.accounting.onPointerUp(request.id, state.drawer.local, now, Buffer.byteLength(JSON.stringify(request)), points);
    state.queue.push({ strokeId: request.id, request, attempts: 0 });
    this.pump(state);
  }

  /** The web client's edit queue: one acknowledged request in flight per member. */
  private pump(state: DrawerState): void {
    if (this.stopped || state.sending) return;
    const head = state.queue[0];
    const socket = state.drawer.socket;
    if (!head || !socket || !state.drawer.live) return;
    state.sending = true;
    head.attempts += 1;
    this.accounting.onSend(head.strokeId, head.attempts);
    let settled = false;
    const settle = (answer: CreateAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      this.accounting.onAnswer(head.strokeId, answer, this.options.clock());
      state.sending = false;
      if (answer.kind === 'ok' || answer.kind === 'refused') {
        if (state.queue[0] === head) state.queue.shift();
        this.pump(state);
      } else {
        // Not delivered, unavailable or rate limited: the same request again after a pause.
        state.retryTimer = setTimeout(() => this.pump(state), RETRY_MS);
      }
    };
    // A reply after the timeout is ignored, as socket.io-client's `timeout()` does for the web client.
    const timer = setTimeout(() => settle({ kind: 'timeout' }), REPLY_TIMEOUT_MS);
    socket.emit(ClientEvent.ELEMENT_CREATE, head.request, (payload) => {
      const reply = payload as Ack<ElementReply>;
      if (reply.ok) settle({ kind: 'ok' });
      else settle(FINAL_REFUSALS.has(reply.error.code) ? { kind: 'refused', code: reply.error.code } : { kind: 'error', code: reply.error.code });
    });
  }

  /** The plug for live ink: the points drawn so far go out in chunks of at most 30 a second. */
  private maybeSendLiveInk(state: DrawerState, now: number): void {
    const wire = this.options.liveInk;
    const socket = state.drawer.socket;
    const stroke = state.current;
    if (!wire || !socket || !stroke || now - state.lastLiveInkAt < LIVE_INK_INTERVAL_MS) return;
    const points = penPoints(stroke);
    const drawnShare = Math.min(1, (now - state.strokeStartedAt) / Math.max(1, state.phaseEndsAt - state.strokeStartedAt));
    const pointCount = Math.round(drawnShare * points.length);
    if (pointCount <= state.liveInkSentPoints) return;
    state.lastLiveInkAt = now;
    const shape = stroke.shape;
    if (shape.kind !== 'pen') return;
    const inkStroke: InkStroke = { id: stroke.id, x: shape.x, y: shape.y, stroke: shape.stroke, strokeWidth: shape.strokeWidth };
    if (wire.send(socket, inkStroke, points.slice(state.liveInkSentPoints, pointCount), pointCount)) this.accounting.onLiveInkSent(stroke.id, pointCount, now);
    state.liveInkSentPoints = pointCount;
  }
}
