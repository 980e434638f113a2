import type { Element, ElementShape, TextAlign } from '@wb/protocol';
import { arrowHeadPoints, penOutlinePath, textBlock, type TextBlock } from '@wb/drawing';
import { centreOf, inkBounds, rotationOf, shapeBounds, unionBounds, type Bounds } from './geometry.ts';
import { imageHref } from '../images/imageRefs.ts';
import { equationMathml } from './equationRenderer.ts';

export { STICKY_FONT_SIZE, STICKY_TEXT_COLOR, arrowHeadPoints, textBlock, textDirection, wrapLines, type TextBlock } from '@wb/drawing';

/**
 * SVG markup for one element, in board coordinates. One function serves the live layer (each
 * element's markup is cached by object identity there) and the exporter, so an export looks
 * exactly like the board. Text goes through `escapeXml`: element text is user input.
 */

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c);
}

const num = (v: number) => (Math.round(v * 100) / 100).toString();

/**
 * What screen, SVG export and PNG export share: the canvas renderer (elementCanvas.ts) draws from
 * the same geometry and constants as this markup, so the overview canvas looks like the SVG.
 */
export const FONT_FAMILY = 'system-ui, sans-serif';
/** Corner radius of a rectangle (board units; SVG `rx`). */
export const RECT_CORNER_RADIUS = 4;
export const STICKY_CORNER_RADIUS = 6;
export const STICKY_BORDER = 'rgba(0,0,0,0.12)';

/** SVG's names for a physical alignment, by direction (`start` is the right edge of right-to-left text). */
export const SVG_TEXT_ANCHOR: Record<'ltr' | 'rtl', Record<TextAlign, 'start' | 'middle' | 'end'>> = {
  ltr: { left: 'start', center: 'middle', right: 'end' },
  rtl: { left: 'end', center: 'middle', right: 'start' },
};

function textSvg({ x, align, direction, fontSize, fill, lines }: TextBlock): string {
  const spans = lines.map((l) => `<tspan x="${num(x)}" y="${num(l.y)}">${escapeXml(l.text)}</tspan>`).join('');
  const anchor = SVG_TEXT_ANCHOR[direction][align];
  // The direction is always written: a board inside a right-to-left page must not lend it to English text.
  return `<text font-family="${FONT_FAMILY}" font-size="${num(fontSize)}" fill="${fill}" direction="${direction}"${anchor === 'start' ? '' : ` text-anchor="${anchor}"`} xml:space="preserve">${spans}</text>`;
}

function arrowHead(shape: Extract<ElementShape, { kind: 'arrow' }>): string {
  const head = arrowHeadPoints(shape);
  if (!head) return '';
  const [a, tip, b] = head;
  return `<path d="M${num(a.x)} ${num(a.y)} L${num(tip.x)} ${num(tip.y)} L${num(b.x)} ${num(b.y)}" fill="none" stroke="${shape.stroke}" stroke-width="${num(shape.strokeWidth)}" stroke-linecap="round" stroke-linejoin="round"/>`;
}

const penOutlines = new WeakMap<ElementShape, string>();

/**
 * A pen stroke's outline as path data, computed once per shape object (shapes are immutable):
 * perfect-freehand is most of the cost of drawing a stroke, and the SVG node, the overview canvas
 * and an export all need the same outline.
 */
export function penOutline(shape: Extract<ElementShape, { kind: 'pen' }>): string {
  let d = penOutlines.get(shape);
  if (d === undefined) {
    d = penOutlinePath(shape);
    penOutlines.set(shape, d);
  }
  return d;
}

/** Where an image element's picture is: a URL, or null to draw its placeholder. */
export type ImageHrefOf = (sha256: string) => string | null;

/** The look of an image not (yet) loaded: a light box with a dashed edge. */
export const IMAGE_PLACEHOLDER_FILL = '#f1f3f5';
export const IMAGE_PLACEHOLDER_STROKE = '#adb5bd';

