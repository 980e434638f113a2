/**
 * The lecture hall (issue 42): one lesson of 1 teacher and 150 students. The teacher and 30
 * students draw with live ink (drawingWorkload.ts, the drawing class's pace), every member moves
 * a cursor at the drawing class's rate, and the lesson shows students only the teacher's cursor
 * (a new lesson's default). Measured as the room grows, 31, 75 and 151 members in the same lesson
 * (members join before the first point at the server's 60 joins a minute a lesson, and stay):
 * stroke and live-ink p99 (target 150 ms) and the server's CPU per member, which must stay flat
 * as the room grows (cost linear in members, not their square).
 */
import { measureDrawingWindow, type DrawingOptions, type DrawingTiming, type DrawingWindow } from './drawingClass.ts';
import type { GeneratorHandle } from './generatorHandle.ts';
import type { ServerUnderTest } from './serverUnderTest.ts';

export const LECTURE_PASS = { strokeP99Ms: 150, liveInkP99Ms: 150 } as const;
/** Members of the lecture's points: 1 teacher + 30, 74 and 150 students. */
export const LECTURE_MEMBERS = [31, 75, 151] as const;
/** The teacher and this many students draw at every point (the "30 students drawing at a time"). */
export const LECTURE_DRAWERS = 31;

export interface LecturePoint {
  members: number;
  pass: boolean;
  failedBecause: string[];
  strokeP99Ms: number;
  liveInkP99Ms: number;
  /** Server CPU ms per second of the window, per member. */
  cpuMsPerMemberSecond: number;
  /** ...over the first point's (flat: linear cost). */
  perMemberOverFirst: number;
  window: DrawingWindow;
}

export interface LectureResult {
  passRule: typeof LECTURE_PASS;
  timing: DrawingTiming;
  cursorHz: number;
  points: LecturePoint[];
}

export function lectureFailures(w: Pick<DrawingWindow, 'strokeP99Ms' | 'liveInkP99Ms' | 'failedBecause'>): string[] {
  // The drawing class's rule but for its 100 ms p99: every stroke delivered, nothing timed out, refused or lost.
  const failed = w.failedBecause.filter((reason) => !reason.startsWith('stroke p99'));
  if (!(w.strokeP99Ms <= LECTURE_PASS.strokeP99Ms)) failed.push(`stroke p99 ${w.strokeP99Ms.toFixed(0)} ms`);
  if (!(w.liveInkP99Ms <= LECTURE_PASS.liveInkP99Ms)) failed.push(`live ink p99 ${w.liveInkP99Ms.toFixed(0)} ms`);
  return failed;
}

export async function lectureHall(
  server: ServerUnderTest,
  generator: GeneratorHandle,
  members: readonly number[],
  timing: DrawingTiming,
  cursorHz: number,
  log: (line: string) => void,
): Promise<LectureResult> {
  const options: DrawingOptions = { cursorHz, liveInk: true, overload: false, windowsNeeded: null };
  const points: LecturePoint[] = [];
  const largest = Math.max(...members);
  log(`lecture hall: joining ${largest} members to one lesson (60 joins a minute a lesson)`);
  await generator.call('setup', { rooms: 1 }, 900_000);
  for (const count of members) {
    const window = await measureDrawingWindow({ generator, server, postgres: null, database: 'PGlite', otherLoad: null }, 1, timing, options, 1, 'sweep', {
      room: 0,
      members: count,
      drawers: Math.min(LECTURE_DRAWERS, count),
      visibility: 'teacher',
    });
    const failedBecause = lectureFailures(window);
    const windowS = window.raw.windowMs / 1000;
    const cpuMs = window.serverCores * windowS * 1000;
    const perMember = cpuMs / windowS / count;
    const first = points[0];
    const point: LecturePoint = {
      members: count,
      pass: failedBecause.length === 0,
      failedBecause,
      strokeP99Ms: window.strokeP99Ms,
      liveInkP99Ms: window.liveInkP99Ms,
      cpuMsPerMemberSecond: perMember,
      perMemberOverFirst: first ? perMember / first.cpuMsPerMemberSecond : 1,
      window,
    };
    points.push(point);
    log(
      `lecture ${count} members: ${point.pass ? 'PASS' : 'FAIL'} stroke p99 ${window.strokeP99Ms.toFixed(1)} ms, ink p99 ${window.liveInkP99Ms.toFixed(1)} ms, ` +
        `strokes/s ${window.strokesPerSec.toFixed(1)}, server ${window.serverCores.toFixed(2)} cores, ${perMember.toFixed(2)} ms CPU/s per member (${point.perMemberOverFirst.toFixed(2)}x the first point), ` +
        `${window.serverWritesPerStroke.toFixed(0)} writes/stroke, renewals lost ${window.renewalsLost}/${window.renewalsSent}, load ${window.loadAverage1m.toFixed(2)}` +
        (failedBecause.length ? ` [${failedBecause.join('; ')}]` : ''),
    );
  }
  await generator.call('signOut', { rooms: 1 }).catch(() => undefined);
  return { passRule: LECTURE_PASS, timing, cursorHz, points };
}
