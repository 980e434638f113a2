import { randomUUID } from 'node:crypto';
import { ClientEvent, ErrorCode, cursorPosition, type CursorVisibility, type InkUpdate } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { createRoom, describeOnEachDatabase, joinAs, type TestClient } from './support.ts';

const rid = () => randomUUID().replaceAll('-', '');

/** How many cursor entries of each session a socket received, counted from the wire. */
function entriesBySession(c: TestClient): Map<string, number> {
  const counts = new Map<string, number>();
  for (const batch of c.received.cursors) {
    for (const { sessionId } of batch.cursors.map(cursorPosition)) counts.set(sessionId, (counts.get(sessionId) ?? 0) + 1);
  }
  return counts;
}

const barrierInk = (strokeId: string): InkUpdate => ({ strokeId, from: 0, points: [[1, 1, 0.5]], stroke: '#1e1e1e', strokeWidth: 3 });
const sawInk = (c: TestClient, strokeId: string) => c.received.cursors.some((b) => (b.ink ?? []).some((e) => e.strokeId === strokeId));

describeOnEachDatabase('cursor visibility', {}, (suite) => {
  const { client } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  /** A teacher and two students in a lesson created with `mode`, each cursor moved once. */
  async function lessonWithCursors(mode: CursorVisibility | undefined) {
    const teacher = await createRoom(app, 'Ms Rivera', mode ? { cursorVisibility: mode } : undefined);
    const ana = await joinAs(app, teacher.room.code, 'Ana');
    const ben = await joinAs(app, teacher.room.code, 'Ben');
    const t = client(app, teacher.token);
    const a = client(app, ana.token);
    const b = client(app, ben.token);
    for (const c of [t, a, b]) await c.ready();
    await moveAndSettle(t, [t, a, b], [teacher.sessionId, ana.sessionId, ben.sessionId], 1);
    return { teacher, ana, ben, t, a, b };
  }

  /**
   * Everyone moves their cursor to x; once the teacher (who sees everyone) has every entry, a
   * teacher's ink packet (which reaches everyone in every mode) marks that every batch before it
   * has reached every socket.
   */
  async function moveAndSettle(t: TestClient, all: TestClient[], sessionIds: string[], x: number) {
    for (const c of all) c.socket.emit(ClientEvent.CURSOR, { x, y: 0 });
    await t.until(
      () => sessionIds.every((id) => t.received.cursors.some((batch) => batch.cursors.map(cursorPosition).some((e) => e.sessionId === id && e.x === x))),
      `every cursor at x=${x} at the teacher`,
    );
    const barrier = randomUUID();
    t.socket.emit(ClientEvent.INK, barrierInk(barrier));
    for (const c of all) await c.until(() => sawInk(c, barrier), 'the barrier ink');
  }

  test("I12: under 'teacher' (a new lesson's default) a student's socket receives only the teacher's cursor entries; the teacher receives everyone's", async () => {
    const { teacher, ana, ben, t, a, b } = await lessonWithCursors(undefined);
    expect(teacher.room.settings.cursorVisibility).toBe('teacher');
    expect([...entriesBySession(t).keys()].sort()).toEqual([teacher.sessionId, ana.sessionId, ben.sessionId].sort());
    for (const student of [a, b]) expect([...entriesBySession(student).keys()]).toEqual([teacher.sessionId]);
  });

  test("I12: under 'everyone' every socket receives every member's cursor entries", async () => {
    const { teacher, ana, ben, t, a, b } = await lessonWithCursors('everyone');
    const all = [teacher.sessionId, ana.sessionId, ben.sessionId].sort();
    for (const c of [t, a, b]) expect([...entriesBySession(c).keys()].sort()).toEqual(all);
  });

  test("I12: under 'none' a student's socket receives no cursor entries at all, while drags and ink still reach it", async () => {
    const { teacher, ana, ben, t, a, b } = await lessonWithCursors('none');
    expect([...entriesBySession(t).keys()].sort()).toEqual([teacher.sessionId, ana.sessionId, ben.sessionId].sort());
    for (const student of [a, b]) {
      expect(entriesBySession(student).size).toBe(0);
      expect(student.received.cursors.some((batch) => (batch.ink ?? []).length > 0)).toBe(true);
    }
  });

  test('I12: a student who asks for more is refused forbidden and still receives only what the mode allows', async () => {
    const { teacher, ana, ben, t, a, b } = await lessonWithCursors('teacher');
    const asked = await a.socket.timeout(10_000).emitWithAck(ClientEvent.LESSON_SETTINGS, { requestId: rid(), settings: { cursorVisibility: 'everyone' } });
    expect(asked).toMatchObject({ ok: false, error: { code: ErrorCode.FORBIDDEN } });
    await moveAndSettle(t, [t, a, b], [teacher.sessionId, ana.sessionId, ben.sessionId], 2);
    for (const student of [a, b]) expect([...entriesBySession(student).keys()]).toEqual([teacher.sessionId]);
  });

  test("I12: the teacher changes the mode live: room.updated reaches the students and the next batches follow it", async () => {
    const { teacher, ana, ben, t, a, b } = await lessonWithCursors('teacher');
    const changed = await t.socket.timeout(10_000).emitWithAck(ClientEvent.LESSON_SETTINGS, { requestId: rid(), settings: { cursorVisibility: 'everyone' } });
    expect(changed).toMatchObject({ ok: true, settings: { cursorVisibility: 'everyone' } });
    for (const student of [a, b]) {
      await student.until(() => student.eventsOfKind('room.updated').find((e) => e.payload.settings.cursorVisibility === 'everyone'), 'the new mode');
    }
    await moveAndSettle(t, [t, a, b], [teacher.sessionId, ana.sessionId, ben.sessionId], 3);
    expect([...entriesBySession(a).keys()]).toContain(ben.sessionId);
    expect([...entriesBySession(b).keys()]).toContain(ana.sessionId);
  });
});
