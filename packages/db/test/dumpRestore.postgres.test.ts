/**
 * Backups on Postgres (docs/operations.md, "Backup and restore"): the operator's pg_dump (custom
 * format, taken while the server writes: one consistent snapshot) restored with pg_restore into a
 * fresh database gives back every lesson, elements included, readable by the least-privilege app
 * role with migrations off, as a restored deployment runs.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ElementShape } from '@wb/protocol';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import { createStore } from '../src/store.ts';
import { CLOCK_START, newRoom, SESSION_TTL_MS } from './fixtures.ts';
import { ScratchDatabase, testDatabaseUrl } from './postgresHarness.ts';

const target = testDatabaseUrl();
const roleSql = readFileSync(new URL('../sql/app-role.sql', import.meta.url), 'utf8');
const square = { kind: 'rect' as const, x: 0, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 } satisfies ElementShape;

if ('skip' in target) {
  describe(`pg_dump / pg_restore round trip (real Postgres): ${target.skip}`, () => {
    it.skip('runs when TEST_DATABASE_URL points at a Postgres server', () => {});
  });
} else {
  describe('pg_dump / pg_restore round trip (real Postgres)', () => {
    const live = new ScratchDatabase(target.url);
    const fresh = new ScratchDatabase(target.url);
    // Roles belong to the whole server: a name of its own keeps parallel runs apart.
    const role = `wb_app_test_${randomBytes(4).toString('hex')}`;
    const work = mkdtempSync(join(tmpdir(), 'wb-pgdump-'));
    afterAll(async () => {
      await live.drop();
      await fresh.drop();
      await live.admin(`DROP ROLE IF EXISTS ${role}`);
      rmSync(work, { recursive: true, force: true });
    });

    it('a lesson with its elements, dumped from a live database, restores into a fresh one and reads back as the app role', { timeout: 120_000 }, async () => {
      await live.create({ migrated: true });
      const owner = await live.open();
      await owner.db.execute(sql.raw(roleSql.replaceAll('wb_app', role)));
      const clock = new FrozenClock(CLOCK_START);
      const store = createStore(owner, clock);
      const { roomId, teacherId } = await newRoom(store);
      const sessionId = randomUUID();
      await store.openSession({ id: sessionId, roomId, userId: teacherId, tokenHash: randomUUID(), ttlMs: SESSION_TTL_MS });
      const drawn: string[] = [];
      for (const x of [0, 20, 40]) {
        const made = await store.createElement({ roomId, sessionId, userId: teacherId }, { id: randomUUID(), shape: { ...square, x } });
        if (made.decision !== 'applied') throw new Error(`element not created: ${made.decision}`);
        drawn.push(made.element.id);
      }
      const before = await store.loadRoomSnapshot(roomId);

      const archive = join(work, 'whiteboard.dump');
      execFileSync('pg_dump', ['--format=custom', `--file=${archive}`, live.url()]);
      await fresh.create();
      execFileSync('pg_restore', ['--exit-on-error', `--dbname=${fresh.url()}`, archive]);

      // The restored deployment: the app role, migrations off (they came with the dump).
      const restored = await fresh.open({ user: role, migrate: false });
      const after = await createStore(restored, clock).loadRoomSnapshot(roomId);
      expect(after?.room.id).toBe(roomId);
      expect(after?.elements.map((e) => e.id).sort()).toEqual([...drawn].sort());
      expect(after?.elements).toEqual(before?.elements);
      expect(after?.members).toEqual(before?.members);
      // The owner's migrator finds nothing to do on it: the journal was restored too.
      await fresh.open();
    });
  });
}
