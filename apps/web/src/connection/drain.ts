/** A draining server's reconnect window is honoured up to this (ms), whatever it asks. */
export const DRAIN_WINDOW_MAX_MS = 60_000;

/**
 * When to leave a draining server (ms from now): a uniform random moment in its window, so the
 * node's students arrive on the other nodes spread over the window instead of in one second.
 */
export function drainReconnectDelay(windowMs: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.max(0, Math.min(windowMs, DRAIN_WINDOW_MAX_MS)));
}
