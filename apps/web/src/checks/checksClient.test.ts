import { ClientEvent, timerRemainingMs, type Ack, type Timer } from '@wb/protocol';
import { describe, expect, test } from 'vitest';
import type { Request } from '../connection/request.ts';
import { CLOCK_SAMPLES, ChecksClient, estimateOffset } from './checksClient.ts';

/**
 * A screen whose clock is `skewMs` off the server's, talking over a link whose trips take the
 * given times (ms), one after another: `clock.now` is answered at the server's true time when the
 * request arrives. Everything else is refused.
 */
function screen(skewMs: number, trips: Array<{ up: number; down: number }>) {
  let trueNow = 1_700_000_000_000;
  let n = 0;
  const request = (async (event: string) => {
    if (event !== ClientEvent.CLOCK_NOW) return { ok: false, error: { code: 'bad_request', message: '' } };
    const trip = trips[n++ % trips.length]!;
    trueNow += trip.up;
    const serverNow = trueNow;
    trueNow += trip.down;
    return { ok: true, serverNow } as Ack<{ serverNow: number }>;
  }) as unknown as Request;
  const client = new ChecksClient(request, { role: 'student' }, () => trueNow + skewMs);
  return { client, trueNow: () => trueNow };
}

describe('the clock offset (checksClient.ts)', () => {
  test('T6: two screens whose clocks are 7 s and -3 s off, over lopsided links, count down within 100 ms of each other and of the server', async () => {
    // The worst sample's trips are lopsided (a slow way back); the best one is short.
    const a = screen(7_000, [{ up: 5, down: 180 }, { up: 3, down: 9 }, { up: 40, down: 40 }, { up: 2, down: 60 }, { up: 30, down: 2 }]);
    const b = screen(-3_000, [{ up: 90, down: 10 }, { up: 12, down: 1 }, { up: 25, down: 25 }, { up: 1, down: 70 }, { up: 8, down: 8 }]);
    await a.client.measureClock();
    await b.client.measureClock();
    for (const s of [a, b]) {
      const { offsetErrorMs } = s.client.view.getState();
      // The bound is half the best round trip (12 ms and 13 ms here), far inside 100 ms.
      expect(offsetErrorMs).not.toBeNull();
      expect(Math.abs(s.client.serverNow() - s.trueNow())).toBeLessThanOrEqual(offsetErrorMs!);
    }
    const timer: Timer = { status: 'running', endsAt: new Date(a.trueNow() + 60_000).toISOString(), remainingMs: null, durationMs: 60_000, freezeAtZero: false, sound: false };
    // b's true clock has moved on by its own trips; both are asked "how long left" at the same true moment.
    const left = (s: typeof a) => timerRemainingMs(timer, s.client.serverNow()) + (s.trueNow() - a.trueNow());
    expect(Math.abs(left(a) - left(b))).toBeLessThanOrEqual(100);
  });

  test('the sample with the shortest round trip decides; none measured, nothing estimated', () => {
    expect(estimateOffset([])).toBeNull();
    expect(
      estimateOffset([
        { sentAt: 0, receivedAt: 200, serverNow: 5_000 },
        { sentAt: 300, receivedAt: 310, serverNow: 5_305 },
      ]),
    ).toEqual({ offsetMs: 5_000, errorMs: 5 });
  });

  test(`a measurement takes ${CLOCK_SAMPLES} round trips and stops at a refusal`, async () => {
    let asked = 0;
    const refusing = (async () => {
      asked++;
      return { ok: false, error: { code: 'unavailable', message: '' } };
    }) as unknown as Request;
    const client = new ChecksClient(refusing, { role: 'teacher' });
    await client.measureClock();
    expect(asked).toBe(1);
    expect(client.view.getState().offsetErrorMs).toBeNull();
  });
});
