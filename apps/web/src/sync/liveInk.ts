import { MAX_LIVE_INK_POINTS, type InkEnd, type InkEntry, type InkPoint } from '@wb/protocol';

/**
 * Other people's strokes while they are drawn (live ink, docs/protocol.md "Live ink"). Pure: no
 * React, no socket, no timers; time comes in as `now`. The sync engine feeds it and asks it to
 * forget; the board draws what `strokes` holds.
 *
 * Rules (named in liveInk.test.ts):
 * - LI1 A stroke grows by the points past what it holds (a missed packet leaves a straight
 *   segment; an overlap is not drawn twice), bounded by MAX_LIVE_INK_POINTS (I10).
 * - LI2 Replaced by its durable element: when the element with the stroke's id arrives the live
 *   stroke goes, and a late entry for it (ink still in flight) never brings it back (I1).
 * - LI3 Gone with its drawer: when the drawer's presence ends or its socket closes, its strokes go.
 * - LI4 Abandoned strokes time out: no new point for DRAWING_TIMEOUT_MS while drawn, or no element
 *   ENDED_TIMEOUT_MS after pointer-up (a refused or lost create); a cancelled one goes at once.
 * - LI5 Bounded: at most MAX_LIVE_STROKES at once, the stalest dropped first (I10).
 */

/** A stroke with no new point for this long while drawn was abandoned (ms). */
export const DRAWING_TIMEOUT_MS = 10_000;
/** After pointer-up its element should follow; past this it was refused or lost (ms). */
export const ENDED_TIMEOUT_MS = 15_000;
/** Live strokes held at most (31 drawers, each with a stroke or two awaiting its element). */
export const MAX_LIVE_STROKES = 128;
/** Ended stroke ids remembered so a late entry cannot revive one (I10: bounded). */
const REMEMBERED_ENDED = 1_024;

/** One live stroke: absolute board points, its drawer and style. Immutable: a change makes a new one. */
export interface LiveStroke {
  readonly strokeId: string;
  readonly sessionId: string;
  readonly userId: string;
  readonly stroke: string;
  readonly strokeWidth: number;
  readonly points: readonly InkPoint[];
  /** `up` once the drawer lifted the pen (its element follows); null while drawn. */
  readonly end: Exclude<InkEnd, 'cancel'> | null;
  /** Local receive time of its last entry (ms): timeouts only (I2). */
  readonly lastAt: number;
}

export class LiveInk {
  private readonly live = new Map<string, LiveStroke>();
  /** Strokes that ended (element arrived, cancelled, dropped): insertion-ordered, oldest evicted. */
  private readonly ended = new Set<string>();

  /** The strokes to draw, by stroke id. */
  get strokes(): ReadonlyMap<string, LiveStroke> {
    return this.live;
  }

  /** An entry from a cursor batch, of a drawer with a connected presence. Returns whether anything changed. */
  receive(entry: InkEntry, userId: string, now: number): boolean {
    if (this.ended.has(entry.strokeId)) return false;
    if (entry.end === 'cancel') return this.finish(entry.strokeId);
    const current = this.live.get(entry.strokeId);
    // LI2: a stroke id is one drawer's; another session's entry for it is not this stroke.
    if (current && current.sessionId !== entry.sessionId) return false;
    const held = current?.points.length ?? 0;
    // LI1: only the points past those held (an overlap is not drawn twice), within the bound.
    const skip = Math.max(0, held - entry.from);
    const room = MAX_LIVE_INK_POINTS - held;
    const added = entry.points.slice(skip, skip + Math.max(0, room));
    const end = entry.end === 'up' ? 'up' : (current?.end ?? null);
    if (current && added.length === 0 && end === current.end) return false;
    this.live.delete(entry.strokeId); // re-inserted last: the stalest stay first for LI5
    this.live.set(entry.strokeId, {
      strokeId: entry.strokeId,
      sessionId: entry.sessionId,
      userId,
      stroke: entry.stroke,
      strokeWidth: entry.strokeWidth,
      points: added.length === 0 && current ? current.points : [...(current?.points ?? []), ...added],
      end,
      lastAt: now,
    });
    // Not an LRU library: past the bound the stalest stroke is finished (its listeners told), not just dropped.
    while (this.live.size > MAX_LIVE_STROKES) {
      const stalest = this.live.keys().next();
      if (stalest.done) break;
      this.finish(stalest.value);
    }
    return true;
  }

  /** LI2: the stroke's element arrived (or it was deleted, or cancelled): it ends for good. */
  finish(strokeId: string): boolean {
    this.ended.add(strokeId);
    if (this.ended.size > REMEMBERED_ENDED) {
      const oldest = this.ended.values().next();
      if (!oldest.done) this.ended.delete(oldest.value);
    }
    return this.live.delete(strokeId);
  }

  /** Whether a stroke has ended (its element arrived, or it was cancelled or dropped). */
  hasEnded(strokeId: string): boolean {
    return this.ended.has(strokeId);
  }

  /** LI3: a drawer's presence ended or its socket closed. */
  dropSession(sessionId: string): boolean {
    let changed = false;
    for (const stroke of this.live.values()) if (stroke.sessionId === sessionId) changed = this.finish(stroke.strokeId) || changed;
    return changed;
  }

  /** Ends every stroke `keep` refuses (a board lock ends students' strokes; a snapshot, those it settles). */
  dropWhere(drop: (stroke: LiveStroke) => boolean): boolean {
    let changed = false;
    for (const stroke of this.live.values()) if (drop(stroke)) changed = this.finish(stroke.strokeId) || changed;
    return changed;
  }

  /** LI4: strokes abandoned mid-air or whose element never came. */
  expire(now: number): boolean {
    return this.dropWhere((s) => now - s.lastAt >= (s.end === 'up' ? ENDED_TIMEOUT_MS : DRAWING_TIMEOUT_MS));
  }

  /** The connection closed: nothing live survives it (like cursors); ended ids are still remembered. */
  clear(): boolean {
    if (this.live.size === 0) return false;
    this.live.clear();
    return true;
  }
}
