import { useCallback, useState } from 'react';

/** Where the side panel starts open when nobody chose: wide enough that the board keeps most of the screen. */
const OPEN_BY_DEFAULT = '(min-width: 1100px) and (min-height: 600px)';

/** Where the open panel is a sheet over the whole board (LessonPage.css, the compact layout). */
export const PANEL_IS_SHEET = '(max-width: 720px), (max-height: 560px)';

const key = (userId: string) => `wb.panel.${userId}`;

function remembered(userId: string): boolean | null {
  try {
    const value = localStorage.getItem(key(userId));
    return value === 'open' ? true : value === 'closed' ? false : null;
  } catch {
    return null;
  }
}

/**
 * Whether the lesson's side panel (invite, lobby, people) is open: the member's last choice in this
 * browser, else open on a wide screen and closed on a tablet, a phone or at 200 % zoom.
 */
export function usePanelOpen(userId: string): [boolean, (open: boolean) => void] {
  const [open, setOpenState] = useState(() => remembered(userId) ?? window.matchMedia(OPEN_BY_DEFAULT).matches);
  const setOpen = useCallback(
    (next: boolean) => {
      setOpenState(next);
      try {
        localStorage.setItem(key(userId), next ? 'open' : 'closed');
      } catch {
        // Storage refused: the choice lasts for this page.
      }
    },
    [userId],
  );
  return [open, setOpen];
}
