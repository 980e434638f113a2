import { INK_SYNC_MS, MAX_INK_POINTS_PER_PACKET, MAX_LIVE_INK_POINTS, type InkEnd, type InkPoint, type InkUpdate } from '@wb/protocol';
import { clampCoordinate } from './geometry.ts';
import type { PenSample } from './penStroke.ts';

/** What the sender needs from outside: the socket (volatile) and a timer. */
export interface InkPorts {
  send(update: InkUpdate): void;
  now(): number;
  /** Runs `fn` after `ms`; returns its cancel. */
  later(fn: () => void, ms: number): () => void;
}

interface Stroke {
  readonly strokeId: string;
  readonly stroke: string;
  readonly strokeWidth: number;
  /** Points sent so far (the next packet's `from`). */
  sent: number;
  pending: InkPoint[];
  lastSentAt: number;
  cancelTimer: (() => void) | null;
}

/**
 * The drawer's side of live ink: the samples of the stroke being drawn go out as `ink` packets of
 * the points since the last one, at most every INK_SYNC_MS (30 Hz, like cursors), each at most
 * MAX_INK_POINTS_PER_PACKET points, MAX_LIVE_INK_POINTS per stroke. Pointer-up sends what is
 * left with `end: "up"` at once, before the stroke's `element.create` (same id) leaves the
 * edit queue; a cancelled stroke sends `end: "cancel"`. Packets are volatile: a dropped one
 * leaves a straight segment on the others' screens until the durable stroke replaces it.
 */
export class InkSender {
  private current: Stroke | null = null;

  constructor(private readonly ports: InkPorts) {}

  /** Pointer-down with the pen: a stroke of id `strokeId` starts at `first`. */
  begin(strokeId: string, style: { stroke: string; strokeWidth: number }, first: PenSample): void {
    this.end('cancel');
    this.current = { strokeId, stroke: style.stroke, strokeWidth: style.strokeWidth, sent: 0, pending: [], lastSentAt: -Infinity, cancelTimer: null };
    this.add([first]);
  }

  /** More samples of the stroke being drawn. */
  add(samples: readonly PenSample[]): void {
    const s = this.current;
    if (!s) return;
    const room = MAX_LIVE_INK_POINTS - s.sent - s.pending.length;
    for (const sample of samples.slice(0, Math.max(0, room))) s.pending.push(inkPoint(sample));
    if (s.pending.length === 0 || s.cancelTimer) return;
    const wait = s.lastSentAt + INK_SYNC_MS - this.ports.now();
    if (wait <= 0) this.flush();
    else
      s.cancelTimer = this.ports.later(() => {
        s.cancelTimer = null;
        if (this.current === s) this.flush();
      }, wait);
  }

  /** Pointer-up (`up`: its element follows) or a cancelled stroke: the rest goes now, with the end. */
  end(end: InkEnd): void {
    const s = this.current;
    if (!s) return;
    this.current = null;
    s.cancelTimer?.();
    this.send(s, end);
  }

  /** The stroke being drawn, if any. */
  get strokeId(): string | null {
    return this.current?.strokeId ?? null;
  }

  private flush(): void {
    const s = this.current;
    if (s) this.send(s, undefined);
  }

  private send(s: Stroke, end: InkEnd | undefined): void {
    s.lastSentAt = this.ports.now();
    do {
      const points = s.pending.splice(0, MAX_INK_POINTS_PER_PACKET);
      const last = s.pending.length === 0;
      const update: InkUpdate = { strokeId: s.strokeId, from: s.sent, points, stroke: s.stroke, strokeWidth: s.strokeWidth };
      if (last && end) update.end = end;
      if (points.length > 0 || update.end) this.ports.send(update);
      s.sent += points.length;
    } while (s.pending.length > 0);
  }
}

/** A sample as a wire point: board units to 0.01 (as the durable stroke keeps them), pressure 0..1. */
function inkPoint(sample: PenSample): InkPoint {
  return [clampCoordinate(sample.x), clampCoordinate(sample.y), Math.round(Math.max(0, Math.min(1, sample.pressure)) * 100) / 100];
}
