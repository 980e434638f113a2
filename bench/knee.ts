/**
 * The knee of an upward sweep: the largest load (rooms) at which the server still meets a rule,
 * with every smaller point measured meeting it too. Pure, shared by the cursor capacity sweep and
 * the drawing class, and tested on its own (test/benchKnee.test.ts).
 *
 * A point is measured in one or more windows. It passes when at least `windowsNeeded` of its
 * windows pass (default: all of them; never more than it has). The sweep goes upward, so the first
 * failing point ends the search: a pass above it (a lucky window on a noisy machine) does not
 * raise the knee.
 */

export interface WindowVerdict {
  rooms: number;
  pass: boolean;
}

export interface PointVerdict {
  rooms: number;
  windows: number;
  passed: number;
  pass: boolean;
}

export interface Knee {
  /** The largest passing point below the first failing one; 0 when the first point failed. */
  rooms: number;
  /** The first failing point, or null when every point measured passed. */
  firstFailing: number | null;
  points: PointVerdict[];
}

/** Groups windows by point (rooms ascending) and judges each point. */
export function pointVerdicts(windows: readonly WindowVerdict[], windowsNeeded = Number.POSITIVE_INFINITY): PointVerdict[] {
  const byRooms = new Map<number, { windows: number; passed: number }>();
  for (const w of windows) {
    const point = byRooms.get(w.rooms) ?? { windows: 0, passed: 0 };
    point.windows += 1;
    if (w.pass) point.passed += 1;
    byRooms.set(w.rooms, point);
  }
  return [...byRooms]
    .sort(([a], [b]) => a - b)
    .map(([rooms, { windows: count, passed }]) => ({ rooms, windows: count, passed, pass: pointPasses(passed, count, windowsNeeded) }));
}

/** At least `windowsNeeded` of `windows` passed (all of them when it asks for more than there are). */
export function pointPasses(passed: number, windows: number, windowsNeeded = Number.POSITIVE_INFINITY): boolean {
  if (windows === 0) return false;
  return passed >= Math.min(windows, Math.max(1, windowsNeeded));
}

export function kneeOf(windows: readonly WindowVerdict[], windowsNeeded = Number.POSITIVE_INFINITY): Knee {
  const points = pointVerdicts(windows, windowsNeeded);
  let rooms = 0;
  for (const point of points) {
    if (!point.pass) return { rooms, firstFailing: point.rooms, points };
    rooms = point.rooms;
  }
  return { rooms, firstFailing: null, points };
}
