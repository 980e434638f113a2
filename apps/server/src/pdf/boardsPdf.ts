/**
 * Boards as one multi-page PDF, drawn as vectors (issue 39 "Out: PDF"): one page per board, in the
 * order given, each with its caption (the lesson's title and page, or the student's name) over the
 * board's content fitted to an A4 landscape page, on the lesson's paper.
 *
 * The geometry is the web client's (@wb/drawing): a pen stroke is perfect-freehand's outline with
 * the same options, text wraps and aligns as the board wraps it, arrow heads and paper tiles are
 * the same, so a page looks like the board's own export. What is drawn with what:
 *   - shapes, strokes, arrows, notes: PDF paths (pdfkit);
 *   - text: DejaVu Sans (dejavu-fonts-ttf) embedded as a subset, shaped by fontkit, so Spanish
 *     accents and Arabic (joined, right to left) render and can be searched and copied;
 *   - equations: MathJax's SVG output (paths, no fonts) drawn as vectors by svg-to-pdfkit;
 *   - pictures: PNG and JPEG embedded as they are stored; WebP and GIF (no decoder on the server)
 *     as the board's placeholder box;
 *   - paper: an uncolored tiling pattern per ink of the paper's tile.
 *
 * Pure over its input: the caller loads the boards and the pictures (lessonPdf.ts).
 */
import { createRequire } from 'node:module';
import {
  PAPER_AXIS_COLOR,
  PAPER_AXIS_WIDTH,
  PAPER_GEOMETRY,
  STICKY_TEXT_COLOR,
  arrowHeadPoints,
  inkBounds,
  paperAxes,
  penOutlinePath,
  rotationOf,
  shapeBounds,
  textBlock,
  unionBounds,
  type Bounds,
  type PaperLayer,
  type TextBlock,
} from '@wb/drawing';
import type { Element, ElementShape, Paper } from '@wb/protocol';
import PDFDocument from 'pdfkit';
import SVGtoPDF from 'svg-to-pdfkit';
import { equationSvg } from './equationSvg.ts';

/** One page of the PDF. */
export interface PdfBoard {
  /** The line printed above the board (a page's title, a student's name). */
  readonly caption: string;
  /** The board's live elements; drawn in `z` order. */
  readonly elements: readonly Element[];
  readonly paper: Paper;
}

/** A stored picture's bytes, or null when the lesson does not have it. */
export type PictureOf = (sha256: string) => Promise<{ readonly data: Uint8Array; readonly mime: string } | null>;

/** A4 landscape, in points: a board is wider than tall. */
export const PAGE_WIDTH = 841.89;
export const PAGE_HEIGHT = 595.28;
/** Around the board on the page (points). */
const MARGIN = 28;
/** The caption's line above the board (points). */
const CAPTION_SIZE = 12;
const CAPTION_GAP = 10;
/** A board is never drawn larger than 1 board unit per point: a small sketch stays its size. */
const MAX_SCALE = 1;
/** Around the board's content, in board units (the web export's padding). */
const CONTENT_PADDING = 24;
/** An empty board's area (board units), so its page shows its paper. */
const EMPTY_BOARD: Bounds = { x: 0, y: 0, w: 960, h: 640 };

const RECT_CORNER_RADIUS = 4;
const STICKY_CORNER_RADIUS = 6;
const IMAGE_PLACEHOLDER_FILL = '#f1f3f5';
const IMAGE_PLACEHOLDER_STROKE = '#adb5bd';
/** Space between an equation's box and its formula (board units; elementSvg.ts's EQUATION_PADDING). */
const EQUATION_PADDING = 4;
const EMBEDDABLE = new Set(['image/png', 'image/jpeg']);

const require = createRequire(import.meta.url);
/** DejaVu Sans: Latin, Greek, Cyrillic, Arabic and Hebrew in one face (no per-glyph fallback needed). */
const FONT_PATH = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
const FONT = 'board';

type Doc = PDFKit.PDFDocument;

/** The boards as one PDF document's bytes. */
export async function boardsPdf(boards: readonly PdfBoard[], pictureOf: PictureOf, info: { readonly title: string }): Promise<Uint8Array> {
  const doc = new PDFDocument({ autoFirstPage: false, compress: true, info: { Title: info.title, Creator: 'Classroom whiteboard' } });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  doc.registerFont(FONT, FONT_PATH);
  const pictures = new Map<string, Buffer | null>();
  const picture = async (sha256: string) => {
    if (!pictures.has(sha256)) {
      const found = await pictureOf(sha256);
      pictures.set(sha256, found && EMBEDDABLE.has(found.mime) ? Buffer.from(found.data) : null);
    }
    return pictures.get(sha256) ?? null;
  };
  for (const board of boards.length > 0 ? boards : [{ caption: info.title, elements: [], paper: 'blank' as const }]) {
    doc.addPage({ size: [PAGE_WIDTH, PAGE_HEIGHT], margin: 0 });
    doc.font(FONT).fontSize(CAPTION_SIZE).fillColor('#1e1e1e').fillOpacity(1);
    doc.text(board.caption, MARGIN, MARGIN, { width: PAGE_WIDTH - 2 * MARGIN, lineBreak: false, ellipsis: true });
    await drawBoard(doc, board, picture);
  }
  doc.end();
  await ended;
  return new Uint8Array(Buffer.concat(chunks));
}

