import type { Element, ElementShape } from '@wb/protocol';
import { arrowHeadPoints, FONT_FAMILY, IMAGE_PLACEHOLDER_FILL, IMAGE_PLACEHOLDER_STROKE, penOutline, RECT_CORNER_RADIUS, STICKY_BORDER, STICKY_CORNER_RADIUS, textBlock, type TextBlock } from './elementSvg.ts';
import { imagePicture } from '../images/imageRefs.ts';
import { centreOf, inkBounds, rotatePoint, rotationOf, shapeBounds, turnedBounds, unionBounds, type Bounds, type Point } from './geometry.ts';

/**
 * Elements drawn with the canvas 2D API, for the board's overview mode (board/elementRenderer.ts).
 * The geometry, corner radii, fonts and text wrapping are elementSvg.ts's, so a board looks the
 * same on the canvas, as SVG on screen, and in an SVG or PNG export. Text is drawn with
 * `fillText`: it is never parsed as markup.
 *
 * The caller sets the board-to-canvas transform; shapes are drawn in board coordinates.
 */

type Ctx = CanvasRenderingContext2D;
type Shape<K extends ElementShape['kind']> = Extract<ElementShape, { kind: K }>;

/** Shapes are immutable: a pen stroke's path and a text box's lines are built once. */
const penPaths = new WeakMap<ElementShape, Path2D>();
const textBlocks = new WeakMap<ElementShape, TextBlock>();
/** The font this module last set on a context: setting `font` parses it, and its getter normalizes. */
const fonts = new WeakMap<Ctx, string>();

function penPath(shape: Shape<'pen'>): Path2D {
  let path = penPaths.get(shape);
  if (!path) {
    path = new Path2D(penOutline(shape));
    penPaths.set(shape, path);
  }
  return path;
}

function cachedTextBlock(shape: Shape<'text' | 'sticky'>): TextBlock {
  let block = textBlocks.get(shape);
  if (!block) {
    block = textBlock(shape);
    textBlocks.set(shape, block);
  }
  return block;
}

/**
 * A rounded rectangle path as SVG draws `<rect rx>`: each corner's radius is clamped to half the
 * side it sits on, separately for x and y (the canvas would shrink all radii together instead).
 */
function roundRectPath(ctx: Ctx, x: number, y: number, w: number, h: number, radius: number): void {
  ctx.beginPath();
  if (w >= 2 * radius && h >= 2 * radius) ctx.roundRect(x, y, w, h, radius);
  else ctx.roundRect(x, y, w, h, [{ x: Math.min(radius, w / 2), y: Math.min(radius, h / 2) }]);
}

function fillAndStroke(ctx: Ctx, fill: string, stroke: string, strokeWidth: number): void {
  if (fill !== 'transparent') {
    ctx.fillStyle = fill;
    ctx.fill();
  }
  ctx.strokeStyle = stroke;
  ctx.lineWidth = strokeWidth;
  ctx.stroke();
}

function setFont(ctx: Ctx, fontSize: number): void {
  const font = `${fontSize}px ${FONT_FAMILY}`;
  if (fonts.get(ctx) !== font) {
    ctx.font = font;
    fonts.set(ctx, font);
  }
}

function drawText(ctx: Ctx, { x, align, direction, fontSize, fill, lines }: TextBlock): void {
  if (lines.length === 0) return;
  setFont(ctx, fontSize);
  ctx.fillStyle = fill;
  // The canvas's left and right are physical, as `align` is; its direction orders the line.
  ctx.textAlign = align;
  ctx.direction = direction;
  for (const line of lines) if (line.text !== '') ctx.fillText(line.text, x, line.y);
  ctx.textAlign = 'left';
  ctx.direction = 'ltr';
}

/**
 * An equation's typeset formula as a picture of its box, or null to draw its source (see the
 * equation case below). The overview draws sources; the class grid's tiles draw the typesetting
 * (equationPicture.ts), as the board's SVG does.
 */
export type EquationPictureOf = (shape: Shape<'equation'>) => CanvasImageSource | null;

/** One shape, in board coordinates on `ctx`'s current transform; a turned box turned about its centre. */
export function drawShape(ctx: Ctx, shape: ElementShape, equationPicture?: EquationPictureOf): void {
  const rotation = rotationOf(shape);
  if (rotation === 0) {
    drawUpright(ctx, shape, equationPicture);
    return;
  }
  const c = centreOf(shapeBounds(shape));
  ctx.save();
  ctx.translate(c.x, c.y);
  ctx.rotate((rotation * Math.PI) / 180);
  ctx.translate(-c.x, -c.y);
  drawUpright(ctx, shape, equationPicture);
  ctx.restore();
}

