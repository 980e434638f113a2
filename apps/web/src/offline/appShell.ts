import { useSyncExternalStore } from 'react';

/**
 * The app shell (index.html, scripts, styles, icons) cached by a service worker, so a reload
 * without network opens the lesson from this device. Built by vite-plugin-pwa with Workbox
 * (apps/web/vite.config.ts): it precaches the build's hashed files from the build's own list and
 * removes those of older builds, which a hand-written worker would have to get right by itself.
 *
 * A service worker runs only in a secure context (HTTPS, or localhost). A school's laptop serving
 * the app over plain HTTP at its LAN address is not one (I15): there nothing is registered, edits
 * are still kept on the device (deviceStore.ts) and the page says that a reload needs the network.
 * This file is the one place that touches `navigator.serviceWorker` (the lint rule sends others here).
 */

/** Whether this origin may have a service worker at all. */
export function shellMayBeCached(): boolean {
  return typeof navigator !== 'undefined' && 'serviceWorker' in navigator && window.isSecureContext;
}

/** Registers the built service worker where the origin allows it; a failure leaves the page as it is without one. */
export function registerAppShell(): void {
  // The dev server builds no worker (and its modules must not be cached).
  if (!import.meta.env.PROD || !shellMayBeCached()) return;
  const register = () => void navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => {});
  // After the page's own loading, so the precache downloads do not compete with the first render.
  if (document.readyState === 'complete') register();
  else window.addEventListener('load', register, { once: true });
}

/** Whether a reload of this page opens from this device: a service worker controls it now. */
function shellIsCached(): boolean {
  return shellMayBeCached() && navigator.serviceWorker.controller !== null;
}

function subscribe(onChange: () => void): () => void {
  if (!shellMayBeCached()) return () => {};
  navigator.serviceWorker.addEventListener('controllerchange', onChange);
  return () => navigator.serviceWorker.removeEventListener('controllerchange', onChange);
}

/** React: true once a reload of this page would open from the cache. */
export function useShellCached(): boolean {
  return useSyncExternalStore(subscribe, shellIsCached, () => false);
}
