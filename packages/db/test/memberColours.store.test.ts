/**
 * Member colours and the teacher's reserved name (docs/protocol.md, "join as a student") as store
 * contract tests on PGlite and real Postgres:
 * - MC1 members of a lesson have distinct colours while the palette lasts, then share evenly;
 * - MC2 a member keeps their colour when they come back (same key), also under a new name;
 * - MC3 concurrent joins of one room never pick the same colour;
 * - MC4 a student cannot take the teacher's name in the teacher's lesson (`name_reserved`).
 */
import { randomBytes } from 'node:crypto';
import { MEMBER_PALETTE_SIZE } from '@wb/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import { createStore, type Store } from '../src/store.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { CLOCK_START, storeDatabaseKinds } from './fixtures.ts';

const secret = () => randomBytes(16).toString('hex');

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`member colours on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    let testDb: TestDatabase;
    let store: Store;
    const clock = new FrozenClock(CLOCK_START);

    beforeAll(async () => {
      testDb = await openTestDatabase(kind);
      store = createStore(testDb.database, clock);
    });
    afterAll(async () => {
      await testDb?.drop();
    });

    async function lesson(teacherName = 'Ms Rivera') {
      const created = await store.createRoom({ code: secret().slice(0, 10).toUpperCase(), title: 'Colours', teacherName, memberKeyHash: secret() });
      if (created.decision !== 'created') throw new Error(created.decision);
      return { roomId: created.room.id, teacher: created.member };
    }

    async function join(roomId: string, displayName: string, memberKeyHash = secret()) {
      const joined = await store.joinRoom({ roomId, displayName, memberKeyHash, role: 'student' });
      if (joined.decision !== 'joined' && joined.decision !== 'returned') throw new Error(joined.decision);
      return joined.member;
    }

    test('MC1: a 40-member lesson has no shared colour while the palette lasts, then shares evenly', async () => {
      const { roomId, teacher } = await lesson();
      const colours = [teacher.colorIndex];
      for (let i = 1; i < 40; i++) colours.push((await join(roomId, `Student ${i}`)).colorIndex);
      const first = colours.slice(0, MEMBER_PALETTE_SIZE);
      expect(new Set(first).size).toBe(MEMBER_PALETTE_SIZE);
      expect(colours.every((c) => c >= 0 && c < MEMBER_PALETTE_SIZE)).toBe(true);
      const uses = new Map<number, number>();
      for (const c of colours) uses.set(c, (uses.get(c) ?? 0) + 1);
      // 40 members over 24 colours: no colour used three times while another is used once.
      expect(Math.max(...uses.values()) - Math.min(...uses.values())).toBeLessThanOrEqual(1);
      // What each member sees in a snapshot is what they were given.
      const listed = new Map((await store.listMembers(roomId)).map((m) => [m.userId, m.colorIndex]));
      expect([...listed.values()].sort()).toEqual([...colours].sort());
    });

    test('MC2: a member keeps their colour when they come back, also under a new name', async () => {
      const { roomId } = await lesson();
      const key = secret();
      const first = await join(roomId, 'Ana', key);
      await join(roomId, 'Bo');
      const back = await join(roomId, 'Ana', key);
      const renamed = await join(roomId, 'Ana P.', key);
      expect(back.colorIndex).toBe(first.colorIndex);
      expect(renamed.colorIndex).toBe(first.colorIndex);
      expect(renamed.userId).toBe(first.userId);
    });

    test('MC3: concurrent joins of one room pick different colours', async () => {
      const { roomId, teacher } = await lesson();
      const members = await Promise.all(Array.from({ length: 12 }, (_, i) => join(roomId, `Racer ${i}`)));
      const colours = [teacher.colorIndex, ...members.map((m) => m.colorIndex)];
      expect(new Set(colours).size).toBe(colours.length);
    });

    test('MC4: a student taking the teacher\'s name is refused with name_reserved, and nothing is written', async () => {
      const { roomId } = await lesson('Ms Rivera');
      for (const name of ['Ms Rivera', 'ms rivera', '  MS   RIVERA ', 'Ｍｓ Ｒｉｖｅｒａ']) {
        const refused = await store.joinRoom({ roomId, displayName: name, memberKeyHash: secret(), role: 'student' });
        expect(refused.decision, name).toBe('name_reserved');
      }
      expect((await store.listMembers(roomId)).length).toBe(1);
      // A returning student cannot rename themselves to it either; their own name stays.
      const key = secret();
      await join(roomId, 'Rivera');
      const ana = await join(roomId, 'Ana', key);
      const rename = await store.joinRoom({ roomId, displayName: 'MS RIVERA', memberKeyHash: key, role: 'student' });
      expect(rename.decision).toBe('name_reserved');
      expect((await store.listMembers(roomId)).find((m) => m.userId === ana.userId)?.displayName).toBe('Ana');
    });
  });
}