function drawUpright(ctx: Ctx, shape: ElementShape, equationPicture: EquationPictureOf | undefined): void {
  switch (shape.kind) {
    case 'rect':
      // SVG draws nothing for a rectangle or ellipse without area.
      if (shape.w <= 0 || shape.h <= 0) return;
      ctx.lineJoin = 'miter';
      roundRectPath(ctx, shape.x, shape.y, shape.w, shape.h, RECT_CORNER_RADIUS);
      fillAndStroke(ctx, shape.fill, shape.stroke, shape.strokeWidth);
      return;
    case 'ellipse':
      if (shape.w <= 0 || shape.h <= 0) return;
      ctx.beginPath();
      ctx.ellipse(shape.x + shape.w / 2, shape.y + shape.h / 2, shape.w / 2, shape.h / 2, 0, 0, 2 * Math.PI);
      fillAndStroke(ctx, shape.fill, shape.stroke, shape.strokeWidth);
      return;
    case 'line':
    case 'arrow': {
      ctx.lineCap = 'round';
      ctx.lineJoin = 'round';
      ctx.strokeStyle = shape.stroke;
      ctx.lineWidth = shape.strokeWidth;
      ctx.beginPath();
      ctx.moveTo(shape.x, shape.y);
      ctx.lineTo(shape.x + shape.dx, shape.y + shape.dy);
      const head = shape.kind === 'arrow' ? arrowHeadPoints(shape) : null;
      if (head) {
        const [a, tip, b] = head;
        ctx.moveTo(a.x, a.y);
        ctx.lineTo(tip.x, tip.y);
        ctx.lineTo(b.x, b.y);
      }
      ctx.stroke();
      ctx.lineCap = 'butt';
      return;
    }
    case 'pen':
      ctx.fillStyle = shape.stroke;
      ctx.translate(shape.x, shape.y);
      ctx.fill(penPath(shape));
      ctx.translate(-shape.x, -shape.y);
      return;
    case 'text':
      drawText(ctx, cachedTextBlock(shape));
      return;
    case 'sticky':
      ctx.lineJoin = 'miter';
      roundRectPath(ctx, shape.x, shape.y, shape.w, shape.h, STICKY_CORNER_RADIUS);
      fillAndStroke(ctx, shape.fill, STICKY_BORDER, 1);
      drawText(ctx, cachedTextBlock(shape));
      return;
    case 'image': {
      const picture = imagePicture(shape.sha256);
      if (picture) {
        ctx.drawImage(picture, shape.x, shape.y, shape.w, shape.h);
        return;
      }
      ctx.beginPath();
      ctx.rect(shape.x, shape.y, shape.w, shape.h);
      ctx.setLineDash([6, 4]);
      fillAndStroke(ctx, IMAGE_PLACEHOLDER_FILL, IMAGE_PLACEHOLDER_STROKE, 1);
      ctx.setLineDash([]);
      return;
    }
    case 'equation': {
      const picture = equationPicture?.(shape);
      if (picture) {
        ctx.drawImage(picture, shape.x, shape.y, shape.w, shape.h);
        return;
      }
      // The overview shows a crowd of elements small: an equation's box and source, not its typesetting.
      ctx.save();
      ctx.beginPath();
      ctx.rect(shape.x, shape.y, shape.w, shape.h);
      ctx.clip();
      ctx.fillStyle = shape.stroke;
      ctx.font = `${shape.fontSize * 0.6}px ui-monospace, monospace`;
      ctx.textBaseline = 'top';
      ctx.fillText(shape.latex, shape.x + 4, shape.y + 4);
      ctx.restore();
      return;
    }
  }
}

const canvasBoundsCache = new WeakMap<ElementShape, Bounds>();

/**
 * Where a shape's pixels can be on the canvas (board units): its ink bounds, widened for text to
 * the lines' measured width. The wrapping estimates character widths, so wide glyphs (CJK, "W")
 * can run past the box; a partial repaint must cover them. Measured once per shape, with `ctx`.
 */
export function canvasBounds(ctx: Ctx, shape: ElementShape): Bounds {
  let b = canvasBoundsCache.get(shape);
  if (b) return b;
  b = inkBounds(shape);
  if (shape.kind === 'text' || shape.kind === 'sticky') {
    // Measured upright, then turned with the box about its centre.
    const rotation = rotationOf(shape);
    const upright = rotation === 0 ? b : inkBounds({ ...shape, rotation: 0 });
    const block = cachedTextBlock(shape);
    setFont(ctx, block.fontSize);
    let width = 0;
    for (const line of block.lines) width = Math.max(width, ctx.measureText(line.text).width);
    const first = block.lines[0];
    const last = block.lines.at(-1);
    if (first && last) {
      // Ascent above the first baseline and descent below the last: a font size each way is ample.
      const left = block.align === 'center' ? block.x - width / 2 : block.align === 'right' ? block.x - width : block.x;
      const text = { x: left - block.fontSize, y: first.y - 1.5 * block.fontSize, w: width + 2 * block.fontSize, h: last.y - first.y + 2 * block.fontSize };
      const both = unionBounds([upright, text]) ?? upright;
      const c = centreOf(shapeBounds(shape));
      // Turned about the box's centre: the union's own centre may differ, so turn its corners.
      b = rotation === 0 ? both : turnedAbout(both, c, rotation);
    }
  }
  canvasBoundsCache.set(shape, b);
  return b;
}

/** The upright bounds of `b` turned by `deg` about `c` (not necessarily b's centre). */
function turnedAbout(b: Bounds, c: Point, deg: number): Bounds {
  const own = centreOf(b);
  const turned = turnedBounds(b, deg);
  // Turning about c instead of b's own centre moves the result by the own centre's displacement.
  const moved = rotatePoint(own, c, deg);
  return { ...turned, x: turned.x + moved.x - own.x, y: turned.y + moved.y - own.y };
}

/** Elements in the order given (drawing order: later ones on top). */
export function drawElementsOnCanvas(ctx: Ctx, elements: Iterable<Element>, equationPicture?: EquationPictureOf): void {
  ctx.lineCap = 'butt';
  ctx.textBaseline = 'alphabetic';
  ctx.textAlign = 'left';
  fonts.delete(ctx);
  for (const e of elements) drawShape(ctx, e.shape, equationPicture);
}