/** Where a board's content lies, padded (board units). */
export function boardArea(elements: readonly Element[]): Bounds {
  const content = unionBounds(elements.map((e) => inkBounds(e.shape))) ?? EMPTY_BOARD;
  return { x: content.x - CONTENT_PADDING, y: content.y - CONTENT_PADDING, w: content.w + 2 * CONTENT_PADDING, h: content.h + 2 * CONTENT_PADDING };
}

async function drawBoard(doc: Doc, board: PdfBoard, picture: (sha256: string) => Promise<Buffer | null>): Promise<void> {
  const area = boardArea(board.elements);
  const top = MARGIN + CAPTION_SIZE + CAPTION_GAP;
  const room = { w: PAGE_WIDTH - 2 * MARGIN, h: PAGE_HEIGHT - top - MARGIN };
  const scale = Math.min(MAX_SCALE, room.w / area.w, room.h / area.h);
  const left = MARGIN + (room.w - area.w * scale) / 2;
  doc.save();
  // The board's frame: a hairline round the area, then board units from here on.
  doc.rect(left, top, area.w * scale, area.h * scale).lineWidth(0.5).strokeColor('#d0d4dc').stroke();
  doc.rect(left, top, area.w * scale, area.h * scale).clip();
  doc.translate(left, top).scale(scale).translate(-area.x, -area.y);
  drawPaper(doc, board.paper, area);
  const ordered = [...board.elements].sort((a, b) => a.z - b.z || (a.id < b.id ? -1 : 1));
  for (const element of ordered) await drawElement(doc, element.shape, picture);
  doc.restore();
}

/** PDF operators of one ink of a paper tile (pattern space = board units, y down). */
function tileStream(layer: PaperLayer): string {
  let ops = '';
  if (layer.segments.length > 0) {
    ops += `${layer.width} w 0 J `;
    for (const [x1, y1, x2, y2] of layer.segments) ops += `${x1} ${y1} m ${x2} ${y2} l `;
    ops += 'S ';
  }
  for (const [cx, cy, r] of layer.dots) {
    // A circle as four Bézier quarters (kappa 0.5523).
    const k = r * 0.5523;
    ops += `${cx + r} ${cy} m ${cx + r} ${cy + k} ${cx + k} ${cy + r} ${cx} ${cy + r} c ${cx - k} ${cy + r} ${cx - r} ${cy + k} ${cx - r} ${cy} c `;
    ops += `${cx - r} ${cy - k} ${cx - k} ${cy - r} ${cx} ${cy - r} c ${cx + k} ${cy - r} ${cx + r} ${cy - k} ${cx + r} ${cy} c f `;
  }
  return ops.trim();
}

function drawPaper(doc: Doc, paper: Paper, area: Bounds): void {
  doc.rect(area.x, area.y, area.w, area.h).fill('#ffffff');
  const tile = PAPER_GEOMETRY[paper];
  if (!tile) return;
  for (const layer of tile.layers) {
    // Tiles start at the board's origin, as on screen: the pattern's space is the board's.
    const pattern = doc.pattern([0, 0, tile.w, tile.h], tile.w, tile.h, tileStream(layer));
    doc.rect(area.x, area.y, area.w, area.h).fill([pattern, layer.color]);
  }
  if (paperAxes(paper)) {
    doc.lineWidth(PAPER_AXIS_WIDTH).strokeColor(PAPER_AXIS_COLOR).strokeOpacity(1);
    if (area.y <= 0 && area.y + area.h >= 0) doc.moveTo(area.x, 0).lineTo(area.x + area.w, 0).stroke();
    if (area.x <= 0 && area.x + area.w >= 0) doc.moveTo(0, area.y).lineTo(0, area.y + area.h).stroke();
  }
}

