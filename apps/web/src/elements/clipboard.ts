/**
 * Copy, cut, paste and duplicate, pure: what a copy of the selection carries (the shapes, in
 * drawing order, as `@wb/protocol`'s clipboard text, beside an SVG of them and their text for
 * other apps) and where pasted or duplicated shapes land. The shell (board/clipboardKeys.ts)
 * puts these on the system clipboard and creates the shapes through the editor's normal path.
 */
import { MAX_CLIPBOARD_ELEMENTS, writeClipboard, type Element, type ElementShape } from '@wb/protocol';
import { embeddedImageHrefs, imageDataUri } from '../images/imageRefs.ts';
import { shapesSvgDocument } from './elementSvg.ts';
import { loadEquationRenderer } from './equationRenderer.ts';
import { centreOf, clampCoordinate, moveShapeTo, rotatedBounds, unionBounds, type Bounds, type Point } from './geometry.ts';

/** Duplicates (Ctrl+D) land this far right and down of their originals (board units). */
export const DUPLICATE_OFFSET = 24;

/** What one copy writes, per clipboard type. */
export interface ClipboardContent {
  /** `CLIPBOARD_MIME`: the whiteboard's own copy. */
  readonly elements: string;
  /** `image/svg+xml`: the shapes as an SVG document, for drawing apps. */
  readonly svg: string;
  /** The SVG's size and place (board units), to draw it as a PNG. */
  readonly bounds: Bounds;
  /** `text/plain`: the text of the copied text boxes and notes, or else the SVG's markup. */
  readonly text: string;
  readonly count: number;
}

/** The selected shapes in drawing order, at most MAX_CLIPBOARD_ELEMENTS (the bottom-most first). */
export function selectedShapes(ordered: readonly Element[], selection: ReadonlySet<string>): ElementShape[] {
  return ordered.filter((e) => selection.has(e.id)).slice(0, MAX_CLIPBOARD_ELEMENTS).map((e) => e.shape);
}

/**
 * A copy of these shapes for the clipboard, or null for none: what the copy event writes at once.
 * Its SVG draws images as placeholders (their pictures take a fetch: `clipboardPicture`).
 */
export function clipboardContent(shapes: readonly ElementShape[]): ClipboardContent | null {
  if (shapes.length === 0) return null;
  const { svg, bounds } = shapesSvgDocument(shapes);
  const texts = shapes.flatMap((s) => (s.kind === 'text' || s.kind === 'sticky') && s.text.trim() !== '' ? [s.text] : []);
  return { elements: writeClipboard(shapes), svg, bounds, text: texts.length > 0 ? texts.join('\n\n') : svg, count: shapes.length };
}

/**
 * The copy's picture for other apps, the SVG its PNG is drawn from: the same document as
 * `clipboardContent`'s (same bounds), with every image's picture inside it as a `data:` URI from
 * `dataUriOf` (by default the lesson's image library, which fetches with the session's token, as
 * the export does) and equations typeset. An image that cannot be had stays a placeholder.
 */
export async function clipboardPicture(
  shapes: readonly ElementShape[],
  dataUriOf: (sha256: string) => Promise<string | null> = imageDataUri,
): Promise<{ svg: string; bounds: Bounds }> {
  if (shapes.some((s) => s.kind === 'equation')) await loadEquationRenderer();
  return shapesSvgDocument(shapes, await embeddedImageHrefs(shapes, dataUriOf));
}

/** The shapes moved together by (dx, dy). */
export function shiftedBy(shapes: readonly ElementShape[], dx: number, dy: number): ElementShape[] {
  return shapes.map((s) => moveShapeTo(s, clampCoordinate(s.x + dx), clampCoordinate(s.y + dy)));
}

/** The shapes moved together so that the middle of what they cover lands on `at` (a paste at the pointer). */
export function placedAt(shapes: readonly ElementShape[], at: Point): ElementShape[] {
  const b = unionBounds(shapes.map(rotatedBounds));
  if (!b) return [];
  const c = centreOf(b);
  return shiftedBy(shapes, at.x - c.x, at.y - c.y);
}