/**
 * An image element: the picture stretched to its box, or while it loads (or when this lesson does
 * not have it) a placeholder of the same size. On screen the href is an object URL; an export
 * passes `data:` URIs so the file stands alone.
 */
function imageSvg(shape: Extract<ElementShape, { kind: 'image' }>, hrefOf: ImageHrefOf): string {
  const href = hrefOf(shape.sha256);
  const box = `x="${num(shape.x)}" y="${num(shape.y)}" width="${num(shape.w)}" height="${num(shape.h)}"`;
  if (href) return `<image ${box} href="${escapeXml(href)}" preserveAspectRatio="none"/>`;
  return `<rect ${box} fill="${IMAGE_PLACEHOLDER_FILL}" stroke="${IMAGE_PLACEHOLDER_STROKE}" stroke-width="1" stroke-dasharray="6 4" data-image-pending="true"/>`;
}

/** A shape's markup; a turned box inside a group turned about its centre. */
export function shapeSvg(shape: ElementShape, hrefOf: ImageHrefOf = imageHref): string {
  const rotation = rotationOf(shape);
  if (rotation === 0) return uprightSvg(shape, hrefOf);
  const c = centreOf(shapeBounds(shape));
  return `<g transform="rotate(${num(rotation)} ${num(c.x)} ${num(c.y)})">${uprightSvg(shape, hrefOf)}</g>`;
}

function uprightSvg(shape: ElementShape, hrefOf: ImageHrefOf): string {
  switch (shape.kind) {
    case 'rect':
      return `<rect x="${num(shape.x)}" y="${num(shape.y)}" width="${num(shape.w)}" height="${num(shape.h)}" rx="${RECT_CORNER_RADIUS}" fill="${shape.fill === 'transparent' ? 'none' : shape.fill}" stroke="${shape.stroke}" stroke-width="${num(shape.strokeWidth)}"/>`;
    case 'ellipse':
      return `<ellipse cx="${num(shape.x + shape.w / 2)}" cy="${num(shape.y + shape.h / 2)}" rx="${num(shape.w / 2)}" ry="${num(shape.h / 2)}" fill="${shape.fill === 'transparent' ? 'none' : shape.fill}" stroke="${shape.stroke}" stroke-width="${num(shape.strokeWidth)}"/>`;
    case 'line':
      return `<line x1="${num(shape.x)}" y1="${num(shape.y)}" x2="${num(shape.x + shape.dx)}" y2="${num(shape.y + shape.dy)}" stroke="${shape.stroke}" stroke-width="${num(shape.strokeWidth)}" stroke-linecap="round"/>`;
    case 'arrow':
      return `<line x1="${num(shape.x)}" y1="${num(shape.y)}" x2="${num(shape.x + shape.dx)}" y2="${num(shape.y + shape.dy)}" stroke="${shape.stroke}" stroke-width="${num(shape.strokeWidth)}" stroke-linecap="round"/>${arrowHead(shape)}`;
    case 'pen':
      return `<path transform="translate(${num(shape.x)} ${num(shape.y)})" d="${penOutline(shape)}" fill="${shape.stroke}"/>`;
    case 'text':
      return textSvg(textBlock(shape));
    case 'sticky':
      return (
        `<rect x="${num(shape.x)}" y="${num(shape.y)}" width="${num(shape.w)}" height="${num(shape.h)}" rx="${STICKY_CORNER_RADIUS}" fill="${shape.fill}" stroke="${STICKY_BORDER}" stroke-width="1"/>` +
        textSvg(textBlock(shape))
      );
    case 'image':
      return imageSvg(shape, hrefOf);
    case 'equation':
      return equationSvg(shape);
  }
}

/** Space between an equation's box and its formula (board units). */
export const EQUATION_PADDING = 4;
/** An equation's source shown while KaTeX loads, at this fraction of its font size. */
const EQUATION_SOURCE_SCALE = 0.6;