async function drawElement(doc: Doc, shape: ElementShape, picture: (sha256: string) => Promise<Buffer | null>): Promise<void> {
  doc.save();
  const rotation = rotationOf(shape);
  if (rotation !== 0) {
    const b = shapeBounds(shape);
    doc.rotate(rotation, { origin: [b.x + b.w / 2, b.y + b.h / 2] });
  }
  doc.fillOpacity(1).strokeOpacity(1).lineCap('round').lineJoin('round');
  switch (shape.kind) {
    case 'rect':
      doc.roundedRect(shape.x, shape.y, shape.w, shape.h, RECT_CORNER_RADIUS).lineWidth(shape.strokeWidth);
      if (shape.fill === 'transparent') doc.stroke(shape.stroke);
      else doc.fillAndStroke(shape.fill, shape.stroke);
      break;
    case 'ellipse':
      doc.ellipse(shape.x + shape.w / 2, shape.y + shape.h / 2, shape.w / 2, shape.h / 2).lineWidth(shape.strokeWidth);
      if (shape.fill === 'transparent') doc.stroke(shape.stroke);
      else doc.fillAndStroke(shape.fill, shape.stroke);
      break;
    case 'line':
    case 'arrow': {
      doc.lineWidth(shape.strokeWidth).moveTo(shape.x, shape.y).lineTo(shape.x + shape.dx, shape.y + shape.dy).stroke(shape.stroke);
      const head = shape.kind === 'arrow' ? arrowHeadPoints(shape) : null;
      if (head) doc.moveTo(head[0].x, head[0].y).lineTo(head[1].x, head[1].y).lineTo(head[2].x, head[2].y).stroke(shape.stroke);
      break;
    }
    case 'pen':
      doc.translate(shape.x, shape.y).path(penOutlinePath(shape)).fill(shape.stroke);
      break;
    case 'text':
      drawText(doc, textBlock(shape));
      break;
    case 'sticky':
      doc.roundedRect(shape.x, shape.y, shape.w, shape.h, STICKY_CORNER_RADIUS).fill(shape.fill);
      doc.roundedRect(shape.x, shape.y, shape.w, shape.h, STICKY_CORNER_RADIUS).lineWidth(1).strokeOpacity(0.12).stroke('#000000');
      drawText(doc, { ...textBlock(shape), fill: STICKY_TEXT_COLOR });
      break;
    case 'image': {
      const bytes = await picture(shape.sha256);
      if (bytes) {
        doc.image(bytes, shape.x, shape.y, { width: shape.w, height: shape.h });
      } else {
        doc.rect(shape.x, shape.y, shape.w, shape.h).fill(IMAGE_PLACEHOLDER_FILL);
        doc.rect(shape.x, shape.y, shape.w, shape.h).lineWidth(1).dash(6, { space: 4 }).stroke(IMAGE_PLACEHOLDER_STROKE).undash();
      }
      break;
    }
    case 'equation': {
      const svg = equationSvg(shape.latex, shape.stroke);
      SVGtoPDF(doc, svg.markup, shape.x + EQUATION_PADDING, shape.y + EQUATION_PADDING, {
        width: svg.widthEm * shape.fontSize,
        height: svg.heightEm * shape.fontSize,
        assumePt: true,
      });
      break;
    }
  }
  doc.restore();
}

/** Letters of the scripts written right to left (textLayout.ts's `textDirection` decides a block's by them too). */
const RTL_LETTER = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/u;

/**
 * A line's words in the order they stand from left to right. fontkit shapes and orders the letters
 * of one right-to-left word, but lays a run of several such words out with its spaces misplaced,
 * so a line holding right-to-left words is drawn a word at a time: consecutive words of the
 * line's opposite direction keep their own order as a group, and groups run in the line's
 * direction (the bidi algorithm's answer for words of two directions; enough for a whiteboard).
 */
export function visualWords(line: string, direction: 'ltr' | 'rtl'): string[] {
  const groups: Array<{ dir: 'ltr' | 'rtl'; words: string[] }> = [];
  for (const word of line.split(/\s+/).filter((w) => w !== '')) {
    // A word with no letter (a number, a sign) goes with the words before it.
    const dir = RTL_LETTER.test(word) ? 'rtl' : /\p{L}/u.test(word) ? 'ltr' : (groups.at(-1)?.dir ?? direction);
    const last = groups.at(-1);
    if (last?.dir === dir) last.words.push(word);
    else groups.push({ dir, words: [word] });
  }
  const inOrder = groups.map((g) => (g.dir === 'rtl' ? [...g.words].reverse() : g.words));
  return (direction === 'rtl' ? inOrder.reverse() : inOrder).flat();
}

/** A text block's lines, each anchored by its physical alignment; fontkit joins and orders the letters of each word. */
function drawText(doc: Doc, block: TextBlock): void {
  doc.font(FONT).fontSize(block.fontSize).fillColor(block.fill);
  for (const line of block.lines) {
    if (line.text.trim() === '') continue;
    const anchor = (width: number) => (block.align === 'center' ? block.x - width / 2 : block.align === 'right' ? block.x - width : block.x);
    if (!RTL_LETTER.test(line.text)) {
      doc.text(line.text, anchor(doc.widthOfString(line.text)), line.y, { lineBreak: false, baseline: 'alphabetic' });
      continue;
    }
    const words = visualWords(line.text, block.direction);
    const space = doc.widthOfString(' ');
    const widths = words.map((w) => doc.widthOfString(w));
    let x = anchor(widths.reduce((sum, w) => sum + w, 0) + space * (words.length - 1));
    for (const [i, word] of words.entries()) {
      doc.text(word, x, line.y, { lineBreak: false, baseline: 'alphabetic' });
      x += widths[i]! + space;
    }
  }
}
