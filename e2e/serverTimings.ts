/**
 * The shared e2e server's presence timings (playwright.config.ts starts it with these), shorter
 * than production's so a departure shows within seconds. Tests derive their bounds from them.
 */
export const E2E_SERVER_TIMINGS = {
  /** A lease's term: a page that stops renewing is expired this long after its last renewal. */
  LEASE_TTL_MS: 4_000,
  /** The server prompts a renewal this often. */
  LEASE_RENEW_MS: 1_000,
  /** The sweeper looks for expired leases this often. */
  SWEEP_INTERVAL_MS: 250,
} as const;
