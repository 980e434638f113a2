import { describe, expect, test } from 'vitest';
import { kneeOf, pointPasses } from '../bench/knee.ts';

/** The knee of an upward sweep (capacity and drawing class): a table of windows, the knee expected. */
const windows = (...points: Array<[rooms: number, ...passes: boolean[]]>) => points.flatMap(([rooms, ...passes]) => passes.map((pass) => ({ rooms, pass })));

describe('knee finder', () => {
  test.each([
    ['every point passes', windows([1, true, true], [2, true, true], [4, true, true]), 4, null],
    ['the first point fails', windows([1, false, true], [2, true, true]), 0, 1],
    ['one failing window fails its point', windows([1, true, true], [2, true, false], [4, true, true]), 1, 2],
    ['a pass above the first failure does not raise the knee', windows([1, true], [2, true], [3, false], [4, true]), 2, 3],
    ['points come in any order', windows([8, false], [2, true], [4, true]), 4, 8],
    ['nothing measured', [], 0, null],
  ] as const)('%s', (_name, input, rooms, firstFailing) => {
    const knee = kneeOf(input);
    expect(knee.rooms).toBe(rooms);
    expect(knee.firstFailing).toBe(firstFailing);
  });

  test('with windows needed (4 of 5), a point passes with one failing window, not with two', () => {
    const sweep = windows([12, true, true, true, true, true], [16, true, false, true, true, true], [20, true, false, false, true, true]);
    expect(kneeOf(sweep, 4).rooms).toBe(16);
    expect(kneeOf(sweep, 4).firstFailing).toBe(20);
    expect(kneeOf(sweep).rooms).toBe(12);
    const at16 = kneeOf(sweep, 4).points.find((p) => p.rooms === 16);
    expect(at16).toEqual({ rooms: 16, windows: 5, passed: 4, pass: true });
  });

  test('asking for more windows than a point has asks for all of them; a point with none fails', () => {
    expect(pointPasses(2, 2, 4)).toBe(true);
    expect(pointPasses(1, 2, 4)).toBe(false);
    expect(pointPasses(0, 0)).toBe(false);
    expect(pointPasses(1, 2, 0)).toBe(true);
  });
});
