/**
 * Pages under races on real Postgres, two connections (issue 39, docs/boards.md "Pages"): two
 * teacher tabs reordering at once are applied one after the other under the lesson row's lock, so
 * the order is one of the two serial outcomes, every page stays exactly once, and positions stay
 * unique; a paced student's stroke racing the teacher's move to the next page lands before the move
 * (at a lower lesson revision) or is refused look-only after it, never on a page the class has left.
 */
import { randomUUID } from 'node:crypto';
import type { ElementShape } from '@wb/protocol';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import type { EditActor } from '../src/elements.ts';
import { lessonPages } from '../src/pages.ts';
import { rows } from '../src/sql.ts';
import { createStore, type Store } from '../src/store.ts';
import type { Database } from '../src/database.ts';
import { CLOCK_START, SESSION_TTL_MS, newRoom, seatStudent } from './fixtures.ts';
import { ScratchDatabase, testDatabaseUrl } from './postgresHarness.ts';

const TRIALS = Number(process.env.WB_RACE_TRIALS ?? 30);
const RACE_TIMEOUT_MS = 120_000;
const square: ElementShape = { kind: 'rect', x: 0, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 };

const target = testDatabaseUrl();

if ('skip' in target) {
  describe(`page races on real Postgres: ${target.skip}`, () => {
    it.skip('runs when TEST_DATABASE_URL points at a Postgres server', () => {});
  });
} else {
  describe('page races on real Postgres (two connections)', () => {
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

    /** A lesson with pages A (its own board), B, C, D and its teacher's session (two tabs share it). */
    async function fourPages() {
      const room = await newRoom(one);
      const sessionId = randomUUID();
      await one.openSession({ id: sessionId, roomId: room.roomId, userId: room.teacherId, tokenHash: randomUUID(), ttlMs: SESSION_TTL_MS });
      const teacher: EditActor = { roomId: room.roomId, sessionId, userId: room.teacherId };
      const ids = [room.roomId];
      for (let i = 0; i < 3; i++) {
        const pageId = randomUUID();
        const added = await one.addPage(teacher, { pageId, afterPageId: ids.at(-1)! });
        if (added.decision !== 'applied') throw new Error(added.decision);
        ids.push(pageId);
      }
      return { room, teacher, ids };
    }

    it(
      'two teacher tabs reordering at once: the order is one of the two serial outcomes, each page once, positions unique',
      async () => {
        const outcomes = new Set<string>();
        for (let trial = 0; trial < TRIALS; trial++) {
          const { room, teacher, ids } = await fourPages();
          const [a, b, c, d] = ids as [string, string, string, string];
          // Tab one moves C first, tab two moves A after C, at once.
          //   one, then two: [C,A,B,D] -> [C,A,B,D] (A is after C already: nothing to do)
          //   two, then one: [B,C,A,D] -> [C,B,A,D]
          const results = await Promise.all([
            one.movePage(teacher, { pageId: c, afterPageId: null }),
            two.movePage(teacher, { pageId: a, afterPageId: c }),
          ]);
          const order = (await lessonPages(dbOne.db, room.roomId))!.pages.map((p) => p.id);
          const revisionOf = (r: (typeof results)[number]) => (r.decision === 'applied' ? r.events.at(-1)!.revision : Number.POSITIVE_INFINITY);
          const twoThenOne = results[1].decision === 'applied' && revisionOf(results[1]) < revisionOf(results[0]);
          expect(order).toEqual(twoThenOne ? [c, b, a, d] : [c, a, b, d]);
          outcomes.add(order.join(','));
          expect(new Set(order).size).toBe(4);
          const positions = await rows<{ position: number }>(dbOne.db, sql`SELECT position FROM lesson_pages WHERE room_id = ${room.roomId}::uuid ORDER BY position`);
          expect(positions.map((p) => Number(p.position))).toEqual([0, 1, 2, 3]);
          // Each tab's pages.updated is its own event, at consecutive lesson revisions.
          // The last pages.updated in the log says the order the lesson has.
          const [logged] = await rows<{ payload: unknown }>(
            dbOne.db,
            sql`SELECT payload FROM room_events WHERE room_id = ${room.roomId}::uuid AND kind = 'pages.updated' ORDER BY revision DESC LIMIT 1`,
          );
          const payload = (typeof logged?.payload === 'string' ? JSON.parse(logged.payload) : logged?.payload) as { pages: { id: string }[] };
          expect(payload.pages.map((p) => p.id)).toEqual(order);
        }
        expect(outcomes.size).toBeGreaterThan(0);
      },
      RACE_TIMEOUT_MS,
    );

    it(
      'two tabs moving the same page to different places: the later move wins whole, the page is there once',
      async () => {
        for (let trial = 0; trial < TRIALS; trial++) {
          const { room, teacher, ids } = await fourPages();
          const [a, b, c, d] = ids as [string, string, string, string];
          const results = await Promise.all([
            one.movePage(teacher, { pageId: b, afterPageId: d }),
            two.movePage(teacher, { pageId: b, afterPageId: null }),
          ]);
          const order = (await lessonPages(dbOne.db, room.roomId))!.pages.map((p) => p.id);
          const applied = results.map((r) => (r.decision === 'applied' ? r.events.at(-1)!.revision : -1));
          // The move at the higher lesson revision was applied last: its place is the page's place.
          const lastWasOne = applied[0]! > applied[1]!;
          expect(order).toEqual(lastWasOne ? [a, c, d, b] : [b, a, c, d]);
          expect(new Set(order).size).toBe(4);
        }
      },
      RACE_TIMEOUT_MS,
    );

    it(
      'a paced student stroke racing the teacher move to the next page lands before the move or is refused look-only after it',
      async () => {
        let before = 0;
        let after = 0;
        for (let trial = 0; trial < TRIALS; trial++) {
          const { room, teacher, ids } = await fourPages();
          const seat = await seatStudent(one, room);
          const student: EditActor = { roomId: room.roomId, sessionId: seat.sessionId, userId: seat.userId };
          const [stroke, moved] = await Promise.all([
            two.createElement(student, { id: randomUUID(), shape: square }),
            one.gotoPage(teacher, { pageId: ids[1]! }),
          ]);
          if (moved.decision !== 'applied') throw new Error(moved.decision);
          const moveRevision = moved.events.at(-1)!.revision;
          if (stroke.decision === 'applied') {
            before++;
            // The stroke is in the page's log (the lesson's own board) before the move in the same log.
            expect(stroke.events[0]!.revision).toBeLessThan(moveRevision);
          } else {
            after++;
            expect(stroke.decision).toBe('look_only');
          }
        }
        expect(before + after).toBe(TRIALS);
      },
      RACE_TIMEOUT_MS,
    );
  });
}
