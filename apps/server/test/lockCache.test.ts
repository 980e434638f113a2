import { describe, expect, test } from 'vitest';
import { LockCache } from '../src/realtime/lockCache.ts';

const ROOM = 'room';
const EL = 'element';

function cache() {
  let now = 1_000;
  const locks = new LockCache({ firstTermMs: 2_000, ttlMs: 5_000, marginMs: 500 }, () => now);
  return { locks, advance: (ms: number) => (now += ms), at: () => now };
}

describe('lock cache', () => {
  test('I4: generations only grow: an older event never replaces a newer one', () => {
    const { locks } = cache();
    locks.set(ROOM, EL, 'b', 3);
    locks.set(ROOM, EL, 'a', 2);
    locks.set(ROOM, EL, null, 2);
    expect(locks.get(ROOM, EL)).toMatchObject({ sessionId: 'b', generation: 3 });
    // A grant arriving after its own release (reordered delivery) does not revive the lock.
    locks.set(ROOM, EL, null, 4);
    locks.set(ROOM, EL, 'c', 4);
    expect(locks.get(ROOM, EL)).toMatchObject({ sessionId: null, generation: 4 });
  });

  test('a fresh grant is surely held for its first term minus the margin, by the holder only', () => {
    const { locks, advance } = cache();
    locks.set(ROOM, EL, 'a', 1);
    expect(locks.heldByOther(ROOM, EL, 'b')).toBe(true);
    expect(locks.heldByOther(ROOM, EL, 'a')).toBe(false); // the holder's own retry goes to the database
    advance(1_499);
    expect(locks.heldByOther(ROOM, EL, 'b')).toBe(true);
    advance(1);
    expect(locks.heldByOther(ROOM, EL, 'b')).toBe(false); // unsure from here on: the database decides
  });

  test('an extension this node made counts from when it was sent, for the full term', () => {
    const { locks, advance, at } = cache();
    locks.set(ROOM, EL, 'a', 1);
    advance(1_000);
    const sent = at();
    advance(200); // the database answered later
    locks.extended(ROOM, EL, 1, sent);
    advance(4_000); // 4,200 ms after the send: 300 ms short of term minus margin
    expect(locks.heldByOther(ROOM, EL, 'b')).toBe(true);
    advance(300);
    expect(locks.heldByOther(ROOM, EL, 'b')).toBe(false);
  });

  test('an extension of a generation that is no longer current changes nothing', () => {
    const { locks, advance, at } = cache();
    locks.set(ROOM, EL, 'a', 1);
    locks.set(ROOM, EL, null, 1);
    locks.extended(ROOM, EL, 1, at());
    expect(locks.heldByOther(ROOM, EL, 'b')).toBe(false);
    locks.set(ROOM, EL, 'b', 2);
    locks.extended(ROOM, EL, 1, at() + 10_000);
    advance(1_600);
    expect(locks.heldByOther(ROOM, EL, 'c')).toBe(false);
  });

  test('a released or unknown element is never refused from the cache', () => {
    const { locks } = cache();
    expect(locks.heldByOther(ROOM, EL, 'b')).toBe(false);
    locks.set(ROOM, EL, 'a', 1);
    locks.set(ROOM, EL, null, 1);
    expect(locks.heldByOther(ROOM, EL, 'b')).toBe(false);
    locks.set(ROOM, EL, 'a', 2);
    locks.forgetRoom(ROOM);
    expect(locks.heldByOther(ROOM, EL, 'b')).toBe(false);
  });
});
