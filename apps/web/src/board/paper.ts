import type { Paper } from '@wb/protocol';
import { GRID_STEP } from './gridPlacement.ts';
import type { MessageId } from '@lingui/core';

/**
 * The board's paper as one repeating tile, in board units: the screen's background (GridLayer.tsx,
 * a CSS background of the tile, never one node per line) and an export's SVG `<pattern>` draw
 * the same tile, so an exported board with its paper looks like the screen. Tiles start at the
 * board's origin: grid lines fall on multiples of GRID_STEP and graph paper's axes on its bold
 * lines. Graph paper's axes are not a repetition: they are drawn apart (`paperAxes`).
 */
export interface PaperTile {
  /** The tile's size in board units (a whole number of GRID_STEPs, so zoom thinning keeps it whole). */
  readonly w: number;
  readonly h: number;
  /** The tile's content, SVG in board units within (0, 0, w, h). */
  readonly markup: string;
}

/** Paper ink: light enough to write over, dark enough for a projector. */
const LINE = '#d3d8e2';
const BOLD = '#aeb6c6';
const DOT = '#c9cdd8';
export const AXIS_COLOR = '#6b7385';
/** Lines keep one screen pixel at every zoom (an export: one board unit). */
const hairline = `fill="none" vector-effect="non-scaling-stroke"`;

const s = GRID_STEP;
/** Music staff: five lines this far apart (board units), a staff every STAFF_PERIOD. */
const STAFF_GAP = s / 2;
const STAFF_PERIOD = s * 4;
/** Lined paper: one rule every two grid steps (room for handwriting at 100 %). */
const LINED_PERIOD = s * 2;
/** Graph paper: a bold line every five squares. */
const GRAPH_MAJOR = 5;

function graphTile(): string {
  const size = s * GRAPH_MAJOR;
  let minor = '';
  for (let k = 1; k < GRAPH_MAJOR; k++) minor += `M${k * s} 0V${size}M0 ${k * s}H${size}`;
  return `<path d="${minor}" stroke="${LINE}" stroke-width="1" ${hairline}/><path d="M0 0V${size}M0 0H${size}" stroke="${BOLD}" stroke-width="1.2" ${hairline}/>`;
}

function staffTile(): string {
  let d = '';
  for (let k = 0; k < 5; k++) d += `M0 ${k * STAFF_GAP}H${s}`;
  return `<path d="${d}" stroke="${BOLD}" stroke-width="1" ${hairline}/>`;
}

/** Each paper's tile; `blank` has none. */
export const PAPER_TILES: Record<Paper, PaperTile | null> = {
  blank: null,
  dots: { w: s, h: s, markup: `<circle cx="${s / 2}" cy="${s / 2}" r="1" fill="${DOT}"/>` },
  grid: { w: s, h: s, markup: `<path d="M0 0H${s}M0 0V${s}" stroke="${LINE}" stroke-width="1" ${hairline}/>` },
  lined: { w: s, h: LINED_PERIOD, markup: `<path d="M0 0H${s}" stroke="${BOLD}" stroke-width="1" ${hairline}/>` },
  graph: { w: s * GRAPH_MAJOR, h: s * GRAPH_MAJOR, markup: graphTile() },
  staff: { w: s, h: STAFF_PERIOD, markup: staffTile() },
};

/** Whether the paper draws the x and y axes through the board's origin. */
export function paperAxes(paper: Paper): boolean {
  return paper === 'graph';
}

/** The tile as a standalone SVG image drawn at `wPx` × `hPx` (a CSS background's data URL). */
export function paperTileImage(tile: PaperTile): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${tile.w} ${tile.h}" preserveAspectRatio="none">${tile.markup}</svg>`;
  return `url("data:image/svg+xml,${encodeURIComponent(svg)}")`;
}

/** Names and descriptions for the teacher's picker (the previews are the tiles themselves). */
export const PAPER_CHOICES: ReadonlyArray<{ readonly paper: Paper; readonly name: MessageId }> = [
  { paper: 'blank', name: 'paper.blank' },
  { paper: 'dots', name: 'paper.dots' },
  { paper: 'grid', name: 'paper.grid' },
  { paper: 'lined', name: 'paper.lined' },
  { paper: 'graph', name: 'paper.graph' },
  { paper: 'staff', name: 'paper.staff' },
];

/**
 * The paper under an export of `bounds` (board units): a pattern filling the area, and the axes
 * where they cross it. Empty for blank paper.
 */
export function paperSvg(paper: Paper, bounds: { x: number; y: number; w: number; h: number }): { defs: string; body: string } {
  const tile = PAPER_TILES[paper];
  if (!tile) return { defs: '', body: '' };
  const defs = `<pattern id="wb-paper" patternUnits="userSpaceOnUse" x="0" y="0" width="${tile.w}" height="${tile.h}">${tile.markup}</pattern>`;
  let body = `<rect x="${bounds.x}" y="${bounds.y}" width="${bounds.w}" height="${bounds.h}" fill="url(#wb-paper)"/>`;
  if (paperAxes(paper)) {
    const right = bounds.x + bounds.w;
    const bottom = bounds.y + bounds.h;
    if (bounds.y <= 0 && bottom >= 0) body += `<line x1="${bounds.x}" y1="0" x2="${right}" y2="0" stroke="${AXIS_COLOR}" stroke-width="1.5"/>`;
    if (bounds.x <= 0 && right >= 0) body += `<line x1="0" y1="${bounds.y}" x2="0" y2="${bottom}" stroke="${AXIS_COLOR}" stroke-width="1.5"/>`;
  }
  return { defs: `<defs>${defs}</defs>`, body };
}
