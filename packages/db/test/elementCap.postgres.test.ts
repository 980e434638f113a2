/**
 * The element cap under concurrency on real Postgres (two connections): the count moves in the
 * room row's revision bump, so creates racing at cap - 1 are serialised by that row's lock and
 * exactly one of them lands; the board never holds more than the cap, whichever path raced
 * (single creates, batches, or one of each).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { ElementShape } from '@wb/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import type { EditActor } from '../src/elements.ts';
import { int, rows } from '../src/sql.ts';
import { createStore, type Store } from '../src/store.ts';
import { CLOCK_START, newRoom, seatStudent } from './fixtures.ts';
import { ScratchDatabase, testDatabaseUrl } from './postgresHarness.ts';

const CAP = 5;
const TRIALS = 12;
const square: ElementShape = { kind: 'rect', x: 0, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 };

const target = testDatabaseUrl();

if ('skip' in target) {
  describe(`element cap races on real Postgres: ${target.skip}`, () => {
    it.skip('runs when TEST_DATABASE_URL points at a Postgres server', () => {});
  });
} else {
  describe('element cap races on real Postgres (two connections)', () => {
    const scratch = new ScratchDatabase(target.url);
    const clock = new FrozenClock(CLOCK_START);
    let one: Store;
    let two: Store;

    beforeAll(async () => {
      await scratch.create({ migrated: true });
      one = createStore(await scratch.open(), clock, { maxPerBoard: CAP });
      two = createStore(await scratch.open(), clock, { maxPerBoard: CAP });
    });
    afterAll(() => scratch.drop());

    /** A board of two students at cap - 1. */
    async function nearlyFull() {
      const a = await seatStudent(one, await newRoom(one, { editPolicy: 'everyone' }));
      const b = await seatStudent(one, { roomId: a.roomId, teacherId: a.teacherId });
      const actorA: EditActor = { roomId: a.roomId, sessionId: a.sessionId, userId: a.userId };
      const actorB: EditActor = { roomId: b.roomId, sessionId: b.sessionId, userId: b.userId };
      for (let i = 0; i < CAP - 1; i++) {
        const made = await one.createElement(actorA, { id: randomUUID(), shape: square });
        if (made.decision !== 'applied') throw new Error(`fill: ${made.decision}`);
      }
      return { roomId: a.roomId, actorA, actorB };
    }

    async function counts(roomId: string) {
      const [row] = await rows<{ live: unknown; counted: unknown }>(
        one.database.db,
        sql`SELECT live_elements AS live, (SELECT count(*) FROM elements WHERE room_id = ${roomId}::uuid AND NOT deleted) AS counted
            FROM rooms WHERE id = ${roomId}::uuid`,
      );
      return { live: int(row!.live), counted: int(row!.counted) };
    }

    const races = {
      'two single creates': (r: Awaited<ReturnType<typeof nearlyFull>>) => [
        one.createElement(r.actorA, { id: randomUUID(), shape: square }),
        two.createElement(r.actorB, { id: randomUUID(), shape: square }),
      ],
      'two batches': (r: Awaited<ReturnType<typeof nearlyFull>>) => [
        one.createElements([{ actor: r.actorA, id: randomUUID(), shape: square }]).then(([x]) => x!),
        two.createElements([{ actor: r.actorB, id: randomUUID(), shape: square }]).then(([x]) => x!),
      ],
      'a batch and a single create': (r: Awaited<ReturnType<typeof nearlyFull>>) => [
        one.createElements([{ actor: r.actorA, id: randomUUID(), shape: square }]).then(([x]) => x!),
        two.createElement(r.actorB, { id: randomUUID(), shape: square }),
      ],
    };

    for (const [name, race] of Object.entries(races)) {
      it(`CAP-RACE: ${TRIALS} trials of ${name} at cap - 1: exactly one lands, the other is board_full, never past the cap`, async () => {
        for (let trial = 0; trial < TRIALS; trial++) {
          const board = await nearlyFull();
          const results = await Promise.all(race(board));
          expect(results.map((r) => r.decision).sort(), `trial ${trial}`).toEqual(['applied', 'board_full']);
          expect(await counts(board.roomId)).toEqual({ live: CAP, counted: CAP });
        }
      });
    }
  });
}
