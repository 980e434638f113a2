/**
 * Per-window accounting of a drawing class, on the generator thread that owns the rooms (one clock
 * for pointer-ups and arrivals). Pure: the workload (drawingWorkload.ts) feeds it what happened.
 *
 * A stroke counts when its pointer-up falls in the window. Its latency is measured from the
 * pointer-up, not from the send: a stroke that waits in its author's queue behind an earlier one
 * (the web client sends one edit at a time) waits in the figure too, as it does on the screens.
 * For every other member of the room the latency is pointer-up to that member's `element.created`
 * room event. A (stroke, receiver) pair still missing when the run ends is counted at the time the
 * run ended (a lower bound on a latency that never finished), so a stuck stroke cannot shorten the
 * tail by leaving it. Strokes the server refused for good are not expected anywhere; they are
 * counted apart (and fail the window).
 *
 * Live ink (issue 19 item 1, not in the protocol yet): chunks of a stroke in progress, keyed by
 * the stroke's point count after the chunk, measured from their send to each receiver's arrival.
 */
import { LatencyHistogram, type SparseHistogram } from './latencyHistogram.ts';

/** How a stroke's `element.create` was answered, as the web client tells them apart. */
export type CreateAnswer =
  | { kind: 'ok' }
  /** Refused for good (the client drops the edit and tells the user). */
  | { kind: 'refused'; code: string }
  /** Answered with a retryable error (unavailable, rate_limited, ...): sent again after a pause. */
  | { kind: 'error'; code: string }
  /** No answer within the client's reply timeout: sent again after a pause. */
  | { kind: 'timeout' };

interface StrokeRecord {
  pointerUpAt: number;
  author: number;
  /** Members (by index in the room) that should see it: everyone but its author. */
  waitingFor: number;
  answered: boolean;
  refused: boolean;
}

export interface StrokeCounts {
  /** In-window pointer-ups. */
  drawn: number;
  payloadBytes: number;
  points: number;
  maxPayloadBytes: number;
  /** In-window strokes the server acknowledged (applied or already applied). */
  acked: number;
  refused: Record<string, number>;
  /** Retryable error answers to in-window strokes' sends, by code. */
  errors: Record<string, number>;
  /** Sends of in-window strokes the client gave up waiting for. */
  timeouts: number;
  /** Sends after the first (retries of in-window strokes). */
  retries: number;
  /** Acknowledgements of any stroke that arrived during the window (the server's work rate). */
  acksInWindow: number;
  /** (stroke, receiver) pairs of acknowledged-or-pending in-window strokes. */
  expected: number;
  delivered: number;
  /** Pairs never delivered by the end (counted in the latency at the end time). */
  missingAtEnd: number;
  /** In-window strokes whose author never got an answer by the end. */
  unansweredAtEnd: number;
  duplicates: number;
  liveInkChunksSent: number;
  liveInkChunksReceived: number;
}

export interface StrokeSummaryHistograms {
  stroke: SparseHistogram;
  ack: SparseHistogram;
  liveInk: SparseHistogram;
}

export class StrokeAccounting {
  /** Pointer-up to each other member's `element.created`. */
  readonly latency = new LatencyHistogram();
  /** Pointer-up to the author's acknowledgement (queue wait, retries and the round trip). */
  readonly ackLatency = new LatencyHistogram();
  /** A live-ink chunk's send to each receiver's arrival. */
  readonly liveInkLatency = new LatencyHistogram();
  readonly counts: StrokeCounts = {
    drawn: 0,
    payloadBytes: 0,
    points: 0,
    maxPayloadBytes: 0,
    acked: 0,
    refused: {},
    errors: {},
    timeouts: 0,
    retries: 0,
    acksInWindow: 0,
    expected: 0,
    delivered: 0,
    missingAtEnd: 0,
    unansweredAtEnd: 0,
    duplicates: 0,
    liveInkChunksSent: 0,
    liveInkChunksReceived: 0,
  };
  windowStart = Number.POSITIVE_INFINITY;
  windowEnd = Number.POSITIVE_INFINITY;
  /** In-window strokes not settled yet (answered, and seen by every other member). */
  private readonly strokes = new Map<string, StrokeRecord>();
  /** Every in-window stroke's author and the members that got it (bit `local`, a bit per member: the lecture hall's 151 too). */
  private readonly seenBy = new Map<string, { author: number; members: Uint32Array }>();
  private readonly liveInkSent = new Map<string, number>();

  constructor(private readonly membersPerRoom: number) {
  }

  inWindow(at: number): boolean {
    return at >= this.windowStart && at < this.windowEnd;
  }

  /** A pointer-up: the stroke joins its author's send queue now. Out-of-window strokes are not followed. */
  onPointerUp(strokeId: string, authorLocal: number, at: number, payloadBytes: number, points: number): void {
    if (!this.inWindow(at)) return;
    this.counts.drawn += 1;
    this.counts.payloadBytes += payloadBytes;
    this.counts.points += points;
    this.counts.maxPayloadBytes = Math.max(this.counts.maxPayloadBytes, payloadBytes);
    this.strokes.set(strokeId, { pointerUpAt: at, author: authorLocal, waitingFor: this.membersPerRoom - 1, answered: false, refused: false });
    this.seenBy.set(strokeId, { author: authorLocal, members: new Uint32Array(Math.ceil(this.membersPerRoom / 32)) });
    this.counts.expected += this.membersPerRoom - 1;
  }

  onSend(strokeId: string, attempt: number): void {
    if (attempt > 1 && this.strokes.has(strokeId)) this.counts.retries += 1;
  }

