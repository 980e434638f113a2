/**
 * Who is idle: no input for a minute. Decided locally from what this client already receives,
 * asking nothing of the server: a remote user's activity is the arrival of their cursor packets
 * (a client re-sends its cursor on any input, keyboard too); our own is local input. Time comes in
 * as arguments (receive times on this clock only, never compared with another machine's, I2).
 */

/** No input for this long reads as idle (ms). */
export const IDLE_AFTER_MS = 60_000;

export class ActivityTracker {
  private readonly lastSeen = new Map<string, number>();

  constructor(private readonly idleAfterMs = IDLE_AFTER_MS) {}

  /** Input from `userId` (a cursor packet arrived, or our own input) at local time `at`. */
  noteActivity(userId: string, at: number): void {
    const prior = this.lastSeen.get(userId);
    if (prior === undefined || prior < at) this.lastSeen.set(userId, at);
  }

  /**
   * Users present now: one seen for the first time starts its idle clock here, so someone who
   * joins and never moves is idle a minute later, not at once.
   */
  notePresent(userIds: Iterable<string>, now: number): void {
    const present = new Set(userIds);
    for (const userId of present) if (!this.lastSeen.has(userId)) this.lastSeen.set(userId, now);
    // Forget people who left (I10); they start fresh if they come back.
    for (const userId of this.lastSeen.keys()) if (!present.has(userId)) this.lastSeen.delete(userId);
  }

  idleUsers(now: number): Set<string> {
    const idle = new Set<string>();
    for (const [userId, at] of this.lastSeen) if (now - at >= this.idleAfterMs) idle.add(userId);
    return idle;
  }
}

export function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const v of a) if (!b.has(v)) return false;
  return true;
}
