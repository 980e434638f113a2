import { useSyncExternalStore } from 'react';

/** The app has three pages; a router library would cost more than it saves. */
export type Route =
  | { readonly page: 'home' }
  | { readonly page: 'teacher' }
  | { readonly page: 'room'; readonly code: string }
  /** A share link's read-only view of an ended lesson (share/SharedLessonPage.tsx). */
  | { readonly page: 'shared'; readonly token: string }
  | { readonly page: 'not_found' };

export function parseRoute(pathname: string): Route {
  if (pathname === '/' || pathname === '') return { page: 'home' };
  if (pathname === '/teacher' || pathname === '/teacher/') return { page: 'teacher' };
  const room = /^\/r\/([^/]+)\/?$/.exec(pathname);
  if (room?.[1]) return { page: 'room', code: decodeURIComponent(room[1]).toUpperCase() };
  // The token is case-sensitive (base64url): kept as it is.
  const shared = /^\/shared\/([A-Za-z0-9_-]+)\/?$/.exec(pathname);
  if (shared?.[1]) return { page: 'shared', token: shared[1] };
  return { page: 'not_found' };
}

const listeners = new Set<() => void>();

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

export function usePathname(): string {
  return useSyncExternalStore(subscribe, () => location.pathname);
}

export function roomPath(code: string): string {
  return `/r/${encodeURIComponent(code)}`;
}

/** The join link: `base` is where students open the app (GET /api/join-address), this page's origin by default. */
export function roomLink(code: string, base: string = location.origin): string {
  return `${base}${roomPath(code)}`;
}
