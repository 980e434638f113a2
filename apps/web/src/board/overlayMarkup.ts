import { colorForUser, type Element } from '@wb/protocol';
import type { DragPreview } from '../elements/boardEditor.ts';
import { escapeXml } from '../elements/elementSvg.ts';
import { shapeBounds, type Bounds } from '../elements/geometry.ts';
import { selectionBounds } from '../elements/selection.ts';
import { inRect } from './culling.ts';
import { labelTextColor } from './labelColor.ts';

/**
 * The overlay above the elements, as SVG markup in board coordinates: an outline in the holder's
 * colour with their name around an element someone else has locked (being dragged), a dashed
 * outline around the selection, a mark on pinned elements. Elements being dragged are outlined
 * where the drag shows them. Outlines keep their screen size at `zoom`, the zoom the layer is
 * drawn for; an outline of an element outside `culled` (and not being dragged) would be off screen
 * too, and is left out.
 */
export function overlayMarkup(
  elements: ReadonlyMap<string, Element>,
  selection: ReadonlySet<string>,
  previews: ReadonlyMap<string, Pick<DragPreview, 'x' | 'y'>>,
  culled: Bounds,
  zoom: number,
  selfSessionId: string,
  nameOf: (userId: string) => string,
  /** Member colours (the server's assignment); someone not (yet) in the roster gets a fallback. */
  colorOf: (userId: string) => string = colorForUser,
): string {
  const parts: string[] = [];
  const px = 1 / zoom;
  for (const e of elements.values()) {
    const lockedByOther = e.lock !== null && e.lock.sessionId !== selfSessionId;
    const selected = selection.has(e.id);
    if (!lockedByOther && !selected && !e.pinned) continue;
    const preview = previews.get(e.id);
    if (!preview && !inRect(e, culled)) continue;
    const b = shapeBounds(e.shape);
    const pad = 6 * px;
    const x = b.x - pad + (preview ? preview.x - e.shape.x : 0);
    const y = b.y - pad + (preview ? preview.y - e.shape.y : 0);
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
      parts.push(
        `<rect data-testid="selection-outline" data-element-id="${e.id}" x="${x}" y="${y}" width="${w}" height="${h}" rx="${4 * px}" fill="none" stroke="#264de4" stroke-width="${1.5 * px}" stroke-dasharray="${4 * px} ${3 * px}"/>`,
      );
    }
    if (e.pinned) {
      parts.push(`<circle data-testid="pin-mark" data-element-id="${e.id}" cx="${x + w}" cy="${y}" r="${6 * px}" fill="#b42318" stroke="#ffffff" stroke-width="${1.5 * px}"/>`);
    }
  }
  // Several selected: one box around them all, moving with our drag.
  const around = selection.size > 1 ? selectionBounds(elements, selection, previews) : null;
  if (around) {
    const pad = 12 * px;
    parts.push(
      `<rect data-testid="selection-box" x="${around.x - pad}" y="${around.y - pad}" width="${around.w + 2 * pad}" height="${around.h + 2 * pad}" fill="none" stroke="#264de4" stroke-width="${1 * px}"/>`,
    );
  }
  return parts.join('');
}
