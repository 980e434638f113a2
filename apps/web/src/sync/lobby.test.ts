import { describe, expect, test } from 'vitest';
import { deriveLobby, deriveRoster } from './roster.ts';
import { SyncEngine } from './syncEngine.ts';
import { TEACHER, TEACHER_S, event, member, snapshotSync } from './testFixtures.ts';

const WREN = '00000000-0000-4000-8000-0000000000c1';
const DEE = '00000000-0000-4000-8000-0000000000c2';

const pending = (revision: number, userId: string, name: string) =>
  event(revision, 'member.pending', { ...member(userId, name), status: 'pending' }, `member.pending:${userId}:1`);

function live() {
  const engine = new SyncEngine({ requestSync: () => {} }, TEACHER_S);
  engine.connectionOpened(0);
  engine.receiveSync(snapshotSync(), 0);
  return engine;
}

describe('the lobby in the client', () => {
  test('L1: a waiting student is in the lobby list, never in the roster of the lesson', () => {
    const engine = live();
    engine.receiveEvent(pending(11, WREN, 'Wren'), 1);
    expect(deriveLobby(engine.state!)).toEqual([{ userId: WREN, displayName: 'Wren', status: 'pending' }]);
    expect(deriveRoster(engine.state!).some((e) => e.userId === WREN)).toBe(false);
  });

  test('L2: admitted, the student leaves the lobby and joins the roster (not here until their lease opens)', () => {
    const engine = live();
    engine.receiveEvent(pending(11, WREN, 'Wren'), 1);
    engine.receiveEvent(event(12, 'member.admitted', { userId: WREN, by: TEACHER }), 2);
    expect(deriveLobby(engine.state!)).toEqual([]);
    expect(deriveRoster(engine.state!).find((e) => e.userId === WREN)?.state).toBe('gone');
  });

  test('L3/L7: denied stays listed as declined; withdrawn is gone from both lists', () => {
    const engine = live();
    engine.receiveEvent(pending(11, WREN, 'Wren'), 1);
    engine.receiveEvent(pending(12, DEE, 'Dee'), 2);
    engine.receiveEvent(event(13, 'member.denied', { userId: DEE, by: TEACHER, reason: null }), 3);
    engine.receiveEvent(event(14, 'member.withdrawn', { userId: WREN }), 4);
    expect(deriveLobby(engine.state!)).toEqual([{ userId: DEE, displayName: 'Dee', status: 'denied' }]);
    expect(deriveRoster(engine.state!).some((e) => e.userId === DEE || e.userId === WREN)).toBe(false);
  });

  test('I1: a duplicated member.pending after the admission does not put the student back in the lobby', () => {
    const engine = live();
    engine.receiveEvent(pending(11, WREN, 'Wren'), 1);
    engine.receiveEvent(event(12, 'member.admitted', { userId: WREN, by: TEACHER }), 2);
    engine.receiveEvent(pending(11, WREN, 'Wren'), 3);
    expect(deriveLobby(engine.state!)).toEqual([]);
    expect(engine.state?.members.get(WREN)?.status).toBe('active');
  });
});
