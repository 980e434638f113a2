/**
 * A pen stroke as the web client sends it at pointer-up (apps/web/src/elements/penStroke.ts):
 * `element.create` with a new element id and a `pen` shape anchored at the first sample, its points
 * relative to the anchor as `[dx, dy, pressure]` rounded to 0.01, after simplification. A mouse
 * reports pressure 0.5 throughout. Pure: the randomness comes in as a function, so a test can fix it.
 *
 * Size: a stroke of 0.3-1.2 s keeps about 87 points per second after simplification (about 65 for
 * the mean 0.75 s stroke), about 1.4 KB as JSON, which is what the issue measured the client send.
 */
import { randomUUID } from 'node:crypto';
import { MAX_PEN_POINTS, type CreateElementRequest } from '@wb/protocol';

/** Points kept per second of drawing, after the client's simplification. */
export const STROKE_POINTS_PER_SECOND = 87;
/** The board area strokes start in (the web board is 3,000 x 2,000 units). */
const BOARD = { width: 3_000, height: 2_000 };
/** How far one sample moves on average, in board units (handwriting at the default zoom). */
const STEP_UNITS = 3.2;
const COLOURS = ['#1f2937', '#2563eb', '#dc2626', '#16a34a'] as const;

const round2 = (v: number) => Math.round(v * 100) / 100;

export function strokePointCount(durationMs: number): number {
  return Math.max(2, Math.min(MAX_PEN_POINTS, Math.round((durationMs / 1000) * STROKE_POINTS_PER_SECOND)));
}

/**
 * The points of a stroke drawn for `durationMs`: a smooth wandering line (the heading turns a
 * little at each sample), relative to its first point, as the client keeps them.
 */
export function strokePoints(durationMs: number, random: () => number): Array<[number, number, number]> {
  const count = strokePointCount(durationMs);
  const points: Array<[number, number, number]> = [[0, 0, 0.5]];
  let x = 0;
  let y = 0;
  let heading = random() * 2 * Math.PI;
  for (let i = 1; i < count; i++) {
    heading += (random() - 0.5) * 0.6;
    const step = STEP_UNITS * (0.5 + random());
    x += Math.cos(heading) * step;
    y += Math.sin(heading) * step;
    points.push([round2(x), round2(y), 0.5]);
  }
  return points;
}

/** The whole `element.create` request for a stroke; ids are fresh unless given. */
export function penStrokeRequest(
  durationMs: number,
  random: () => number,
  ids: { requestId: string; id: string } = { requestId: randomRequestId(random), id: randomUUID() },
): CreateElementRequest {
  return {
    requestId: ids.requestId,
    id: ids.id,
    shape: {
      kind: 'pen',
      x: round2(200 + random() * (BOARD.width - 400)),
      y: round2(200 + random() * (BOARD.height - 400)),
      points: strokePoints(durationMs, random),
      stroke: COLOURS[Math.floor(random() * COLOURS.length)] ?? COLOURS[0],
      strokeWidth: 4,
    },
  };
}

/** 22 base64url characters, the length of the web client's `randomId()` (16 random bytes). */
function randomRequestId(random: () => number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let id = '';
  for (let i = 0; i < 22; i++) id += alphabet[Math.floor(random() * alphabet.length)] ?? 'A';
  return id;
}

/** A small seeded generator (mulberry32) for tests and repeatable shapes. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
