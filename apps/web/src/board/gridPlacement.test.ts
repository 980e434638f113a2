import { describe, expect, test } from 'vitest';
import { GRID_STEP, MIN_GRID_PX, gridPlacement, gridStep, type GridDrawn } from './gridPlacement.ts';
import { screenToBoard, type Viewport } from './viewport.ts';

/** Where dot k of the layer lands on screen (see gridPlacement's comment), in board units. */
function dotOnBoard(drawn: GridDrawn, vp: Viewport, k: number): number {
  const placement = gridPlacement(drawn, vp);
  if (!placement) throw new Error('no placement');
  const screenX = placement.tx + (k + 0.5) * drawn.step * placement.scale;
  return screenToBoard(vp, { x: screenX, y: 0 }).x;
}

/** Whether a board coordinate is on the dot lattice (m + ½) × step, within float error. */
function onLattice(boardX: number, boardStep: number): boolean {
  const r = boardX / boardStep - 0.5;
  return Math.abs(r - Math.round(r)) < 1e-6;
}

describe('grid placement', () => {
  test('at rest the dots sit on the board lattice for any offset, including negative ones', () => {
    for (const vp of [
      { x: 0, y: 0, zoom: 1 },
      { x: -1_037.25, y: 311, zoom: 1 },
      { x: 5_000.5, y: -7, zoom: 1.7 },
    ]) {
      const drawn: GridDrawn = { zoom: vp.zoom, step: gridStep(vp.zoom), pad: 10 * gridStep(vp.zoom) };
      expect(gridPlacement(drawn, vp)?.scale).toBe(1);
      for (const k of [0, 3, 57]) expect(onLattice(dotOnBoard(drawn, vp, k), GRID_STEP)).toBe(true);
    }
  });

  test('mid-zoom the grid drawn for the start is scaled, and its dots stay on the board lattice', () => {
    const drawn: GridDrawn = { zoom: 1, step: gridStep(1), pad: 1_296 };
    for (const vp of [
      { x: 212.4, y: -90, zoom: 1.5 },
      { x: -33, y: 17.75, zoom: 0.6 },
    ]) {
      const placement = gridPlacement(drawn, vp);
      expect(placement?.scale).toBeCloseTo(vp.zoom);
      for (const k of [0, 5, 40]) expect(onLattice(dotOnBoard(drawn, vp, k), GRID_STEP)).toBe(true);
      // The translation is under one scaled step, so the layer's margin still covers the screen.
      expect(placement!.tx).toBeGreaterThanOrEqual(0);
      expect(placement!.tx).toBeLessThan(drawn.step * placement!.scale);
    }
  });

  test('past a twofold zoom change, or when scaled dots would be too dense, the tile is redrawn', () => {
    const drawn: GridDrawn = { zoom: 1, step: 24, pad: 1_296 };
    expect(gridPlacement(drawn, { x: 0, y: 0, zoom: 2.01 })).toBeNull();
    expect(gridPlacement(drawn, { x: 0, y: 0, zoom: 0.499 })).toBeNull();
    // 24 px at 100 % scaled to 0.5 is exactly the thinning limit: still drawn as is.
    expect(gridPlacement(drawn, { x: 0, y: 0, zoom: 0.5 })).not.toBeNull();
    const thin: GridDrawn = { zoom: 0.3, step: gridStep(0.3), pad: 1_296 };
    expect(thin.step).toBeCloseTo(14.4);
    expect(gridPlacement(thin, { x: 0, y: 0, zoom: 0.24 })).toBeNull(); // 14.4 px × 0.8 < 12
  });

  test('the step doubles until dots are at least MIN_GRID_PX apart', () => {
    expect(gridStep(1)).toBe(24);
    expect(gridStep(0.5)).toBe(12);
    expect(gridStep(0.4)).toBeCloseTo(19.2);
    expect(gridStep(0.1)).toBeCloseTo(19.2);
    for (const zoom of [0.1, 0.13, 0.27, 0.49, 1, 3]) expect(gridStep(zoom)).toBeGreaterThanOrEqual(MIN_GRID_PX);
  });
});

describe('paper tiles longer than one step', () => {
  test("a tile's corner sits on the board's origin lattice of the tile's period, at rest and mid-zoom", () => {
    for (const [tileW, tileH] of [[120, 120], [24, 96], [24, 48]] as const) {
      const drawn: GridDrawn = { zoom: 1, step: 24, pad: 1_440, tileW, tileH };
      for (const vp of [
        { x: 250, y: -70, zoom: 1 },
        { x: -33.5, y: 417, zoom: 1.5 },
      ]) {
        const p = gridPlacement(drawn, vp)!;
        const periodX = tileW * p.scale;
        const periodY = tileH * p.scale;
        // Board x = 0 is on screen at vp.x: a whole number of scaled tiles from the layer's tiles.
        expect(Math.abs(((vp.x - p.tx) / periodX) - Math.round((vp.x - p.tx) / periodX))).toBeLessThan(1e-9);
        expect(Math.abs(((vp.y - p.ty) / periodY) - Math.round((vp.y - p.ty) / periodY))).toBeLessThan(1e-9);
        expect(p.ty).toBeLessThan(periodY);
      }
    }
  });
});
