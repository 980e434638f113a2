import { randomUUID } from 'node:crypto';
import { ClientEvent, ErrorCode, ServerEvent, cursorPosition, type CursorBatch, type InkEntry, type InkUpdate, type RoomEvent } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { createRoom, describeOnEachDatabase, joinAs, type ServerSuite, type TestClient } from './support.ts';

const rid = () => randomUUID().replaceAll('-', '');
/** A tick long enough that a test can act while ink waits in the room's batch. */
const SLOW_TICK_MS = 400;

/** A teacher and two students, connected and synced. */
async function lessonOfThree(app: App, client: ServerSuite['client']) {
  // Students watch each other's cursors here (a later cursor is the barrier after dropped ink).
  const teacher = await createRoom(app, 'Ms Rivera', { cursorVisibility: 'everyone' });
  const student = await joinAs(app, teacher.room.code, 'Ana');
  const other = await joinAs(app, teacher.room.code, 'Ben');
  const t = client(app, teacher.token);
  await t.ready();
  const s = client(app, student.token);
  await s.ready();
  const o = client(app, other.token);
  await o.ready();
  return { teacher, student, other, t, s, o };
}

const inkAt = (c: TestClient, strokeId: string): InkEntry[] => c.received.cursors.flatMap((b) => (b.ink ?? []).filter((e) => e.strokeId === strokeId));
const pointsAt = (c: TestClient, strokeId: string) => inkAt(c, strokeId).flatMap((e) => e.points);
const ink = (strokeId: string, from: number, points: InkUpdate['points'], end?: InkUpdate['end']): InkUpdate => ({
  strokeId,
  from,
  points,
  stroke: '#1e1e1e',
  strokeWidth: 3,
  ...(end ? { end } : {}),
});

describeOnEachDatabase('live ink', {}, (suite) => {
  const { client } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  const lesson = () => lessonOfThree(app, client);

  test('I13: a stroke in progress reaches the others with its drawer\'s session and is never stored (no element, no event, no revision)', async () => {
    const { teacher, student, t, s, o } = await lesson();
    const before = await app.store.loadRoomSnapshot(teacher.room.id);
    const eventsBefore = t.received['room.event'].length;
    const strokeId = randomUUID();
    s.socket.emit(ClientEvent.INK, ink(strokeId, 0, [[10, 10, 0.5], [12, 11, 0.5]]));
    s.socket.emit(ClientEvent.INK, ink(strokeId, 2, [[14, 13, 0.6]]));
    for (const receiver of [t, o]) await receiver.until(() => pointsAt(receiver, strokeId).length === 3, 'all three points');
    expect(pointsAt(t, strokeId)).toEqual([[10, 10, 0.5], [12, 11, 0.5], [14, 13, 0.6]]);
    const entries = inkAt(o, strokeId);
    expect(entries.every((e) => e.sessionId === student.sessionId && e.stroke === '#1e1e1e' && e.strokeWidth === 3)).toBe(true);
    expect(entries[0]!.from).toBe(0);
    // The drawer's cursor follows its newest point: a drawing client sends no cursor packets beside.
    expect(t.received.cursors.flatMap((b) => b.cursors.map(cursorPosition)).filter((c) => c.sessionId === student.sessionId).at(-1)).toMatchObject({ x: 14, y: 13 });

    const after = await app.store.loadRoomSnapshot(teacher.room.id);
    expect(after?.revision).toBe(before?.revision);
    expect(after?.elements.some((e) => e.id === strokeId)).toBe(false);
    expect(t.received['room.event'].length).toBe(eventsBefore);
  });

  test("I11: a student's ink is refused forbidden_by_policy under 'look' and with a muted pen, and reaches no one; the teacher still draws live", async () => {
    const { t, s, o, student } = await lesson();
    const settings = (editPolicy: 'look' | 'everyone') =>
      t.socket.timeout(10_000).emitWithAck(ClientEvent.LESSON_SETTINGS, { requestId: rid(), settings: { editPolicy } });
    expect(await settings('look')).toMatchObject({ ok: true });
    await s.until(() => s.eventsOfKind('room.updated').find((e) => e.payload.settings.editPolicy === 'look'), 'look only');
    const refused = randomUUID();
    s.socket.emit(ClientEvent.INK, ink(refused, 0, [[1, 1, 0.5]]));
    const notice = await s.until(() => s.received.notice.find((n) => n.event === ClientEvent.INK), 'the ink notice');
    expect(notice.code).toBe(ErrorCode.FORBIDDEN_BY_POLICY);

    const allowed = randomUUID();
    t.socket.emit(ClientEvent.INK, ink(allowed, 0, [[5, 5, 0.5]]));
    await o.until(() => pointsAt(o, allowed).length === 1, "the teacher's ink");
    expect(inkAt(o, refused)).toEqual([]);
    expect(inkAt(t, refused)).toEqual([]);

    // Lifted: the student's ink flows again (the node heard room.updated).
    expect(await settings('everyone')).toMatchObject({ ok: true });
    await s.until(() => s.eventsOfKind('room.updated').find((e) => e.payload.settings.editPolicy === 'everyone'), 'everyone edits');
    const again = randomUUID();
    s.socket.emit(ClientEvent.INK, ink(again, 0, [[2, 2, 0.5]]));
    await t.until(() => pointsAt(t, again).length === 1, 'the student ink after the change');

    // Her pen muted: her ink stops at the server (member.pen heard); the teacher's still flows.
    expect(await t.socket.timeout(10_000).emitWithAck(ClientEvent.MEMBER_PEN, { requestId: rid(), userId: student.userId, muted: true })).toMatchObject({ ok: true });
    await s.until(() => s.eventsOfKind('member.pen').find((e) => e.payload.muted), 'pen muted');
    const muted = randomUUID();
    s.socket.emit(ClientEvent.INK, ink(muted, 0, [[3, 3, 0.5]]));
    // A later cursor from the same socket: once the others see it, her ink was handled (and dropped).
    s.socket.emit(ClientEvent.CURSOR, { x: 777, y: 777 });
    await o.until(
      () => o.received.cursors.flatMap((b) => b.cursors.map(cursorPosition)).some((c) => c.sessionId === student.sessionId && c.x === 777),
      'her later cursor',
    );
    expect(inkAt(o, muted)).toEqual([]);
    expect(inkAt(t, muted)).toEqual([]);
    expect(inkAt(o, muted)).toEqual([]);
  });

  test('I10: ink floods are rate_limited by the packet gate like cursors, and malformed ink gets bad_request', async () => {
    const { s } = await lesson();
    const strokeId = randomUUID();
    s.socket.emit(ClientEvent.INK, { ...ink(strokeId, 0, [[1, 1, 0.5]]), userId: randomUUID() } as never);
    const bad = await s.until(() => s.received.notice.find((n) => n.event === ClientEvent.INK), 'bad_request');
    expect(bad.code).toBe(ErrorCode.BAD_REQUEST);
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // notices are throttled to one a second
    for (let i = 0; i < 1_000; i++) s.socket.emit(ClientEvent.INK, ink(strokeId, i, [[i, i, 0.5]]));
    const limited = await s.until(() => s.received.notice.find((n) => n.code === ErrorCode.RATE_LIMITED), 'rate_limited');
    expect(limited.event).toBe(ClientEvent.INK);
  });

  test('/metrics counts database statements by what they were for: handshakes, creates, and live ink sends none', async () => {
    const scrape = async () => {
      const text = await (await fetch(`${app.url}/metrics`)).text();
      const count = (kind: string) =>
        text
          .split('\n')
          .filter((line) => line.startsWith('wb_db_statements_total{') && line.includes(`kind="${kind}"`))
          .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
      const lines = text.split('\n').filter((line) => line.startsWith('wb_db_statements_total{'));
      // `other` holds the rights cache's read of the board lock (once per room, then every 30 s).
      const stored = lines.filter((line) => !line.includes('kind="other"')).reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
      return { handshake: count('handshake'), create: count('create'), stored };
    };
    const { s } = await lesson();
    const before = await scrape();
    expect(before.handshake).toBeGreaterThan(0);
    const strokeId = randomUUID();
    for (let i = 0; i < 5; i++) s.socket.emit(ClientEvent.INK, ink(strokeId, i, [[i, i, 0.5]]));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const afterInk = await scrape();
    expect(afterInk.stored).toBe(before.stored);
    const created = await s.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_CREATE, {
      requestId: rid(),
      id: strokeId,
      shape: { kind: 'pen', x: 0, y: 0, points: [[0, 0, 0.5]], stroke: '#1e1e1e', strokeWidth: 3 },
    });
    expect(created).toMatchObject({ ok: true });
    const afterCreate = await scrape();
    expect(afterCreate.create).toBeGreaterThan(before.create);
  });
});

