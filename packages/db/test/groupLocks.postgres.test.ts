import { randomUUID } from 'node:crypto';
import type { ElementShape } from '@wb/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import type { EditActor } from '../src/elements.ts';
import { createStore, type Store } from '../src/store.ts';
import { CLOCK_START, newRoom, requestId, seatStudent } from './fixtures.ts';
import { ScratchDatabase, testDatabaseUrl } from './postgresHarness.ts';

const FIRST_TERM_MS = 2_000;
const TRIALS = 200;
const square: ElementShape = { kind: 'rect', x: 0, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 };

const target = testDatabaseUrl();

if ('skip' in target) {
  describe(`group drag locks on real Postgres: ${target.skip}`, () => {
    it.skip('runs when TEST_DATABASE_URL points at a Postgres server', () => {});
  });
} else {
  describe('group drag locks on real Postgres (two connections)', () => {
    const scratch = new ScratchDatabase(target.url);
    const clock = new FrozenClock(CLOCK_START);
    let one: Store;
    let two: Store;

    beforeAll(async () => {
      await scratch.create({ migrated: true });
      one = createStore(await scratch.open(), clock);
      two = createStore(await scratch.open(), clock);
    });
    afterAll(() => scratch.drop());

    it(`G7: ${TRIALS} trials of two students grabbing overlapping groups at once: one wins whole, the other holds nothing`, async () => {
      const a = await seatStudent(one, await newRoom(one, { editPolicy: 'everyone' }));
      const b = await seatStudent(one, { roomId: a.roomId, teacherId: a.teacherId });
      const actorA: EditActor = { roomId: a.roomId, sessionId: a.sessionId, userId: a.userId };
      const actorB: EditActor = { roomId: b.roomId, sessionId: b.sessionId, userId: b.userId };
      const draw = async () => {
        const created = await one.createElement(actorA, { id: randomUUID(), shape: square });
        if (created.decision !== 'applied') throw new Error(`create: ${created.decision}`);
        return created.element.id;
      };
      let winsA = 0;
      let winsB = 0;
      for (let trial = 0; trial < TRIALS; trial++) {
        const [e1, e2, e3, e4] = [await draw(), await draw(), await draw(), await draw()];
        // A asks for 1-3, B for 2-4 in the reverse order: they overlap in two elements named in
        // opposite orders, the shape that would deadlock if rows were locked in request order.
        const groupA = [e1, e2, e3];
        const groupB = [e4, e3, e2];
        const grabA = () => one.acquireLocks(actorA, { elementIds: groupA, requestId: requestId('a'), firstTermMs: FIRST_TERM_MS });
        const grabB = () => two.acquireLocks(actorB, { elementIds: groupB, requestId: requestId('b'), firstTermMs: FIRST_TERM_MS });
        const [ra, rb] =
          trial % 2 === 0 ? await Promise.all([grabA(), grabB()]) : await Promise.all([grabB(), grabA()]).then(([rB, rA]) => [rA, rB] as const);
        expect([ra.decision, rb.decision].sort()).toEqual(['granted', 'locked']);
        const [winner, loser, loserGroup] = ra.decision === 'granted' ? [actorA, actorB, groupB] : [actorB, actorA, groupA];
        if (winner === actorA) winsA++;
        else winsB++;
        const refusal = ra.decision === 'locked' ? ra : rb;
        if (refusal.decision !== 'locked') throw new Error('no refusal');
        expect(refusal.holderUserId).toBe(winner.userId);
        // Never a partial hold: the loser holds none of its group, the winner all of its own.
        for (const elementId of loserGroup) {
          const lock = await one.readLock(a.roomId, elementId);
          expect(lock?.sessionId === loser.sessionId, `trial ${trial}: ${elementId}`).toBe(false);
        }
        const unshared = ra.decision === 'granted' ? e4 : e1;
        expect((await one.readLock(a.roomId, unshared))?.sessionId ?? null).toBeNull();
        const winnerGroup = ra.decision === 'granted' ? groupA : groupB;
        for (const elementId of winnerGroup) {
          expect(await one.readLock(a.roomId, elementId), `trial ${trial}: ${elementId}`).toEqual({ sessionId: winner.sessionId, generation: 1 });
        }
      }
      const split = `A won ${winsA}, B won ${winsB} of ${TRIALS}`;
      expect(winsA, split).toBeGreaterThan(0);
      expect(winsB, split).toBeGreaterThan(0);
      console.info(`group lock race: ${split}`);
    });
  });
}
