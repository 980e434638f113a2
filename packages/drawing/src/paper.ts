import type { Paper } from '@wb/protocol';

/**
 * The board's paper as one repeating tile, in board units, as geometry: the screen's background
 * and SVG export (apps/web/src/board/paper.ts turns it into SVG markup) and the server's PDF export
 * (a tiling pattern) draw the same tile. Tiles start at the board's origin: grid lines fall on
 * multiples of GRID_STEP and graph paper's axes on its bold lines. Graph paper's axes are not a
 * repetition: they are drawn apart (`paperAxes`).
 */

/** The board's grid, in board units: the dot spacing, a grid square, what snapping rounds to. */
export const GRID_STEP = 24;

/** One colour's ink of a tile: hairline segments and dots. */
export interface PaperLayer {
  readonly color: string;
  /** Line width of the segments, in board units (the screen keeps it one pixel at every zoom). */
  readonly width: number;
  /** Segments `[x1, y1, x2, y2]` within the tile. */
  readonly segments: ReadonlyArray<readonly [number, number, number, number]>;
  /** Dots `[cx, cy, r]` within the tile. */
  readonly dots: ReadonlyArray<readonly [number, number, number]>;
}

export interface PaperTileGeometry {
  /** The tile's size in board units (a whole number of GRID_STEPs, so zoom thinning keeps it whole). */
  readonly w: number;
  readonly h: number;
  readonly layers: readonly PaperLayer[];
}

/** Paper ink: light enough to write over, dark enough for a projector. */
export const PAPER_LINE = '#d3d8e2';
export const PAPER_BOLD = '#aeb6c6';
export const PAPER_DOT = '#c9cdd8';
export const PAPER_AXIS_COLOR = '#6b7385';
/** Graph paper's axes, in board units. */
export const PAPER_AXIS_WIDTH = 1.5;

const s = GRID_STEP;
/** Music staff: five lines this far apart (board units), a staff every STAFF_PERIOD. */
const STAFF_GAP = s / 2;
const STAFF_PERIOD = s * 4;
/** Lined paper: one rule every two grid steps (room for handwriting at 100 %). */
const LINED_PERIOD = s * 2;
/** Graph paper: a bold line every five squares. */
const GRAPH_MAJOR = 5;

const layer = (color: string, width: number, segments: PaperLayer['segments'], dots: PaperLayer['dots'] = []): PaperLayer => ({ color, width, segments, dots });

function graphTile(): PaperTileGeometry {
  const size = s * GRAPH_MAJOR;
  const minor: Array<[number, number, number, number]> = [];
  for (let k = 1; k < GRAPH_MAJOR; k++) minor.push([k * s, 0, k * s, size], [0, k * s, size, k * s]);
  return {
    w: size,
    h: size,
    layers: [
      layer(PAPER_LINE, 1, minor),
      layer(PAPER_BOLD, 1.2, [
        [0, 0, 0, size],
        [0, 0, size, 0],
      ]),
    ],
  };
}

function staffTile(): PaperTileGeometry {
  const lines: Array<[number, number, number, number]> = [];
  for (let k = 0; k < 5; k++) lines.push([0, k * STAFF_GAP, s, k * STAFF_GAP]);
  return { w: s, h: STAFF_PERIOD, layers: [layer(PAPER_BOLD, 1, lines)] };
}

/** Each paper's tile; `blank` has none. */
export const PAPER_GEOMETRY: Record<Paper, PaperTileGeometry | null> = {
  blank: null,
  dots: { w: s, h: s, layers: [layer(PAPER_DOT, 0, [], [[s / 2, s / 2, 1]])] },
  grid: {
    w: s,
    h: s,
    layers: [
      layer(PAPER_LINE, 1, [
        [0, 0, s, 0],
        [0, 0, 0, s],
      ]),
    ],
  },
  lined: { w: s, h: LINED_PERIOD, layers: [layer(PAPER_BOLD, 1, [[0, 0, s, 0]])] },
  graph: graphTile(),
  staff: staffTile(),
};

/** Whether the paper draws the x and y axes through the board's origin. */
export function paperAxes(paper: Paper): boolean {
  return paper === 'graph';
}
