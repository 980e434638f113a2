import { randomUUID } from 'node:crypto';
import type { ElementShape } from '@wb/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import type { EditActor } from '../src/elements.ts';
import { createStore, type Store } from '../src/store.ts';
import { CLOCK_START, newRoom, requestId, seatStudent } from './fixtures.ts';
import { ScratchDatabase, testDatabaseUrl } from './postgresHarness.ts';

const FIRST_TERM_MS = 2_000;
const TRIALS = 500;
const REVOCATION_TRIALS = 200;
const square: ElementShape = { kind: 'rect', x: 0, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 };

const target = testDatabaseUrl();

if ('skip' in target) {
  describe(`drag locks on real Postgres: ${target.skip}`, () => {
    it.skip('runs when TEST_DATABASE_URL points at a Postgres server', () => {});
  });
} else {
  describe('drag locks on real Postgres (two connections)', () => {
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

    it(`I3/I4: ${TRIALS} trials of two students pressing one element at once: exactly one grant each time`, async () => {
      // Two students on one element: a lesson where everyone edits everything.
      const a = await seatStudent(one, await newRoom(one, { editPolicy: 'everyone' }));
      const b = await seatStudent(one, { roomId: a.roomId, teacherId: a.teacherId });
      const actorA: EditActor = { roomId: a.roomId, sessionId: a.sessionId, userId: a.userId };
      const actorB: EditActor = { roomId: b.roomId, sessionId: b.sessionId, userId: b.userId };
      let grantsA = 0;
      let grantsB = 0;
      for (let trial = 0; trial < TRIALS; trial++) {
        const created = await one.createElement(actorA, { id: randomUUID(), shape: square });
        if (created.decision !== 'applied') throw new Error(`create: ${created.decision}`);
        const elementId = created.element.id;
        // Both requests leave together on two connections (each side sent first in every other
        // trial); which one the database serialises first varies from trial to trial.
        const pressA = () => one.acquireLock(actorA, { elementId, requestId: requestId('a'), firstTermMs: FIRST_TERM_MS });
        const pressB = () => two.acquireLock(actorB, { elementId, requestId: requestId('b'), firstTermMs: FIRST_TERM_MS });
        const [ra, rb] =
          trial % 2 === 0 ? await Promise.all([pressA(), pressB()]) : await Promise.all([pressB(), pressA()]).then(([b, a]) => [a, b] as const);
        // At most one winner, and exactly one: the other is refused.
        const decisions = [ra.decision, rb.decision].sort();
        expect(decisions).toEqual(['granted', 'locked']);
        const [winner, winnerActor, loser] = ra.decision === 'granted' ? [ra, actorA, rb] : [rb, actorB, ra];
        if (winner.decision !== 'granted' || loser.decision !== 'locked') throw new Error('no winner');
        expect(winner.generation).toBe(1);
        // The loser is told who holds it, at the generation the winner got.
        expect(loser.element.lock, `trial ${trial}`).toEqual({ sessionId: winnerActor.sessionId, userId: winnerActor.userId, generation: 1 });
        // The stored lock is the winner's, granted once (a second grant would be generation 2).
        expect(await one.readLock(a.roomId, elementId), `trial ${trial}`).toEqual({ sessionId: winnerActor.sessionId, generation: 1 });
        if (ra.decision === 'granted') grantsA++;
        else grantsB++;
      }
      // A race each side won sometimes: neither connection was always served first.
      const split = `A won ${grantsA}, B won ${grantsB} of ${TRIALS}`;
      expect(grantsA, split).toBeGreaterThan(0);
      expect(grantsB, split).toBeGreaterThan(0);
    });

    it('I4: after a lock changes hands, the former holder\'s commit is stale and the element does not move', async () => {
      // Two students on one element: a lesson where everyone edits everything.
      const a = await seatStudent(one, await newRoom(one, { editPolicy: 'everyone' }));
      const b = await seatStudent(one, { roomId: a.roomId, teacherId: a.teacherId });
      const actorA: EditActor = { roomId: a.roomId, sessionId: a.sessionId, userId: a.userId };
      const actorB: EditActor = { roomId: b.roomId, sessionId: b.sessionId, userId: b.userId };
      const created = await one.createElement(actorA, { id: randomUUID(), shape: square });
      if (created.decision !== 'applied') throw new Error('create');
      const elementId = created.element.id;
      const first = await one.acquireLock(actorA, { elementId, requestId: requestId('a'), firstTermMs: FIRST_TERM_MS });
      if (first.decision !== 'granted') throw new Error('grant');
      clock.advance(FIRST_TERM_MS + 1); // A's grant lapses unconfirmed (it never moved)
      const second = await two.acquireLock(actorB, { elementId, requestId: requestId('b'), firstTermMs: FIRST_TERM_MS });
      if (second.decision !== 'granted') throw new Error(`second grant: ${second.decision}`);
      expect(second.generation).toBe(first.generation + 1);
      // A's late extend and commit both lose to the new generation.
      expect(await one.extendLock({ roomId: a.roomId, elementId, sessionId: a.sessionId, generation: first.generation, ttlMs: 5_000 })).toBe(false);
      const late = await one.releaseLock(actorA, { elementId, generation: first.generation, shape: { ...square, x: 999 }, requestId: requestId('late') });
      expect(late.decision).toBe('stale_generation');
      const done = await two.releaseLock(actorB, { elementId, generation: second.generation, shape: { ...square, x: 50 }, requestId: requestId('done') });
      expect(done).toMatchObject({ decision: 'applied', element: { version: 2, shape: { x: 50 }, lock: null } });
      const snapshot = await one.loadRoomSnapshot(a.roomId);
      expect(snapshot?.elements.find((e) => e.id === elementId)?.shape).toMatchObject({ x: 50 });
    });

    it('I5: two sweepers expiring one lock at once: exactly one release is published', async () => {
      const a = await seatStudent(one);
      const actorA: EditActor = { roomId: a.roomId, sessionId: a.sessionId, userId: a.userId };
      const created = await one.createElement(actorA, { id: randomUUID(), shape: square });
      if (created.decision !== 'applied') throw new Error('create');
      const grant = await one.acquireLock(actorA, { elementId: created.element.id, requestId: requestId('a'), firstTermMs: FIRST_TERM_MS });
      if (grant.decision !== 'granted') throw new Error('grant');
      clock.advance(FIRST_TERM_MS + 1);
      const held = { roomId: a.roomId, elementId: created.element.id, generation: grant.generation };
      const [x, y] = await Promise.all([one.expireLockIfGeneration(held), two.expireLockIfGeneration(held)]);
      expect([x.won, y.won].filter(Boolean)).toHaveLength(1);
    });

    it(`I4: ${REVOCATION_TRIALS} trials of a revocation racing a student's edits: nothing of theirs lands after it`, async () => {
      let refused = 0;
      let applied = 0;
      for (let trial = 0; trial < REVOCATION_TRIALS; trial++) {
        const a = await seatStudent(one);
        const actor: EditActor = { roomId: a.roomId, sessionId: a.sessionId, userId: a.userId };
        // Three edits on one connection and the teacher's revocation on the other leave together.
        const [revoked, ...edits] = await Promise.all([
          two.revokeMember({ roomId: a.roomId, userId: a.userId, by: a.teacherId, reason: null, requestId: null }),
          ...[0, 1, 2].map((i) => one.createElement(actor, { id: randomUUID(), shape: { ...square, x: i } })),
        ]);
        expect(revoked.decision).toBe('revoked');
        for (const edit of edits) {
          expect(['applied', 'not_a_member']).toContain(edit.decision);
          if (edit.decision === 'applied') applied++;
          else refused++;
        }
        const log = await one.eventsAfter(a.roomId, 0, 1_000);
        if (log.kind !== 'replay') throw new Error(`log: ${log.kind}`);
        const revokedAt = log.events.find((e) => e.kind === 'member.revoked')!.revision;
        const late = log.events.filter((e) => e.kind === 'element.created' && e.revision > revokedAt);
        expect(late).toEqual([]);
      }
      // Both orders occur (here about 3 in 4 edits commit first): the race really was run.
      expect(applied).toBeGreaterThan(0);
      expect(refused).toBeGreaterThan(0);
    });
  });
}
