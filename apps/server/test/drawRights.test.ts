import { describe, expect, test } from 'vitest';
import { DrawRights } from '../src/realtime/drawRights.ts';

/** A read the test answers when it likes. */
function deferredReads() {
  const pending: Array<{ roomId: string; answer: (locked: boolean | null) => void }> = [];
  const read = (roomId: string) => new Promise<boolean | null>((resolve) => pending.push({ roomId, answer: resolve }));
  return { pending, read };
}
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('DrawRights: who may send live ink, without a database read per packet', () => {
  test('a teacher always may; a student is unknown until the room is read once, then follows the board lock', async () => {
    const reads = deferredReads();
    const rights = new DrawRights(reads.read, () => 0);
    expect(rights.mayDraw('r', 'teacher')).toBe(true);
    expect(rights.mayDraw('r', 'student')).toBeNull();
    expect(rights.mayDraw('r', 'student')).toBeNull();
    expect(reads.pending).toHaveLength(1); // one read per room, however many packets ask
    reads.pending[0]!.answer(false);
    await settle();
    expect(rights.mayDraw('r', 'student')).toBe(true);
    rights.boardLocked('r', true);
    expect(rights.mayDraw('r', 'student')).toBe(false);
  });

  test('I1: an event heard while a read is under way wins over the read\'s older answer', async () => {
    let now = 0;
    const reads = deferredReads();
    const rights = new DrawRights(reads.read, () => now);
    rights.learn('r');
    now = 5;
    rights.boardLocked('r', true);
    reads.pending[0]!.answer(false);
    await settle();
    expect(rights.mayDraw('r', 'student')).toBe(false);
  });

  test('a cached answer is read again in the background after its refresh time, and kept meanwhile', async () => {
    let now = 0;
    const reads = deferredReads();
    const rights = new DrawRights(reads.read, () => now, 1_000);
    rights.learn('r');
    reads.pending[0]!.answer(false);
    await settle();
    now = 1_000;
    expect(rights.mayDraw('r', 'student')).toBe(true);
    expect(reads.pending).toHaveLength(2);
    reads.pending[1]!.answer(true); // a lock whose event this node never heard (a lost relay)
    await settle();
    expect(rights.mayDraw('r', 'student')).toBe(false);
  });
});