  onAnswer(strokeId: string, answer: CreateAnswer, at: number): void {
    if (answer.kind === 'ok' && this.inWindow(at)) this.counts.acksInWindow += 1;
    const stroke = this.strokes.get(strokeId);
    if (!stroke || stroke.answered) return;
    switch (answer.kind) {
      case 'ok':
        stroke.answered = true;
        this.counts.acked += 1;
        this.ackLatency.record(at - stroke.pointerUpAt);
        break;
      case 'refused':
        stroke.answered = true;
        stroke.refused = true;
        this.counts.refused[answer.code] = (this.counts.refused[answer.code] ?? 0) + 1;
        // Nobody will see it: its pairs leave the expected count (the refusal is the failure).
        this.counts.expected -= stroke.waitingFor;
        stroke.waitingFor = 0;
        break;
      case 'error':
        this.counts.errors[answer.code] = (this.counts.errors[answer.code] ?? 0) + 1;
        break;
      case 'timeout':
        this.counts.timeouts += 1;
        break;
    }
    this.forgetIfDone(strokeId, stroke);
  }

  /** A member's `element.created` for a stroke (its author's own copy is ignored). */
  onCreated(strokeId: string, receiverLocal: number, at: number): void {
    const seen = this.seenBy.get(strokeId);
    if (!seen || receiverLocal === seen.author) return;
    const word = receiverLocal >>> 5;
    const bit = 1 << (receiverLocal & 31);
    if (word >= seen.members.length) return;
    if (((seen.members[word] ?? 0) & bit) !== 0) {
      this.counts.duplicates += 1;
      return;
    }
    seen.members[word] = (seen.members[word] ?? 0) | bit;
    const stroke = this.strokes.get(strokeId);
    // Settled already (every member had it) or refused: nothing more to measure.
    if (!stroke || stroke.refused) return;
    stroke.waitingFor -= 1;
    this.counts.delivered += 1;
    this.latency.record(at - stroke.pointerUpAt);
    this.forgetIfDone(strokeId, stroke);
  }

  /** Every in-window stroke answered and seen by everyone: the drain can stop. */
  settled(): boolean {
    return this.strokes.size === 0;
  }

  /** In-window (stroke, receiver) pairs not delivered yet. */
  outstandingPairs(): number {
    let pairs = 0;
    for (const stroke of this.strokes.values()) pairs += stroke.waitingFor;
    return pairs;
  }

  /** Ends the run at `at`: pairs still missing are counted, and recorded at the time they waited. */
  finish(at: number): StrokeCounts {
    for (const stroke of this.strokes.values()) {
      for (let i = 0; i < stroke.waitingFor; i++) this.latency.record(at - stroke.pointerUpAt);
      this.counts.missingAtEnd += stroke.waitingFor;
      if (!stroke.answered) this.counts.unansweredAtEnd += 1;
    }
    this.strokes.clear();
    return this.counts;
  }

  histograms(): StrokeSummaryHistograms {
    return { stroke: this.latency.toSparse(), ack: this.ackLatency.toSparse(), liveInk: this.liveInkLatency.toSparse() };
  }

  // ---------------------------------------------------------------------------------------------
  // Live ink

  onLiveInkSent(strokeId: string, pointCount: number, at: number): void {
    if (!this.inWindow(at)) return;
    this.counts.liveInkChunksSent += 1;
    this.liveInkSent.set(`${strokeId}:${pointCount}`, at);
  }

  onLiveInkReceived(strokeId: string, pointCount: number, at: number): void {
    const sentAt = this.liveInkSent.get(`${strokeId}:${pointCount}`);
    if (sentAt === undefined) return;
    this.counts.liveInkChunksReceived += 1;
    this.liveInkLatency.record(at - sentAt);
  }

  private forgetIfDone(strokeId: string, stroke: StrokeRecord): void {
    if (stroke.answered && stroke.waitingFor <= 0) this.strokes.delete(strokeId);
  }
}

/** Adds records of counts by key (codes, decisions). */
export function addRecords(records: ReadonlyArray<Record<string, number>>): Record<string, number> {
  const total: Record<string, number> = {};
  for (const record of records) for (const [key, n] of Object.entries(record)) total[key] = (total[key] ?? 0) + n;
  return total;
}

/** Two threads' counts as one (the max payload is the larger one). */
export function addStrokeCounts(a: StrokeCounts, b: StrokeCounts): StrokeCounts {
  return {
    drawn: a.drawn + b.drawn,
    payloadBytes: a.payloadBytes + b.payloadBytes,
    points: a.points + b.points,
    maxPayloadBytes: Math.max(a.maxPayloadBytes, b.maxPayloadBytes),
    acked: a.acked + b.acked,
    refused: addRecords([a.refused, b.refused]),
    errors: addRecords([a.errors, b.errors]),
    timeouts: a.timeouts + b.timeouts,
    retries: a.retries + b.retries,
    acksInWindow: a.acksInWindow + b.acksInWindow,
    expected: a.expected + b.expected,
    delivered: a.delivered + b.delivered,
    missingAtEnd: a.missingAtEnd + b.missingAtEnd,
    unansweredAtEnd: a.unansweredAtEnd + b.unansweredAtEnd,
    duplicates: a.duplicates + b.duplicates,
    liveInkChunksSent: a.liveInkChunksSent + b.liveInkChunksSent,
    liveInkChunksReceived: a.liveInkChunksReceived + b.liveInkChunksReceived,
  };
}
