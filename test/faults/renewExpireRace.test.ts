/**
 * Race: a renewal committing at the instant of expiry, on two real Postgres connections. The sweeper
 * has read the lease at revision r as expired (the clock is 1 ms before, at, or 1 ms after its term
 * end); at the same moment the session renews to r + 1 on another connection. Exactly one of the two
 * may win (I3, I5): a renewal that was accepted is never followed by the expiry of the revision it
 * replaced, so no live session is expired. What is judged is each side's decision and what the
 * winner hands its caller to publish, against the lease row and the room log after the run; not the
 * count of attendance rows, whose unique event id would hide a second publisher anyway.
 */
import { FrozenClock, createStore, openDatabase, type Database, type Store } from '@wb/db';
import { afterAll, describe, expect, test } from 'vitest';
import { CLOCK_START, LEASE_TTL_MS, leaseAt, requestId, seatStudent, storedLease } from '../../packages/db/test/fixtures.ts';
import { reportFigures } from './support/results.ts';
import { createScratchDatabase, postgresSkipReason, type ScratchDatabase } from './support/serverProcess.ts';

const RUNS = Number(process.env.FAULTS_RACE_RUNS ?? 10_000);
/** Independent sessions racing side by side, each on its own pair of connections' turns. */
const LANES = 4;
const skip = postgresSkipReason();

describe.skipIf(skip !== null)(`renewal at the instant of expiry on two Postgres connections${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const databases: Database[] = [];
  let scratch: ScratchDatabase | null = null;
  afterAll(async () => {
    for (const d of databases) await d.close().catch(() => {});
    await scratch?.drop().catch(() => {});
  });

  test(`${RUNS} runs of renew vs expire: live sessions expired = 0, exactly one winner every run`, async () => {
    scratch = await createScratchDatabase();
    const clock = new FrozenClock(CLOCK_START);
    const open = async () => {
      const d = await openDatabase({ kind: 'postgres', url: scratch!.url, poolSize: LANES + 1 });
      databases.push(d);
      return d;
    };
    const renewerDb = await open();
    const renewer: Store = createStore(renewerDb, clock);
    const sweeper: Store = createStore(await open(), clock);
    const lanes = await Promise.all(
      Array.from({ length: LANES }, async () => {
        const seat = await seatStudent(renewer);
        await leaseAt(renewer, seat, 1);
        return { seat, revision: 1 };
      }),
    );
    const tally = { runs: 0, renewWon: 0, expireWon: 0, both: 0, neither: 0, reopened: 0 };
    /** Decisions that disagree with the lease row or with what the winner was handed to publish. */
    const wrong: string[] = [];
    /** The events the sweeper's won deletes handed back to publish (its caller publishes exactly these). */
    const published: string[] = [];
    const started = Date.now();
    for (let round = 0; round * LANES < RUNS; round++) {
      // Every lease was last written a whole term ago, give or take a millisecond.
      clock.advance(LEASE_TTL_MS + ((round % 3) - 1));
      await Promise.all(
        lanes.map(async (lane) => {
          if (tally.runs >= RUNS) return;
          tally.runs++;
          const lease = { roomId: lane.seat.roomId, userId: lane.seat.userId, sessionId: lane.seat.sessionId, revision: lane.revision };
          const renew = () =>
            renewer.renewLeases([{ sessionId: lane.seat.sessionId, revision: lane.revision + 1, requestId: requestId('race') }], LEASE_TTL_MS);
          const expire = () => sweeper.deleteLeaseIfRevision(lease);
          // Each side leaves first in every other round.
          const [renewal, expiry] =
            round % 2 === 0 ? await Promise.all([renew(), expire()]) : await Promise.all([expire(), renew()]).then(([e, r]) => [r, e] as const);
          const accepted = renewal[0]?.decision === 'accepted';
          if (accepted && expiry.won) tally.both++;
          else if (accepted) tally.renewWon++;
          else if (expiry.won) tally.expireWon++;
          else tally.neither++;
          const run = `round ${round}, ${lane.seat.sessionId} at revision ${lane.revision}`;
          const row = await storedLease(renewerDb, lane.seat.sessionId);
          if (expiry.won) {
            // The delete's winner is handed exactly one expiry, of the revision it read, to publish;
            // the renewal it beat found no lease, and none is left.
            published.push(...expiry.events.map((e) => e.eventId));
            const expired = expiry.events.filter((e) => e.kind === 'presence.expired');
            if (expiry.events.length !== 1 || expired.length !== 1) wrong.push(`${run}: the winner was handed ${expiry.events.map((e) => e.kind).join(', ')}`);
            else if (expired[0]!.payload.sessionId !== lane.seat.sessionId || expired[0]!.payload.revision !== lane.revision) wrong.push(`${run}: the winner was handed another lease's expiry`);
            // Beaten before its statement began (no lease) or while it waited on the row (the
            // revision it read is gone): either way refused, never accepted.
            if (!['no_lease', 'ignored_old_revision'].includes(renewal[0]?.decision ?? '')) wrong.push(`${run}: the beaten renewal was answered ${renewal[0]?.decision}`);
            if (row !== null) wrong.push(`${run}: a lease at revision ${row.revision} survived its won delete`);
          } else if (accepted && row?.revision !== lane.revision + 1) {
            wrong.push(`${run}: the accepted renewal left the lease at ${row?.revision ?? 'nothing'}`);
          }
          if (accepted) lane.revision += 1;
          if (expiry.won || !accepted) {
            const opened = await renewer.openLease({ sessionId: lane.seat.sessionId, ttlMs: LEASE_TTL_MS, requestId: requestId('reopen') });
            if (opened.decision === 'not_a_member') throw new Error('seat lost its membership');
            tally.reopened++;
            lane.revision = opened.lease.revision;
          }
        }),
      );
      // Renewed and reopened leases now end a whole term from this instant.
    }
    // The room logs hold exactly the expiries the won deletes handed out: a lost delete wrote none.
    const logged: string[] = [];
    for (const lane of lanes) {
      const log = await renewer.eventsAfter(lane.seat.roomId, 0, 100_000);
      if (log.kind !== 'replay') throw new Error(`log: ${log.kind}`);
      logged.push(...log.events.filter((e) => e.kind === 'presence.expired').map((e) => e.eventId));
    }
    reportFigures('renewal at the instant of expiry', {
      'live sessions expired': tally.both,
      'runs with no winner': tally.neither,
      runs: tally.runs,
      'renewal won': tally.renewWon,
      'expiry won': tally.expireWon,
      'expiries published / logged': `${published.length} / ${logged.length}`,
      'decisions disagreeing with the lease row': wrong.length,
      'wall time (s)': Math.round((Date.now() - started) / 100) / 10,
    });
    // A race, not a foregone result: each side won some runs.
    expect(tally.renewWon).toBeGreaterThan(0);
    expect(tally.expireWon).toBeGreaterThan(0);
    expect(tally.both).toBe(0);
    expect(tally.neither).toBe(0);
    expect(wrong.slice(0, 5).join("\n")).toBe("");
    expect(published.sort()).toEqual(logged.sort());
    // 30,000-odd transactions: 40 s alone, 122 s in a CI run, over 180 s once on a machine loaded
    // past its cores; a correctness test, so its limit only guards against a hang.
  }, 480_000);
});