describeOnEachDatabase('live ink with a slow tick', { env: { CURSOR_TICK_MS: String(SLOW_TICK_MS), CURSOR_TICK_MIN_MS: String(SLOW_TICK_MS) } }, (suite) => {
  const { client } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });
  const lesson = (a: App) => lessonOfThree(a, client);

  test('pointer-up: the durable element carries the stroke id, and no ink of the stroke reaches a receiver after its element.created', async () => {
    const { t, s, o } = await lesson(app);
    const order: Array<{ kind: 'ink'; strokeId: string } | { kind: 'created'; id: string }> = [];
    o.socket.on(ServerEvent.CURSORS, (batch: CursorBatch) => {
      for (const e of batch.ink ?? []) order.push({ kind: 'ink', strokeId: e.strokeId });
    });
    o.socket.on(ServerEvent.ROOM_EVENT, (event: RoomEvent) => {
      if (event.kind === 'element.created') order.push({ kind: 'created', id: event.payload.element.id });
    });
    const strokeId = randomUUID();
    const points: InkUpdate['points'] = Array.from({ length: 20 }, (_, i) => [i, i, 0.5]);
    for (let i = 0; i < 20; i += 5) s.socket.emit(ClientEvent.INK, ink(strokeId, i, points.slice(i, i + 5)));
    // The first packet went out at once (a quiet room); the rest wait for the slow tick.
    await o.until(() => order.some((e) => e.kind === 'ink'), 'the first ink');
    s.socket.emit(ClientEvent.INK, ink(strokeId, 20, [], 'up'));
    const created = await s.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_CREATE, {
      requestId: rid(),
      id: strokeId,
      shape: { kind: 'pen', x: 0, y: 0, points: points.map(([x, y, p]): [number, number, number] => [x, y, p]), stroke: '#1e1e1e', strokeWidth: 3 },
    });
    expect(created).toMatchObject({ ok: true, element: { id: strokeId } });
    await o.until(() => order.some((e) => e.kind === 'created' && e.id === strokeId), 'element.created');
    // Two ticks later, anything still queued would have gone out.
    await new Promise((resolve) => setTimeout(resolve, 2 * SLOW_TICK_MS));
    const createdAt = order.findIndex((e) => e.kind === 'created' && e.id === strokeId);
    expect(order.slice(createdAt + 1).filter((e) => e.kind === 'ink' && e.strokeId === strokeId)).toEqual([]);
    expect(t.received.notice).toEqual([]);
  });

});
