import { useSyncExternalStore } from 'react';

/**
 * The compact layout: phones, and any window at 200 % zoom (a 1280 x 800 laptop at 200 % is
 * 640 x 400 CSS px). The style sheets (LessonPage.css and each component's own) use the same two
 * conditions; keep them together.
 */
export const COMPACT_LAYOUT = '(max-width: 720px), (max-height: 560px)';

/** Whether a media query matches now, re-rendering when it changes. */
export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const list = window.matchMedia(query);
      list.addEventListener('change', onChange);
      return () => list.removeEventListener('change', onChange);
    },
    () => window.matchMedia(query).matches,
  );
}
