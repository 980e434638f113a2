import { useCallback, useLayoutEffect, type RefObject } from 'react';
import { create } from 'zustand';

/**
 * What holds the top of the board in the compact layout (a phone, 200 % zoom), under the lesson's
 * bar: the board's actions, which wrap to two or three rows (a teacher's edit policy and paper on
 * a phone, a selection's author, Pin and Break lock), and under them the pages strip. Each reports
 * its size as it is now, and the lesson puts the sizes on its element as CSS variables, so what
 * stands below follows them instead of a fixed offset (a second row of actions once covered the
 * strip and its page actions):
 *
 *   --board-actions-bottom  the actions' bottom edge, px from the window's top (0 when none)
 *   --pages-strip-height    the strip's height, px (0 when none)
 *
 * LessonPage.css derives the strip's top and what stands below the strip from them.
 */
export const topDock = create<{ boardActionsBottom: number; pagesStripHeight: number }>(() => ({ boardActionsBottom: 0, pagesStripHeight: 0 }));

type TopDockEdge = 'boardActionsBottom' | 'pagesStripHeight';

/**
 * A ref for the element that keeps `topDock[edge]` equal to its bottom edge or height as laid out
 * now, from when it appears (the strip comes and goes with the lesson's pages) to when it goes (0).
 */
export function useTopDockRef(edge: TopDockEdge): (el: HTMLElement | null) => (() => void) | undefined {
  return useCallback(
    (el: HTMLElement | null) => {
      if (!el) return undefined;
      const report = () => {
        const box = el.getBoundingClientRect();
        topDock.setState({ [edge]: Math.round(edge === 'boardActionsBottom' ? box.bottom : box.height) });
      };
      report();
      // Old engines without ResizeObserver keep the size it had when it appeared.
      const observer = typeof ResizeObserver === 'function' ? new ResizeObserver(report) : null;
      observer?.observe(el);
      // A window turned or zoomed moves it without resizing it.
      window.addEventListener('resize', report);
      return () => {
        observer?.disconnect();
        window.removeEventListener('resize', report);
        topDock.setState({ [edge]: 0 });
      };
    },
    [edge],
  );
}

/** Writes the top dock's sizes on the element as the CSS variables above, as they change, without re-rendering it. */
export function useTopDockVariables(ref: RefObject<HTMLElement | null>): void {
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const write = ({ boardActionsBottom, pagesStripHeight }: { boardActionsBottom: number; pagesStripHeight: number }) => {
      el.style.setProperty('--board-actions-bottom', `${boardActionsBottom}px`);
      el.style.setProperty('--pages-strip-height', `${pagesStripHeight}px`);
    };
    write(topDock.getState());
    return topDock.subscribe(write);
  }, [ref]);
}
