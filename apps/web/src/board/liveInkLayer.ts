import type { ElementShape } from '@wb/protocol';
import type { StoreApi } from 'zustand/vanilla';
import type { InkView } from '../connection/roomClient.ts';
import { shapeSvg } from '../elements/elementSvg.ts';
import type { LiveStroke } from '../sync/liveInk.ts';

const SVG_NS = 'http://www.w3.org/2000/svg';

/** A live stroke as a pen shape anchored at its first point: drawn exactly as its element will be. */
export function liveStrokeShape(stroke: LiveStroke): Extract<ElementShape, { kind: 'pen' }> | null {
  const first = stroke.points[0];
  if (!first) return null;
  const [ox, oy] = first;
  return {
    kind: 'pen',
    x: ox,
    y: oy,
    points: stroke.points.map(([x, y, p]): [number, number, number] => [x - ox, y - oy, p]),
    stroke: stroke.stroke,
    strokeWidth: stroke.strokeWidth,
  };
}

/**
 * Other people's strokes while they are drawn, in the element layer's SVG (board coordinates, so
 * pans and zooms move them with the board), between the elements and our own draft. Plain
 * TypeScript: ElementLayer.tsx mounts it on its `ink` group.
 *
 * Growth is drawn once per animation frame, however many batches arrive in it. A stroke whose
 * element just arrived leaves at once, in the task where the element layer draws the element (its
 * SVG node in that task, or its overview canvas on a frame requested just before), so no frame
 * shows both or neither: no double line, no flicker.
 */
export class LiveInkLayer {
  private readonly drawn = new Map<string, { readonly path: SVGGElement; stroke: LiveStroke }>();
  private frame: number | undefined;
  private readonly drawNow = () => this.draw();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly group: SVGGElement,
    private readonly ink: Pick<StoreApi<InkView>, 'getState' | 'subscribe'>,
  ) {
    this.unsubscribe = ink.subscribe(({ strokes }) => {
      // A stroke that ended goes now, in the task that drew its element (if it has one): the two
      // never share a frame. Growth waits for the frame.
      this.removeEnded(strokes);
      this.frame ??= requestAnimationFrame(this.drawNow);
    });
    this.draw();
  }

  dispose(): void {
    this.unsubscribe();
    if (this.frame !== undefined) cancelAnimationFrame(this.frame);
    this.group.replaceChildren();
    this.drawn.clear();
  }

  private removeEnded(strokes: ReadonlyMap<string, LiveStroke>): void {
    for (const [id, d] of this.drawn) {
      if (strokes.has(id)) continue;
      d.path.remove();
      this.drawn.delete(id);
    }
  }

  private draw(): void {
    this.frame = undefined;
    const { strokes } = this.ink.getState();
    this.removeEnded(strokes);
    for (const stroke of strokes.values()) {
      const d = this.drawn.get(stroke.strokeId);
      // Strokes are immutable: an unchanged object needs no new markup.
      if (d?.stroke === stroke) continue;
      const shape = liveStrokeShape(stroke);
      if (!shape) continue;
      const g = d?.path ?? document.createElementNS(SVG_NS, 'g');
      g.innerHTML = shapeSvg(shape);
      if (!d) {
        g.dataset.testid = 'live-stroke';
        g.dataset.strokeId = stroke.strokeId;
        g.dataset.userId = stroke.userId;
        this.group.append(g);
        this.drawn.set(stroke.strokeId, { path: g, stroke });
      } else d.stroke = stroke;
      g.dataset.points = String(stroke.points.length);
    }
  }
}
