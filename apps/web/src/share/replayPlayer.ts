import type { Element, ReplayStep } from '@wb/protocol';

/**
 * Replay of a board as it was built, as pure code (no React, no timers): which steps are shown at
 * a position, and how far playback moves in a stretch of wall time. The page (ReplayPlayer.tsx)
 * drives it from animation frames and draws its elements with the board's element renderer.
 *
 * Rules (named in replayPlayer.test.ts):
 * - RP1 The board at position p is every element at the newest version among the first p steps,
 *   deleted ones left out (`replayBoard` in the protocol); position N is the board's final state.
 * - RP2 Seeking forward applies only the steps in between; seeking back rebuilds from the start.
 *   Either way the board equals RP1's at that position.
 * - RP3 Playback at speed s shows step i+1 (at[i+1] - at[i]) / s after step i, an idle stretch
 *   counting as at most MAX_IDLE_MS: a lesson's pauses do not stall its replay.
 * - RP4 An element keeps its object while its version does not change, so the renderer redraws
 *   only what a step changed.
 */

export const REPLAY_SPEEDS = [1, 4, 16] as const;
export type ReplaySpeed = (typeof REPLAY_SPEEDS)[number];

/** The longest a pause in the lesson plays for at 1× (ms). */
export const MAX_IDLE_MS = 2_000;

/** A replay draws no person: every element is "nobody's" (the renderer needs an author to exist). */
export const NOBODY = '00000000-0000-4000-8000-000000000000';

/** Wall time (ms) between showing step `index - 1` and step `index` at `speed` (RP3). */
export function delayBefore(steps: readonly ReplayStep[], index: number, speed: number): number {
  if (index <= 0 || index >= steps.length) return 0;
  const gap = Math.max(0, steps[index]!.at - steps[index - 1]!.at);
  return Math.min(gap, MAX_IDLE_MS) / speed;
}

/** Where playback is: `position` steps shown, `owedMs` of wall time already spent toward the next. */
export interface Playhead {
  readonly position: number;
  readonly owedMs: number;
}

/** Playback after `elapsedMs` more of wall time at `speed` (RP3). Stops at the end. */
export function advance(steps: readonly ReplayStep[], from: Playhead, elapsedMs: number, speed: number): Playhead {
  let position = from.position;
  let budget = from.owedMs + Math.max(0, elapsedMs);
  while (position < steps.length) {
    const delay = delayBefore(steps, position, speed);
    if (delay > budget) break;
    budget -= delay;
    position++;
  }
  return { position, owedMs: position < steps.length ? budget : 0 };
}

/** Lesson time (ms) from the first step to the last one shown at `position`. */
export function lessonTimeAt(steps: readonly ReplayStep[], position: number): number {
  if (position <= 0 || steps.length === 0) return 0;
  return steps[Math.min(position, steps.length) - 1]!.at - steps[0]!.at;
}

/** "m:ss" (or "h:mm:ss") of a duration in ms. */
export function clockText(ms: number): string {
  const total = Math.floor(Math.max(0, ms) / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** A step as an element the renderer draws (RP4: one object per element version). */
function elementOf(step: ReplayStep): Element {
  return { id: step.id, shape: step.shape, version: step.version, pinned: false, createdBy: NOBODY, updatedBy: NOBODY, z: step.z, lock: null };
}

/** The board at a position of a replay, moved step by step (RP1, RP2). Steps may grow as pages arrive. */
export class ReplayBoard {
  private steps: readonly ReplayStep[] = [];
  private applied = 0;
  /** Each element's newest step so far, deleted or not. */
  private latest = new Map<string, { step: ReplayStep; element: Element }>();
  private shown: ReadonlyMap<string, Element> = new Map();

  /** The history so far (a later page only appends). */
  setSteps(steps: readonly ReplayStep[]): void {
    this.steps = steps;
  }

  get position(): number {
    return this.applied;
  }

  /** The live elements after the first `position` steps. */
  seek(position: number): ReadonlyMap<string, Element> {
    const target = Math.max(0, Math.min(position, this.steps.length));
    if (target === this.applied) return this.shown;
    if (target < this.applied) {
      this.latest = new Map();
      this.applied = 0;
    }
    for (let i = this.applied; i < target; i++) {
      const step = this.steps[i]!;
      const seen = this.latest.get(step.id);
      if (!seen || step.version > seen.step.version) this.latest.set(step.id, { step, element: elementOf(step) });
    }
    this.applied = target;
    const shown = new Map<string, Element>();
    for (const [id, { step, element }] of this.latest) if (!step.deleted) shown.set(id, element);
    this.shown = shown;
    return shown;
  }
}
