import type { Element, ElementShape } from '@wb/protocol';
import { inkBounds, unionBounds, type Bounds } from './geometry.ts';
import { penOutlinePath } from './penStroke.ts';

/**
 * SVG markup for one element, in board coordinates. One function serves the live layer (each
 * element's markup is cached by object identity there) and the exporter, so an export looks
 * exactly like the board. Text goes through `escapeXml`: element text is user input.
 */

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c);
}

const num = (v: number) => (Math.round(v * 100) / 100).toString();

/** Lines of a text box, wrapped by an approximate character width (no DOM measuring here). */
export function wrapLines(text: string, width: number, fontSize: number): string[] {
  const perLine = Math.max(1, Math.floor(width / (fontSize * 0.55)));
  const lines: string[] = [];
  for (const raw of text.split('\n')) {
    const words = raw.split(/(\s+)/);
    let line = '';
    for (const word of words) {
      if ([...line].length + [...word].length > perLine && line.trim() !== '') {
        lines.push(line.trimEnd());
        line = word.trimStart();
      } else {
        line += word;
      }
    }
    lines.push(line);
  }
  return lines;
}

function textLines(text: string, x: number, y: number, width: number, fontSize: number, fill: string, maxHeight: number): string {
  const lineHeight = fontSize * 1.25;
  const maxLines = Math.max(1, Math.floor(maxHeight / lineHeight));
  const lines = wrapLines(text, width, fontSize).slice(0, maxLines);
  const spans = lines.map((l, i) => `<tspan x="${num(x)}" y="${num(y + fontSize + i * lineHeight)}">${escapeXml(l)}</tspan>`).join('');
  return `<text font-family="system-ui, sans-serif" font-size="${num(fontSize)}" fill="${fill}" xml:space="preserve">${spans}</text>`;
}

function arrowHead(shape: Extract<ElementShape, { kind: 'arrow' }>): string {
  const len = Math.hypot(shape.dx, shape.dy);
  if (len === 0) return '';
  const ux = shape.dx / len;
  const uy = shape.dy / len;
  const size = Math.min(len / 2, 10 + shape.strokeWidth * 2);
  const tipX = shape.x + shape.dx;
  const tipY = shape.y + shape.dy;
  const back = (side: number) => `${num(tipX - ux * size + side * -uy * size * 0.5)} ${num(tipY - uy * size + side * ux * size * 0.5)}`;
  return `<path d="M${back(1)} L${num(tipX)} ${num(tipY)} L${back(-1)}" fill="none" stroke="${shape.stroke}" stroke-width="${num(shape.strokeWidth)}" stroke-linecap="round" stroke-linejoin="round"/>`;
}

export function shapeSvg(shape: ElementShape): string {
  switch (shape.kind) {
    case 'rect':
      return `<rect x="${num(shape.x)}" y="${num(shape.y)}" width="${num(shape.w)}" height="${num(shape.h)}" rx="4" fill="${shape.fill === 'transparent' ? 'none' : shape.fill}" stroke="${shape.stroke}" stroke-width="${num(shape.strokeWidth)}"/>`;
    case 'ellipse':
      return `<ellipse cx="${num(shape.x + shape.w / 2)}" cy="${num(shape.y + shape.h / 2)}" rx="${num(shape.w / 2)}" ry="${num(shape.h / 2)}" fill="${shape.fill === 'transparent' ? 'none' : shape.fill}" stroke="${shape.stroke}" stroke-width="${num(shape.strokeWidth)}"/>`;
    case 'line':
      return `<line x1="${num(shape.x)}" y1="${num(shape.y)}" x2="${num(shape.x + shape.dx)}" y2="${num(shape.y + shape.dy)}" stroke="${shape.stroke}" stroke-width="${num(shape.strokeWidth)}" stroke-linecap="round"/>`;
    case 'arrow':
      return `<line x1="${num(shape.x)}" y1="${num(shape.y)}" x2="${num(shape.x + shape.dx)}" y2="${num(shape.y + shape.dy)}" stroke="${shape.stroke}" stroke-width="${num(shape.strokeWidth)}" stroke-linecap="round"/>${arrowHead(shape)}`;
    case 'pen':
      return `<path transform="translate(${num(shape.x)} ${num(shape.y)})" d="${penOutlinePath(shape)}" fill="${shape.stroke}"/>`;
    case 'text':
      return textLines(shape.text, shape.x + 4, shape.y + 2, shape.w - 8, shape.fontSize, shape.stroke, Math.max(shape.h, shape.fontSize * 1.25));
    case 'sticky':
      return (
        `<rect x="${num(shape.x)}" y="${num(shape.y)}" width="${num(shape.w)}" height="${num(shape.h)}" rx="6" fill="${shape.fill}" stroke="rgba(0,0,0,0.12)" stroke-width="1"/>` +
        textLines(shape.text, shape.x + 14, shape.y + 10, shape.w - 28, 20, '#1e1e1e', shape.h - 20)
      );
  }
}

/** Padding around an exported board (board units). */
const EXPORT_PADDING = 24;

/**
 * A standalone SVG document of the whole board (elements in drawing order), sized to their bounds.
 * An empty board exports a small blank image rather than nothing.
 */
export function boardSvgDocument(ordered: readonly Element[], background = '#ffffff'): { svg: string; bounds: Bounds } {
  const content = unionBounds(ordered.map((e) => inkBounds(e.shape))) ?? { x: 0, y: 0, w: 320, h: 200 };
  const bounds = { x: content.x - EXPORT_PADDING, y: content.y - EXPORT_PADDING, w: content.w + EXPORT_PADDING * 2, h: content.h + EXPORT_PADDING * 2 };
  const body = ordered.map((e) => `<g data-element-id="${e.id}">${shapeSvg(e.shape)}</g>`).join('');
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${num(bounds.w)}" height="${num(bounds.h)}" viewBox="${num(bounds.x)} ${num(bounds.y)} ${num(bounds.w)} ${num(bounds.h)}">` +
    `<rect x="${num(bounds.x)}" y="${num(bounds.y)}" width="${num(bounds.w)}" height="${num(bounds.h)}" fill="${background}"/>${body}</svg>`;
  return { svg, bounds };
}
