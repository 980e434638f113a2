import type { Paper } from '@wb/protocol';
import { PAPER_AXIS_COLOR, PAPER_AXIS_WIDTH, PAPER_GEOMETRY, paperAxes, type PaperLayer } from '@wb/drawing';
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

/** Lines keep one screen pixel at every zoom (an export: one board unit). */
const hairline = `fill="none" vector-effect="non-scaling-stroke"`;

function tileMarkup(layers: readonly PaperLayer[]): string {
  return layers
    .map((l) => {
      const d = l.segments.map(([x1, y1, x2, y2]) => `M${x1} ${y1}L${x2} ${y2}`).join('');
      const lines = d === '' ? '' : `<path d="${d}" stroke="${l.color}" stroke-width="${l.width}" ${hairline}/>`;
      return lines + l.dots.map(([cx, cy, r]) => `<circle cx="${cx}" cy="${cy}" r="${r}" fill="${l.color}"/>`).join('');
    })
    .join('');
}

/** Each paper's tile (the shared geometry of @wb/drawing as markup); `blank` has none. */
export const PAPER_TILES: Record<Paper, PaperTile | null> = Object.fromEntries(
  Object.entries(PAPER_GEOMETRY).map(([paper, tile]) => [paper, tile && { w: tile.w, h: tile.h, markup: tileMarkup(tile.layers) }]),
) as Record<Paper, PaperTile | null>;

export { paperAxes };
export const AXIS_COLOR = PAPER_AXIS_COLOR;

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
    if (bounds.y <= 0 && bottom >= 0) body += `<line x1="${bounds.x}" y1="0" x2="${right}" y2="0" stroke="${AXIS_COLOR}" stroke-width="${PAPER_AXIS_WIDTH}"/>`;
    if (bounds.x <= 0 && right >= 0) body += `<line x1="0" y1="${bounds.y}" x2="0" y2="${bottom}" stroke="${AXIS_COLOR}" stroke-width="${PAPER_AXIS_WIDTH}"/>`;
  }
  return { defs: `<defs>${defs}</defs>`, body };
}
