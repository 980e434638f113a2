import { describe, expect, test } from 'vitest';
import { deriveRoster } from './roster.ts';
import { SyncEngine } from './syncEngine.ts';
import { ALICE, ALICE_S, TEACHER, TEACHER_S, event, opened, revoked, snapshotSync } from './testFixtures.ts';

const restored = (revision: number, userId: string) => event(revision, 'member.restored', { userId, by: TEACHER });

function live() {
  const engine = new SyncEngine({ requestSync: () => {} }, TEACHER_S);
  engine.connectionOpened(0);
  engine.receiveSync(snapshotSync(), 0);
  return engine;
}

const aliceState = (engine: SyncEngine) => deriveRoster(engine.state!).find((e) => e.userId === ALICE)?.state;

describe('member.restored', () => {
  test('a restore makes a removed member active again, not here until they rejoin', () => {
    const engine = live();
    engine.receiveEvent(revoked(11, ALICE), 1);
    expect(aliceState(engine)).toBe('removed');
    engine.receiveEvent(restored(12, ALICE), 2);
    expect(engine.state?.members.get(ALICE)?.status).toBe('active');
    expect(aliceState(engine)).toBe('gone');
    expect(deriveRoster(engine.state!).find((e) => e.userId === ALICE)?.departure).toBeNull();
    engine.receiveEvent(opened(13, ALICE_S, ALICE, 5), 3);
    expect(aliceState(engine)).toBe('live');
  });

  test('I1: a duplicated restore is ignored by event id and a late one by revision', () => {
    const engine = live();
    engine.receiveEvent(revoked(11, ALICE), 1);
    engine.receiveEvent(restored(12, ALICE), 2);
    engine.receiveEvent(revoked(13, ALICE), 3);
    // The first restore again (same id, old revision): it must not undo the second removal.
    engine.receiveEvent(restored(12, ALICE), 4);
    expect(engine.revision).toBe(13);
    expect(aliceState(engine)).toBe('removed');
  });
});