/**
 * An equation's typeset formula as XHTML (the MathML in a div set in the equation's size and
 * colour), or null while KaTeX loads. The board, the exports and the editor's preview all use it,
 * so the box the editor measures is the box the board draws.
 */
export function equationHtml(latex: string, fontSize: number, color: string): string | null {
  const math = equationMathml(latex);
  if (math === null) return null;
  return (
    `<div xmlns="http://www.w3.org/1999/xhtml" class="equation-body" dir="ltr" style="display:inline-block;padding:${EQUATION_PADDING}px;font-size:${num(fontSize)}px;` +
    `line-height:1.2;color:${color};white-space:nowrap">${math}</div>`
  );
}

function equationSvg(shape: Extract<ElementShape, { kind: 'equation' }>): string {
  const html = equationHtml(shape.latex, shape.fontSize, shape.stroke);
  if (html === null) {
    const size = shape.fontSize * EQUATION_SOURCE_SCALE;
    return `<text x="${num(shape.x + EQUATION_PADDING)}" y="${num(shape.y + EQUATION_PADDING + size)}" font-family="ui-monospace, monospace" font-size="${num(size)}" fill="${shape.stroke}" opacity="0.6" direction="ltr">${escapeXml(shape.latex)}</text>`;
  }
  return `<foreignObject x="${num(shape.x)}" y="${num(shape.y)}" width="${num(shape.w)}" height="${num(shape.h)}" overflow="visible">${html}</foreignObject>`;
}

/** Padding around an exported board (board units). */
const EXPORT_PADDING = 24;

/**
 * A standalone SVG document of the whole board (elements in drawing order), sized to their bounds.
 * An empty board exports a small blank image rather than nothing.
 */
export function boardSvgDocument(ordered: readonly Element[], background = '#ffffff', underlay?: Underlay, hrefOf: ImageHrefOf = imageHref): { svg: string; bounds: Bounds } {
  return svgDocument(ordered, background, underlay, hrefOf);
}

/** What an export draws under the elements over its bounds (the board's paper): defs and body. */
export type Underlay = (bounds: Bounds) => { defs: string; body: string };

/**
 * A standalone SVG document of some shapes (a copy, for other apps), on no background. `hrefOf`
 * names the images' pictures: `data:` URIs for a document that leaves the page; by default none
 * (placeholders), since the screen's object URLs mean nothing to another app.
 */
export function shapesSvgDocument(shapes: readonly ElementShape[], hrefOf: ImageHrefOf = () => null): { svg: string; bounds: Bounds } {
  return svgDocument(shapes.map((shape) => ({ shape })), null, undefined, hrefOf);
}

function svgDocument(
  items: ReadonlyArray<{ readonly id?: string; readonly shape: ElementShape }>,
  background: string | null,
  underlay: Underlay | undefined,
  hrefOf: ImageHrefOf,
): { svg: string; bounds: Bounds } {
  const content = unionBounds(items.map((e) => inkBounds(e.shape))) ?? { x: 0, y: 0, w: 320, h: 200 };
  const bounds = { x: content.x - EXPORT_PADDING, y: content.y - EXPORT_PADDING, w: content.w + EXPORT_PADDING * 2, h: content.h + EXPORT_PADDING * 2 };
  const body = items.map((e) => `<g${e.id === undefined ? '' : ` data-element-id="${e.id}"`}>${shapeSvg(e.shape, hrefOf)}</g>`).join('');
  const backdrop = background === null ? '' : `<rect x="${num(bounds.x)}" y="${num(bounds.y)}" width="${num(bounds.w)}" height="${num(bounds.h)}" fill="${background}"/>`;
  const under = underlay?.(bounds) ?? { defs: '', body: '' };
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${num(bounds.w)}" height="${num(bounds.h)}" viewBox="${num(bounds.x)} ${num(bounds.y)} ${num(bounds.w)} ${num(bounds.h)}">` +
    `${under.defs}${backdrop}${under.body}${body}</svg>`;
  return { svg, bounds };
}
