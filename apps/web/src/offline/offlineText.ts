/**
 * Every word the offline features show, in one place (the interface's catalogs take them from
 * here). Plain functions where a number goes in.
 */
export const offlineText = {
  /** A reload brought back edits this device kept: they go when the connection is back. */
  restored: (count: number) =>
    count === 1
      ? '1 change made before the page reloaded was kept on this device. It is sent when the connection is back.'
      : `${count} changes made before the page reloaded were kept on this device. They are sent when the connection is back.`,
  /** Offline, on a page a service worker keeps (offline/appShell.ts): a reload opens from this device. */
  keptWithShell: 'Your changes are kept on this device, even if the page reloads. They are sent when the connection is back.',
  /** Offline, where no service worker may run (plain HTTP at a school address): the page itself needs the network. */
  keptNeedsNetwork: 'Your changes are kept on this device. Reloading this page needs the network: wait for it before you reload.',
  /** Offline, and this browser keeps nothing (no storage): only this tab holds the changes. */
  tabOnly: 'Your changes are only in this tab until the connection is back. Do not close or reload it.',
} as const;
