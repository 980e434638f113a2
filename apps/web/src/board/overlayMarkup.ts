import { colorForUser, type Element, type ElementShape } from '@wb/protocol';
import type { DragPreview } from '../elements/boardEditor.ts';
import { escapeXml } from '../elements/elementSvg.ts';
import { centreOf, rotatedBounds, type Bounds } from '../elements/geometry.ts';
import { HANDLE_PX, RESIZE_HANDLES, handlePositions, selectionFrame, shapeFrame, shownShape, type Frame } from '../elements/transform.ts';
import { inRect } from './culling.ts';
import { labelTextColor } from './labelColor.ts';

/**
 * The overlay above the elements, as SVG markup in board coordinates: an outline in the holder's
 * colour with their name around an element someone else has locked (being dragged), a dashed
 * outline around the selection, a mark on pinned elements. Elements being dragged are outlined
 * where the drag shows them. Outlines keep their screen size at `zoom`, the zoom the layer is
 * drawn for; an outline of an element outside `culled` (and not being dragged) would be off screen
 * too, and is left out. With `handles`, the selection's frame gets its resize handles and the
 * rotate handle (transform.ts places them; toolInput.ts finds the one pressed).
 */
export function overlayMarkup(
  elements: ReadonlyMap<string, Element>,
  selection: ReadonlySet<string>,
  previews: ReadonlyMap<string, Pick<DragPreview, 'x' | 'y' | 'shape'>>,
  culled: Bounds,
  zoom: number,
  selfSessionId: string,
  nameOf: (userId: string) => string,
  /** Member colours (the server's assignment); someone not (yet) in the roster gets a fallback. */
  colorOf: (userId: string) => string = colorForUser,
  /** Draw the selection's handles (not for a person who cannot edit). */
  handles = false,
): string {
  const parts: string[] = [];
  const px = 1 / zoom;
  for (const e of elements.values()) {
    const lockedByOther = e.lock !== null && e.lock.sessionId !== selfSessionId;
    const selected = selection.has(e.id);
    if (!lockedByOther && !selected && !e.pinned) continue;
    const preview = previews.get(e.id);
    if (!preview && !inRect(e, culled)) continue;
    const shape = shownShape(e, preview);
    const b = rotatedBounds(shape);
    const pad = 6 * px;
    const x = b.x - pad;
    const y = b.y - pad;
    const w = b.w + 2 * pad;
    const h = b.h + 2 * pad;
    if (lockedByOther && e.lock) {
      const color = colorOf(e.lock.userId);
      const name = escapeXml(nameOf(e.lock.userId));
      parts.push(
        `<g data-testid="lock-outline" data-element-id="${e.id}" data-user-id="${e.lock.userId}">` +
          `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="${4 * px}" fill="none" stroke="${color}" stroke-width="${2 * px}"/>` +
          `<rect x="${x}" y="${y - 20 * px}" width="${Math.max(40, name.length * 7 + 14) * px}" height="${18 * px}" rx="${4 * px}" fill="${color}"/>` +
          `<text x="${x + 7 * px}" y="${y - 7 * px}" font-size="${12 * px}" font-weight="600" font-family="system-ui, sans-serif" fill="${labelTextColor(color)}">${name}</text></g>`,
      );
    } else if (selected) {
      // Around the element's own frame, turned with it.
      const f = shapeFrame(shape);
      parts.push(
        `<rect data-testid="selection-outline" data-element-id="${e.id}" x="${f.x - pad}" y="${f.y - pad}" width="${f.w + 2 * pad}" height="${f.h + 2 * pad}" rx="${4 * px}"${turn(f)} fill="none" stroke="#264de4" stroke-width="${1.5 * px}" stroke-dasharray="${4 * px} ${3 * px}"/>`,
      );
    }
    if (e.pinned) {
      parts.push(`<circle data-testid="pin-mark" data-element-id="${e.id}" cx="${x + w}" cy="${y}" r="${6 * px}" fill="#b42318" stroke="#ffffff" stroke-width="${1.5 * px}"/>`);
    }
  }
  // The selection's frame (several selected: one box around them all), moving with our drag.
  const shapes: ElementShape[] = [];
  for (const id of selection) {
    const e = elements.get(id);
    if (e) shapes.push(shownShape(e, previews.get(id)));
  }
  const frame = selectionFrame(shapes);
  if (frame && shapes.length > 1) {
    const pad = 12 * px;
    parts.push(
      `<rect data-testid="selection-box" x="${frame.x - pad}" y="${frame.y - pad}" width="${frame.w + 2 * pad}" height="${frame.h + 2 * pad}" fill="none" stroke="#264de4" stroke-width="${1 * px}"/>`,
    );
  }
  if (frame && handles) parts.push(handleMarkup(frame, zoom));
  return parts.join('');
}

/** ` transform="rotate(…)"` for a turned frame, else nothing. */
function turn(f: Frame): string {
  if (f.rotation === 0) return '';
  const c = centreOf(f);
  return ` transform="rotate(${f.rotation} ${c.x} ${c.y})"`;
}

/** The eight resize handles (squares, turned with the frame) and the rotate handle on its stem. */
function handleMarkup(frame: Frame, zoom: number): string {
  const px = 1 / zoom;
  const at = handlePositions(frame, zoom);
  const half = (HANDLE_PX / 2) * px;
  const top = at.n;
  const parts = [
    `<g data-testid="selection-handles">`,
    `<line x1="${top.x}" y1="${top.y}" x2="${at.rotate.x}" y2="${at.rotate.y}" stroke="#264de4" stroke-width="${px}"/>`,
    `<circle data-testid="handle" data-handle="rotate" cx="${at.rotate.x}" cy="${at.rotate.y}" r="${half + px}" fill="#ffffff" stroke="#264de4" stroke-width="${1.5 * px}"/>`,
  ];
  for (const h of RESIZE_HANDLES) {
    const p = at[h];
    const rot = frame.rotation === 0 ? '' : ` transform="rotate(${frame.rotation} ${p.x} ${p.y})"`;
    parts.push(
      `<rect data-testid="handle" data-handle="${h}" x="${p.x - half}" y="${p.y - half}" width="${2 * half}" height="${2 * half}"${rot} fill="#ffffff" stroke="#264de4" stroke-width="${1.5 * px}"/>`,
    );
  }
  parts.push('</g>');
  return parts.join('');
}
