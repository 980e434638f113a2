import { sql, type SQL } from 'drizzle-orm';

/**
 * Where "now" comes from for every comparison against time (I2). Production uses the database's
 * own `now()`, so a node whose clock is off cannot expire anyone; tests freeze it.
 */
export interface Clock {
  /** An SQL expression of type timestamptz. */
  now(): SQL;
}

/** `ms` milliseconds after the clock's now, as timestamptz: where a lease, lock or session term of that length ends. */
export function msFromNow(clock: Clock, ms: number): SQL {
  return sql`${clock.now()} + ${ms}::int8 * interval '1 millisecond'`;
}

export const databaseClock: Clock = {
  now: () => sql`now()`,
};

/** A clock that stands still until told to move. For tests and the fault-injection harness. */
export class FrozenClock implements Clock {
  constructor(private at: Date) {}

  now(): SQL {
    return sql`${this.at.toISOString()}::timestamptz`;
  }

  get current(): Date {
    return new Date(this.at);
  }

  set(at: Date): void {
    this.at = new Date(at);
  }

  advance(ms: number): void {
    this.at = new Date(this.at.getTime() + ms);
  }
}
