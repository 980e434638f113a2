/**
 * The district's side of accounts (teacherDirectory.ts): sign-in through a provider's identity,
 * disabling an account, one-time reset links. Each transition conditional (I3), with a frozen
 * clock. PGlite and real Postgres; the races interleave only on Postgres (PGlite serialises).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import { createStore, type Store } from '../src/store.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { CLOCK_START, storeDatabaseKinds } from './fixtures.ts';

const unique = () => randomBytes(6).toString('hex');
const HOUR = 3_600_000;

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`teacher directory on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
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

    const identity = (email = `${unique()}@school.example`) => ({ provider: 'district', subject: `sub-${unique()}`, email, displayName: 'Ms Okafor', mayCreate: true });

    test('an identity makes its account once, then signs into it; another identity with the same email is linked to it', async () => {
      const first = identity();
      const created = await store.signInWithIdentity(first);
      if (created.decision !== 'created') throw new Error(created.decision);
      expect(await store.signInWithIdentity(first)).toEqual({ decision: 'signed_in', teacher: created.teacher });
      const other = { ...identity(first.email.toUpperCase()), provider: 'other' };
      expect(await store.signInWithIdentity(other)).toEqual({ decision: 'linked', teacher: created.teacher });
      // A provider-made account has no password.
      expect(await store.findTeacherCredentials(first.email)).toMatchObject({ passwordHash: null, disabled: false });
    });

    test('with sign-up closed to the address, an unknown identity makes nothing; a known account still signs in', async () => {
      const closed = { ...identity(), mayCreate: false };
      expect(await store.signInWithIdentity(closed)).toEqual({ decision: 'sign_up_closed' });
      expect(await store.findTeacherCredentials(closed.email)).toBeNull();
      const existing = await store.createTeacher({ email: closed.email, passwordHash: 'h', displayName: 'A' });
      if (existing.decision !== 'created') throw new Error(existing.decision);
      expect(await store.signInWithIdentity(closed)).toEqual({ decision: 'linked', teacher: existing.teacher });
    });

    test('a disabled account: its sessions are refused, its identity is refused, only one disable wins, enable lets it in again', async () => {
      const first = identity();
      const made = await store.signInWithIdentity(first);
      if (made.decision !== 'created') throw new Error(made.decision);
      const teacherId = made.teacher.id;
      const tokens = [unique(), unique()];
      for (const tokenHash of tokens) await store.openTeacherSession({ teacherId, tokenHash, ttlMs: HOUR });
      const races = await Promise.all([store.setTeacherStatus({ teacherId, disabled: true }), store.setTeacherStatus({ teacherId, disabled: true })]);
      expect(races.map((r) => r.decision).sort()).toEqual(['disabled', 'unchanged']);
      expect(races.find((r) => r.decision === 'disabled')).toEqual({ decision: 'disabled', closedSessions: 2 });
      for (const tokenHash of tokens) expect(await store.authenticateTeacherSession(tokenHash)).toEqual({ decision: 'disabled' });
      // A session opened meanwhile by a sign-in that had already passed its checks is refused too.
      await store.openTeacherSession({ teacherId, tokenHash: 'late', ttlMs: HOUR });
      expect(await store.authenticateTeacherSession('late')).toEqual({ decision: 'disabled' });
      expect(await store.signInWithIdentity(first)).toEqual({ decision: 'disabled' });
      expect(await store.setTeacherStatus({ teacherId, disabled: false })).toEqual({ decision: 'enabled', closedSessions: 0 });
      expect(await store.authenticateTeacherSession('late')).toMatchObject({ decision: 'ok' });
      expect(await store.setTeacherStatus({ teacherId: '00000000-0000-4000-8000-000000000000', disabled: true })).toEqual({ decision: 'not_found' });
    });

    test('a reset link is used once even by two requests at once, and not after it expires', async () => {
      const made = await store.createTeacher({ email: `${unique()}@school.example`, passwordHash: 'old', displayName: 'A' });
      if (made.decision !== 'created') throw new Error(made.decision);
      const teacherId = made.teacher.id;
      await store.openTeacherSession({ teacherId, tokenHash: `s-${teacherId}`, ttlMs: 48 * HOUR });
      expect(await store.createPasswordReset({ teacherId, tokenHash: `r-${teacherId}`, ttlMs: 24 * HOUR })).toMatchObject({ decision: 'issued' });
      const both = await Promise.all([
        store.consumePasswordReset({ tokenHash: `r-${teacherId}`, passwordHash: 'new-a' }),
        store.consumePasswordReset({ tokenHash: `r-${teacherId}`, passwordHash: 'new-b' }),
      ]);
      expect(both.map((r) => r.decision).sort()).toEqual(['invalid', 'reset']);
      const winner = both.findIndex((r) => r.decision === 'reset');
      expect((await store.findTeacherCredentials(made.teacher.email))?.passwordHash).toBe(winner === 0 ? 'new-a' : 'new-b');
      expect(await store.authenticateTeacherSession(`s-${teacherId}`)).toEqual({ decision: 'closed' });

      await store.createPasswordReset({ teacherId, tokenHash: `late-${teacherId}`, ttlMs: 24 * HOUR });
      clock.advance(24 * HOUR);
      expect(await store.consumePasswordReset({ tokenHash: `late-${teacherId}`, passwordHash: 'x' })).toEqual({ decision: 'invalid' });
      expect(await store.createPasswordReset({ teacherId: '00000000-0000-4000-8000-000000000000', tokenHash: unique(), ttlMs: HOUR })).toEqual({ decision: 'not_found' });
    });

    test('the admin list shows each account with how it signs in and its lessons', async () => {
      const viaProvider = await store.signInWithIdentity(identity());
      if (viaProvider.decision !== 'created') throw new Error(viaProvider.decision);
      await store.createRoom({ code: unique().toUpperCase(), title: 'L', teacherName: 'T', memberKeyHash: unique(), teacherId: viaProvider.teacher.id });
      const listed = (await store.listTeachers(1_000)).find((t) => t.id === viaProvider.teacher.id);
      expect(listed).toMatchObject({ status: 'active', password: false, providers: ['district'], lessons: 1 });
    });
  });
}
