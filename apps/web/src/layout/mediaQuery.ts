import { useSyncExternalStore } from 'react';

/**
 * The compact layout: phones, and any window at 200 % zoom (a 1280 x 800 laptop at 200 % is
 * 640 x 400 CSS px). The style sheets (LessonPage.css and each component's own) use the same two
 * conditions; keep them together.
 */
export const COMPACT_LAYOUT = '(max-width: 720px), (max-height: 560px)';

/**
 * A laptop's window and up: the top bar has room for "Show the code" beside "More", and the pages
 * strip for the class's pacing beside its page actions, with the side panel open (LessonPage.css).
 */
export const ROOMY_LAYOUT = '(min-width: 1101px) and (min-height: 561px)';

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
