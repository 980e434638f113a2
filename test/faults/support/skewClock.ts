/**
 * Preload (`node --import tsx --import ./skewClock.ts`) that shifts this process's wall clock by
 * FAULT_CLOCK_OFFSET_MS: Date.now() and `new Date()` both run ahead (or behind). Monotonic timers
 * (setTimeout, performance.now) are untouched, as on a machine whose clock is simply set wrong.
 */
const offset = Number(process.env.FAULT_CLOCK_OFFSET_MS ?? 0);
const RealDate = Date;

class SkewedDate extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) super(RealDate.now() + offset);
    else super(...(args as [number, number, number?, number?, number?, number?, number?]));
  }

  static override now(): number {
    return RealDate.now() + offset;
  }
}

globalThis.Date = SkewedDate as DateConstructor;
