/**
 * Fault: one node's clock is 5 minutes ahead and another's 5 minutes behind, both on one Postgres.
 * Expiry is decided by the database clock (I2): renewing students are never expired, and a silent
 * one is expired one term after its last renewal by the database's time, whichever node sweeps.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { attendance } from './support/board.ts';
import { FaultClient, createRoom, joinRoom } from './support/client.ts';
import { reportFigures } from './support/results.ts';
import {
  FAULT_TIMINGS,
  createScratchDatabase,
  killAll,
  postgresSkipReason,
  repoRoot,
  spawnServer,
  waitFor,
} from './support/serverProcess.ts';

const SKEW_MS = 5 * 60_000;
const skip = postgresSkipReason();
const preload = [join(repoRoot, 'test/faults/support/skewClock.ts')];

describe.skipIf(skip !== null)(`one node's clock 5 min off (real Postgres)${skip ? ` (skipped: ${skip})` : ''}`, () => {
  const clients: FaultClient[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of clients) c.close();
    await killAll();
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  });

  test('nodes 5 min ahead and 5 min behind: the database clock decides, wrong expiries = 0', async () => {
    const db = await createScratchDatabase();
    cleanups.push(db.drop);
    // The node ahead starts first and leads the sweep; the one behind takes over when it stops.
    const ahead = await spawnServer({ databaseUrl: db.url, preload, env: { FAULT_CLOCK_OFFSET_MS: String(SKEW_MS) } });
    const behind = await spawnServer({ databaseUrl: db.url, preload, env: { FAULT_CLOCK_OFFSET_MS: String(-SKEW_MS) } });
    const healthAhead = (await (await fetch(`${ahead.url}/healthz`)).json()) as { sweeperLeader: boolean };

    const teacher = await createRoom(ahead.url);
    const grant = (name: string) => joinRoom(ahead.url, teacher.room.code, name);
    const [renewA, renewB, silentC, silentD] = await Promise.all(['Ana', 'Ben', 'Cat', 'Dev'].map(grant));
    const connect = (url: string, g: Awaited<ReturnType<typeof grant>>, renew: boolean) => {
      const c = new FaultClient(url, g, { renew });
      clients.push(c);
      return c;
    };
    const t = connect(ahead.url, teacher, true);
    const a = connect(ahead.url, renewA!, true);
    const b = connect(behind.url, renewB!, true);
    const c = connect(behind.url, silentC!, false); // a lid closed on the node behind
    const d = connect(ahead.url, silentD!, false); // a lid closed on the node ahead
    await Promise.all([t, a, b, c, d].map((x) => x.ready()));

    const expiredOf = async (sessionId: string) => (await attendance(ahead.url, teacher)).filter((f) => f.sessionId === sessionId && f.kind === 'lease_expired');
    await waitFor(async () => (await expiredOf(c.sessionId)).length > 0 && (await expiredOf(d.sessionId)).length > 0, 'the silent students to expire', 20_000);
    // Two more terms with the renewing students still answering.
    await new Promise((done) => setTimeout(done, 2 * FAULT_TIMINGS.LEASE_TTL_MS));

    // The leader stops; the node behind sweeps alone from now on. Another lid closes on it.
    await ahead.stop();
    // Its clients reconnect to the other node (as behind a load balancer) and keep their sessions.
    const t2 = connect(behind.url, teacher, true);
    const a2 = connect(behind.url, renewA!, true);
    await Promise.all([t2.ready(), a2.ready()]);
    const silentE = await joinRoom(behind.url, teacher.room.code, 'Eve');
    const e = connect(behind.url, silentE, false);
    await e.ready();
    const factsVia = async () => attendance(behind.url, teacher);
    await waitFor(async () => (await factsVia()).some((f) => f.sessionId === e.sessionId && f.kind === 'lease_expired'), 'the node behind to expire Eve', 20_000);
    const healthBehind = (await (await fetch(`${behind.url}/healthz`)).json()) as { sweeperLeader: boolean };

    // One term more with everyone reconnected: a renewing student expired by the node behind would show now.
    await new Promise((done) => setTimeout(done, FAULT_TIMINGS.LEASE_TTL_MS + 1_000));
    const facts = await factsVia();
    const at = (sessionId: string, kind: string) => facts.filter((f) => f.sessionId === sessionId && f.kind === kind).map((f) => Date.parse(f.at));
    const termByDatabase = (sessionId: string) => at(sessionId, 'lease_expired')[0]! - at(sessionId, 'joined')[0]!;
    const silent = [c, d, e].map((x) => ({ who: x.grant.displayName, afterMs: termByDatabase(x.sessionId), expiries: at(x.sessionId, 'lease_expired').length }));
    const renewing = [t, a, b];
    const renewingExpired = renewing.filter((x) => at(x.sessionId, 'lease_expired').length > 0).length;
    const early = silent.filter((s) => s.afterMs < FAULT_TIMINGS.LEASE_TTL_MS).length;
    // A 5 min skew would be off by minutes; 5 s of slack absorbs a loaded machine's late sweeps.
    const late = silent.filter((s) => s.afterMs > FAULT_TIMINGS.LEASE_TTL_MS + 5_000).length;
    const duplicates = silent.filter((s) => s.expiries !== 1).length;
    const wrong = renewingExpired + early + late + duplicates;
    reportFigures('one node clock 5 min off', {
      'wrong expiries': wrong,
      'renewing students expired': renewingExpired,
      'silent students expired early': early,
      'silent students expired late (> term + 5 s)': late,
      'silent students not expired exactly once': duplicates,
      'silent students: term by the database clock (ms)': silent.map((s) => `${s.who} ${s.afterMs}`).join(', '),
      'renewals accepted on the node ahead / behind': `${[t, a, t2, a2].flatMap((x) => x.renewals).filter((r) => r.reply.ok).length} / ${b.renewals.filter((r) => r.reply.ok).length}`,
      'sweep leader: ahead, then behind': `${healthAhead.sweeperLeader}, ${healthBehind.sweeperLeader}`,
    });
    expect(wrong).toBe(0);
    expect(healthAhead.sweeperLeader).toBe(true);
    expect(healthBehind.sweeperLeader).toBe(true);
    await behind.stop();
  });
});
