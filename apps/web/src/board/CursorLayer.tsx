import './CursorLayer.css';
import { useEffect, useRef } from 'react';
import type { StoreApi } from 'zustand/vanilla';
import type { CursorView } from '../connection/roomClient.ts';
import { isSettled, smoothToward } from './cursorSmoothing.ts';
import { labelTextColor } from './labelColor.ts';
import { boardToScreen, type Point, type Viewport } from './viewport.ts';

interface DrawnCursor {
  readonly el: HTMLDivElement;
  readonly label: HTMLSpanElement;
  userId: string;
  pos: Point;
  target: Point;
  /** The transform last written to `el`. */
  transform: string;
}

interface CursorLayerProps {
  cursors: StoreApi<CursorView>;
  viewport: StoreApi<Viewport>;
  /** The current display name of a user (names can change with a rejoin). */
  nameOf: (userId: string) => string;
  /** A member's colour, as the server assigned it. */
  colorOf: (userId: string) => string;
  /** This person hid others' cursors on their own screen. */
  hidden?: boolean;
  /**
   * Whose cursors this board shows (all when absent): the class board leaves out students while
   * their activity keeps them on their own boards, where their pointer is (LessonPage.tsx).
   */
  shows?: (userId: string) => boolean;
}

/**
 * Other people's cursors. React renders only the empty layer; cursors are DOM nodes created,
 * moved and removed from store subscriptions and one requestAnimationFrame loop, so thirty
 * moving cursors never re-render the board (STYLE: fast state through refs and transforms).
 */
export function CursorLayer({ cursors, viewport, nameOf, colorOf, hidden = false, shows }: CursorLayerProps) {
  const layerRef = useRef<HTMLDivElement>(null);
  const showsRef = useRef(shows);
  showsRef.current = shows;
  const resyncRef = useRef<() => void>(() => {});
  const nameOfRef = useRef(nameOf);
  nameOfRef.current = nameOf;
  const colorOfRef = useRef(colorOf);
  colorOfRef.current = colorOf;

  useEffect(() => {
    const layer = layerRef.current;
    if (!layer) return;
    const drawn = new Map<string, DrawnCursor>();
    let frame = 0;
    let lastFrameAt = 0;

    const place = (c: DrawnCursor) => {
      const s = boardToScreen(viewport.getState(), c.pos);
      const transform = `translate3d(${s.x}px, ${s.y}px, 0)`;
      // A settled cursor is placed every frame while others move: write only what changed.
      if (c.transform === transform) return;
      c.transform = transform;
      c.el.style.transform = transform;
    };

    const animate = (at: number) => {
      const dt = lastFrameAt === 0 ? 16 : at - lastFrameAt;
      lastFrameAt = at;
      let moving = false;
      for (const c of drawn.values()) {
        if (isSettled(c.pos, c.target)) c.pos = c.target;
        else {
          c.pos = smoothToward(c.pos, c.target, dt);
          moving = true;
        }
        place(c);
      }
      frame = moving ? requestAnimationFrame(animate) : 0;
      if (!moving) lastFrameAt = 0;
    };
    const wake = () => {
      if (frame === 0) frame = requestAnimationFrame(animate);
    };

    const sync = ({ targets }: CursorView) => {
      const show = showsRef.current;
      for (const [sessionId, c] of drawn) {
        // Gone from the engine means its presence ended: remove at once, no fade that could
        // read as "still here". A cursor this board does not show goes the same way.
        const target = targets.get(sessionId);
        if (!target || (show && !show(target.userId))) {
          c.el.remove();
          drawn.delete(sessionId);
        }
      }
      for (const target of targets.values()) {
        if (show && !show(target.userId)) continue;
        const existing = drawn.get(target.sessionId);
        if (existing) {
          existing.target = { x: target.x, y: target.y };
          if (existing.userId !== target.userId) {
            existing.userId = target.userId;
            existing.el.dataset.userId = target.userId;
          }
          // Text is layout: setting it, even to the same string, dirties layout for the whole
          // document on every cursor batch (30 Hz), so write it only when the name changed.
          const name = nameOfRef.current(target.userId);
          if (existing.label.textContent !== name) existing.label.textContent = name;
        } else {
          const c = createCursor(target.sessionId, target.userId, nameOfRef.current(target.userId), colorOfRef.current(target.userId));
          // A new cursor appears where it is, rather than flying in from the origin.
          c.pos = { x: target.x, y: target.y };
          c.target = c.pos;
          layer.append(c.el);
          drawn.set(target.sessionId, c);
          place(c);
        }
      }
      wake();
    };

    sync(cursors.getState());
    resyncRef.current = () => sync(cursors.getState());
    const unsubscribeCursors = cursors.subscribe(sync);
    const unsubscribeViewport = viewport.subscribe(() => {
      for (const c of drawn.values()) place(c);
    });
    return () => {
      unsubscribeCursors();
      unsubscribeViewport();
      cancelAnimationFrame(frame);
      for (const c of drawn.values()) c.el.remove();
    };
  }, [cursors, viewport]);
  // Whose cursors are shown changed (an activity began or ended): drawn again at once.
  useEffect(() => resyncRef.current(), [shows]);

  return <div ref={layerRef} className="layer layer-cursors" aria-hidden="true" hidden={hidden} />;
}

function createCursor(sessionId: string, userId: string, name: string, color: string): DrawnCursor {
  const el = document.createElement('div');
  el.className = 'cursor';
  el.dataset.testid = 'cursor';
  el.dataset.userId = userId;
  el.dataset.sessionId = sessionId;
  el.style.setProperty('--cursor-color', color);
  el.style.setProperty('--cursor-text', labelTextColor(color));
  // The arrow is static markup; the name goes in as text, never as HTML.
  el.innerHTML =
    '<svg class="cursor-arrow" width="18" height="22" viewBox="0 0 18 22" aria-hidden="true">' +
    '<path d="M1.5 1.5 L1.5 18 L6 13.8 L9.2 20.5 L12.2 19.1 L9.1 12.6 L15.5 12.4 Z" /></svg>';
  const label = document.createElement('span');
  label.className = 'cursor-label';
  // A name in Arabic or Hebrew reads in its own direction, whatever the page's.
  label.dir = 'auto';
  label.textContent = name;
  el.append(label);
  return { el, label, userId, pos: { x: 0, y: 0 }, target: { x: 0, y: 0 }, transform: '' };
}
