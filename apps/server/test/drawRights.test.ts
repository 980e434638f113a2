import { describe, expect, test } from 'vitest';
import type { RoomInfo } from '@wb/protocol';
import { DrawRights, type RoomDrawRights } from '../src/realtime/drawRights.ts';

/** A read the test answers when it likes. */
function deferredReads() {
  const pending: Array<{ roomId: string; answer: (rights: RoomDrawRights | null) => void }> = [];
  const read = (roomId: string) => new Promise<RoomDrawRights | null>((resolve) => pending.push({ roomId, answer: resolve }));
  return { pending, read };
}
const settle = () => new Promise((resolve) => setImmediate(resolve));
const rights = (editPolicy: RoomDrawRights['editPolicy'], mutedUserIds: string[] = [], status: RoomDrawRights['status'] = 'open'): RoomDrawRights => ({
  editPolicy,
  status,
  mutedUserIds,
  cursorVisibility: 'teacher',
  laserAllowed: false,
});
const room = (editPolicy: RoomDrawRights['editPolicy'], status: RoomInfo['status'] = 'open'): RoomInfo => ({
  id: 'r',
  code: 'ABCDEF',
  title: 'Lesson',
  status,
  requireApproval: false,
  settings: { editPolicy, cursorVisibility: 'teacher', laserAllowed: false, paper: 'dots' },
});

describe('DrawRights: who may send live ink, without a database read per packet', () => {
  test('a teacher always may; a student is unknown until the room is read once, then follows the edit policy', async () => {
    const reads = deferredReads();
    const cache = new DrawRights(reads.read, () => 0);
    expect(cache.mayDraw('r', 'teacher', 't')).toBe(true);
    expect(cache.mayDraw('r', 'student', 's')).toBeNull();
    expect(cache.mayDraw('r', 'student', 's')).toBeNull();
    expect(reads.pending).toHaveLength(1); // one read per room, however many packets ask
    reads.pending[0]!.answer(rights('own'));
    await settle();
    expect(cache.mayDraw('r', 'student', 's')).toBe(true);
    cache.roomUpdated(room('look'));
    expect(cache.mayDraw('r', 'student', 's')).toBe('lookOnly');
    cache.roomUpdated(room('everyone', 'ended'));
    expect(cache.mayDraw('r', 'student', 's')).toBe('lessonClosed');
  });

  test('a muted pen stops only that student, read from the store and followed from member.pen', async () => {
    const reads = deferredReads();
    const cache = new DrawRights(reads.read, () => 0);
    void cache.learn('r');
    reads.pending[0]!.answer(rights('everyone', ['ben']));
    await settle();
    expect(cache.mayDraw('r', 'student', 'ben')).toBe('penMuted');
    expect(cache.mayDraw('r', 'student', 'ana')).toBe(true);
    cache.penChanged('r', 'ben', false);
    cache.penChanged('r', 'ana', true);
    expect(cache.mayDraw('r', 'student', 'ben')).toBe(true);
    expect(cache.mayDraw('r', 'student', 'ana')).toBe('penMuted');
  });

  test("I1: an event heard while a read is under way wins over the read's older answer", async () => {
    let now = 0;
    const reads = deferredReads();
    const cache = new DrawRights(reads.read, () => now);
    void cache.learn('r');
    reads.pending[0]!.answer(rights('everyone'));
    await settle();
    now = 30_000; // stale: the next ask reads again
    expect(cache.mayDraw('r', 'student', 's')).toBe(true);
    now = 30_005;
    cache.roomUpdated(room('look'));
    reads.pending[1]!.answer(rights('everyone'));
    await settle();
    expect(cache.mayDraw('r', 'student', 's')).toBe('lookOnly');
  });

  test('a cached answer is read again in the background after its refresh time, and kept meanwhile', async () => {
    let now = 0;
    const reads = deferredReads();
    const cache = new DrawRights(reads.read, () => now, 1_000);
    void cache.learn('r');
    reads.pending[0]!.answer(rights('own'));
    await settle();
    now = 1_000;
    expect(cache.mayDraw('r', 'student', 's')).toBe(true);
    expect(reads.pending).toHaveLength(2);
    reads.pending[1]!.answer(rights('look')); // a change whose event this node never heard (a lost relay)
    await settle();
    expect(cache.mayDraw('r', 'student', 's')).toBe('lookOnly');
  });
});
