import type { Bounds } from '../elements/geometry.ts';
import { clampZoom, type Viewport } from './viewport.ts';

/**
 * The view that shows a board's content (issue 39's leftover: an imported worksheet opened with
 * its top under the top bar, and mostly off a phone's screen). Pure: the board's shell measures
 * the surface and the panels floating over it (firstView.ts) and asks here.
 *
 * - The panels that count are those docked over the board (the top bar, the tools, the board's
 *   actions, the pages strip, the attention bar, the zoom). A panel covering more than half the
 *   surface is a sheet over the board (the people panel on a phone), not a docked panel: left out.
 * - Content is in view when its box lies on the surface and under none of those panels.
 * - A fit finds the free rectangle of the surface (touching no panel) that holds the content at
 *   the largest zoom, and centres the content in it at that zoom, with FIT_MARGIN_PX around it:
 *   never above 100 % (a small drawing is not blown up) and within the zoom bounds (`clampZoom`).
 *   Beside a panel in a corner (the zoom on a phone) is as good as below it.
 *
 * Every side here is physical (left is left): the board does not mirror in a right-to-left
 * language (Board.tsx `dir="ltr"`), so a panel docked at the right in Arabic is measured where it is.
 */

export interface Size {
  readonly width: number;
  readonly height: number;
}

/** A rectangle on the board's surface, in its CSS pixels from its top-left corner. */
export interface ScreenRect {
  readonly left: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
}

/** Screen pixels kept clear around fitted content. */
export const FIT_MARGIN_PX = 16;

/**
 * A free rectangle narrower or shorter than this (CSS pixels) is too small to show content in:
 * when the panels leave none larger, the content is fitted to the whole surface (partly under
 * them, rather than into a sliver too small to read).
 */
export const MIN_FREE_PX = 96;

const overlaps = (a: ScreenRect, b: ScreenRect) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/** The panels that count: each clipped to the surface; those off it, empty, or sheets (see above) left out. */
export function dockedPanels(screen: Size, panels: readonly ScreenRect[]): ScreenRect[] {
  const docked: ScreenRect[] = [];
  for (const p of panels) {
    const r = { left: Math.max(0, p.left), top: Math.max(0, p.top), right: Math.min(screen.width, p.right), bottom: Math.min(screen.height, p.bottom) };
    if (r.right <= r.left || r.bottom <= r.top) continue;
    if ((r.right - r.left) * (r.bottom - r.top) > (screen.width * screen.height) / 2) continue;
    docked.push(r);
  }
  return docked;
}

/** The zoom at which `content` fits `area` with the margin around it, before the 100 % cap and `clampZoom`. */
function zoomToFill(content: Bounds, area: ScreenRect): number {
  // A line along one axis has no extent on the other: only the one it has limits the zoom.
  const across = content.w > 0 ? (area.right - area.left - 2 * FIT_MARGIN_PX) / content.w : Infinity;
  const down = content.h > 0 ? (area.bottom - area.top - 2 * FIT_MARGIN_PX) / content.h : Infinity;
  return Math.min(across, down);
}

/**
 * The free rectangle of the surface to show `content` in: of the rectangles bounded by the
 * surface's and the panels' edges that touch no panel and are at least MIN_FREE_PX each way, the
 * one that holds it at the largest zoom (up to 100 %); of equals, the largest. The whole surface
 * when the panels leave none.
 */
export function freeAreaFor(content: Bounds, screen: Size, panels: readonly ScreenRect[]): ScreenRect {
  const docked = dockedPanels(screen, panels);
  const whole = { left: 0, top: 0, right: screen.width, bottom: screen.height };
  // The edges a maximal free rectangle can have: a side of the surface or of a panel.
  const lefts = [0, ...docked.map((p) => p.right)];
  const rights = [screen.width, ...docked.map((p) => p.left)];
  const tops = [0, ...docked.map((p) => p.bottom)];
  const bottoms = [screen.height, ...docked.map((p) => p.top)];
  let best: { area: ScreenRect; zoom: number; size: number } | null = null;
  for (const left of lefts) {
    for (const right of rights) {
      if (right - left < MIN_FREE_PX) continue;
      for (const top of tops) {
        for (const bottom of bottoms) {
          if (bottom - top < MIN_FREE_PX) continue;
          const area = { left, top, right, bottom };
          if (docked.some((p) => overlaps(p, area))) continue;
          const zoom = Math.min(1, zoomToFill(content, area));
          const size = (right - left) * (bottom - top);
          if (!best || zoom > best.zoom + 1e-9 || (zoom > best.zoom - 1e-9 && size > best.size)) best = { area, zoom, size };
        }
      }
    }
  }
  return best?.area ?? whole;
}

/** Where `content` (board units) lies on the screen under `vp`. */
export function contentOnScreen(vp: Viewport, content: Bounds): ScreenRect {
  return { left: content.x * vp.zoom + vp.x, top: content.y * vp.zoom + vp.y, right: (content.x + content.w) * vp.zoom + vp.x, bottom: (content.y + content.h) * vp.zoom + vp.y };
}

/** Half a pixel: a box that reaches a panel's edge by rounding is not under it. */
const EDGE_SLACK_PX = 0.5;

/** Whether `vp` shows the whole of `content`: on the surface, and under none of the docked panels. */
export function showsContent(vp: Viewport, content: Bounds, screen: Size, panels: readonly ScreenRect[]): boolean {
  const c = contentOnScreen(vp, content);
  const s = EDGE_SLACK_PX;
  if (c.left < -s || c.top < -s || c.right > screen.width + s || c.bottom > screen.height + s) return false;
  const inner = { left: c.left + s, top: c.top + s, right: c.right - s, bottom: c.bottom - s };
  return dockedPanels(screen, panels).every((p) => !overlaps(p, inner));
}

/**
 * The view that holds `content` whole in the free area of the surface (freeAreaFor), centred in it:
 * the zoom at which it fits with FIT_MARGIN_PX around it, but never above 100 % and within
 * `clampZoom`'s bounds (content too large even at the least zoom is centred, its edges beyond).
 */
export function fitToContent(content: Bounds, screen: Size, panels: readonly ScreenRect[]): Viewport {
  const area = freeAreaFor(content, screen, panels);
  const zoom = clampZoom(Math.min(1, zoomToFill(content, area)));
  const cx = (area.left + area.right) / 2;
  const cy = (area.top + area.bottom) / 2;
  return { zoom, x: cx - (content.x + content.w / 2) * zoom, y: cy - (content.y + content.h / 2) * zoom };
}

/**
 * The view a board opens at, given its content and the view it has: null when there is no content
 * or `current` already shows it whole (left as it is), else the fitted view.
 */
export function openingView(content: Bounds | null, current: Viewport, screen: Size, panels: readonly ScreenRect[]): Viewport | null {
  if (!content || screen.width <= 0 || screen.height <= 0) return null;
  if (showsContent(current, content, screen, panels)) return null;
  return fitToContent(content, screen, panels);
}
