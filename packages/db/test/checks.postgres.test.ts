/**
 * Quick polls under races on real Postgres, two connection pools (as two server nodes have): the
 * table's key (poll_id, user_id) keeps one answer per student however many attempts race, and an
 * answer racing the poll's close either lands before it or is refused `closed`.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import type { Database } from '../src/database.ts';
import type { EditActor } from '../src/elements.ts';
import { rows } from '../src/sql.ts';
import { createStore, type Store } from '../src/store.ts';
import { CLOCK_START, SESSION_TTL_MS, newRoom, seatStudent } from './fixtures.ts';
import { ScratchDatabase, testDatabaseUrl } from './postgresHarness.ts';

const ATTEMPTS = 50;
const RACE_TIMEOUT_MS = 120_000;
const target = testDatabaseUrl();

if ('skip' in target) {
  describe(`poll races on real Postgres: ${target.skip}`, () => {
    it.skip('runs when TEST_DATABASE_URL points at a Postgres server', () => {});
  });
} else {
  describe('poll races on real Postgres (two connection pools)', () => {
    const scratch = new ScratchDatabase(target.url);
    const clock = new FrozenClock(CLOCK_START);
    let dbOne: Database;
    let dbTwo: Database;
    let one: Store;
    let two: Store;

    beforeAll(async () => {
      await scratch.create({ migrated: true });
      dbOne = await scratch.open();
      dbTwo = await scratch.open();
      one = createStore(dbOne, clock);
      two = createStore(dbTwo, clock);
    });
    afterAll(() => scratch.drop());

    async function openPoll(students: number) {
      const room = await newRoom(one);
      const teacherSession = randomUUID();
      await one.openSession({ id: teacherSession, roomId: room.roomId, userId: room.teacherId, tokenHash: randomUUID(), ttlMs: SESSION_TTL_MS });
      const teacher: EditActor = { roomId: room.roomId, sessionId: teacherSession, userId: room.teacherId };
      const pupils: EditActor[] = [];
      for (let i = 0; i < students; i++) {
        const seat = await seatStudent(one, room);
        pupils.push({ roomId: room.roomId, sessionId: seat.sessionId, userId: seat.userId });
      }
      const pollId = randomUUID();
      const opened = await one.openPoll(teacher, { pollId, question: 'Which?', kind: 'abcd' });
      if (opened.decision !== 'applied') throw new Error(opened.decision);
      return { teacher, pupils, pollId };
    }

    const answersOf = async (pollId: string) =>
      rows<{ user_id: string; choice: number; changes: number }>(dbOne.db, sql`SELECT user_id, choice, changes FROM poll_answers WHERE poll_id = ${pollId}::uuid`);

    it(
      'P3: one answer per student under 50 concurrent attempts',
      async () => {
        const { pupils, pollId } = await openPoll(1);
        const ana = pupils[0]!;
        // 50 attempts at once, alternating pools, each with one of the four choices.
        const results = await Promise.all(
          Array.from({ length: ATTEMPTS }, (_, i) => (i % 2 === 0 ? one : two).answerPoll(ana, { pollId, choice: i % 4 })),
        );
        const stored = await answersOf(pollId);
        expect(stored.length).toBe(1);
        expect(results.every((r) => r.decision === 'applied' || r.decision === 'already_applied')).toBe(true);
        // The stored answer is the last one applied, and every applied one but the first was a change of it.
        const applied = results.filter((r) => r.decision === 'applied');
        expect(stored[0]!.changes).toBe(applied.length - 1);
        const latest = (await one.getPoll(ana)) as { answers: Array<{ choice: number | null }>; poll: { answered: number } | null };
        expect(latest.poll?.answered).toBe(1);
        expect(latest.answers.map((a) => a.choice)).toEqual([stored[0]!.choice]);
      },
      RACE_TIMEOUT_MS,
    );

    it(
      'P4: answers racing the close land before it or are refused; the count at the close is the count kept',
      async () => {
        const { teacher, pupils, pollId } = await openPoll(20);
        const answering = pupils.map((p, i) => (i % 2 === 0 ? one : two).answerPoll(p, { pollId, choice: i % 4 }));
        const closing = two.closePoll(teacher, { pollId });
        const [results, closed] = await Promise.all([Promise.all(answering), closing]);
        if (closed.decision !== 'applied') throw new Error(closed.decision);
        const landed = results.filter((r) => r.decision === 'applied').length;
        expect(landed + results.filter((r) => r.decision === 'closed').length).toBe(pupils.length);
        expect((await answersOf(pollId)).length).toBe(landed);
        expect(closed.poll.answered).toBe(landed);
      },
      RACE_TIMEOUT_MS,
    );
  });
}
