import { randomUUID } from 'node:crypto';
import { ClientEvent, ErrorCode, type InkUpdate, type SharedView } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { createRoom, describeOnEachDatabase, joinAs, type TestClient } from './support.ts';

const rid = () => randomUUID().replaceAll('-', '');
const barrierInk = (strokeId: string): InkUpdate => ({ strokeId, from: 0, points: [[1, 1, 0.5]], stroke: '#1e1e1e', strokeWidth: 3 });
const sawInk = (c: TestClient, strokeId: string) => c.received.cursors.some((b) => (b.ink ?? []).some((e) => e.strokeId === strokeId));
const laserOf = (c: TestClient, sessionId: string) => c.received.cursors.flatMap((b) => b.laser ?? []).filter(([s]) => s === sessionId);
const viewsAt = (c: TestClient) => c.received.cursors.flatMap((b) => (b.viewport ? [b.viewport.view] : []));
const view = (cx: number): SharedView => ({ cx, cy: 100, w: 1280, h: 800 });

describeOnEachDatabase('the attention kit on the ephemeral path', {}, (suite) => {
  const { client } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  async function lesson(settings?: { cursorVisibility?: 'everyone' | 'teacher' | 'none' }) {
    const teacher = await createRoom(app, 'Ms Rivera', settings);
    const ana = await joinAs(app, teacher.room.code, 'Ana');
    const ben = await joinAs(app, teacher.room.code, 'Ben');
    const t = client(app, teacher.token);
    const a = client(app, ana.token);
    const b = client(app, ben.token);
    for (const c of [t, a, b]) await c.ready();
    return { teacher, ana, ben, t, a, b };
  }

  /** Every batch the teacher's ink packet follows has reached each of `clients` once they see it. */
  async function settle(t: TestClient, clients: TestClient[]) {
    const barrier = randomUUID();
    t.socket.emit(ClientEvent.INK, barrierInk(barrier));
    for (const c of clients) await c.until(() => sawInk(c, barrier), 'the barrier ink');
  }

  test("I13: a student's laser is refused forbidden_by_policy and reaches no one until the teacher allows it, and again once taken away; the teacher's always reaches everyone", async () => {
    const { teacher, ana, t, a, b } = await lesson({ cursorVisibility: 'none' });
    a.socket.emit(ClientEvent.LASER, { x: 10, y: 10 });
    const notice = await a.until(() => a.received.notice.find((n) => n.event === ClientEvent.LASER), 'the laser notice');
    expect(notice.code).toBe(ErrorCode.FORBIDDEN_BY_POLICY);
    t.socket.emit(ClientEvent.LASER, { x: 20, y: 20 });
    // Seen by every student even when students see no one's cursor.
    for (const c of [a, b]) await c.until(() => laserOf(c, teacher.sessionId).length > 0, "the teacher's laser");
    await settle(t, [t, b]);
    expect(laserOf(t, ana.sessionId)).toEqual([]);
    expect(laserOf(b, ana.sessionId)).toEqual([]);

    const allow = (laserAllowed: boolean) => t.socket.timeout(10_000).emitWithAck(ClientEvent.LESSON_SETTINGS, { requestId: rid(), settings: { laserAllowed } });
    expect(await allow(true)).toMatchObject({ ok: true, settings: { laserAllowed: true } });
    await a.until(() => a.eventsOfKind('room.updated').find((e) => e.payload.settings.laserAllowed), 'laser allowed');
    a.socket.emit(ClientEvent.LASER, { x: 30, y: 30 });
    for (const c of [t, b]) await c.until(() => laserOf(c, ana.sessionId).length > 0, "Ana's laser");

    expect(await allow(false)).toMatchObject({ ok: true });
    await a.until(() => a.eventsOfKind('room.updated').find((e) => !e.payload.settings.laserAllowed), 'laser taken away');
    const before = laserOf(b, ana.sessionId).length;
    a.socket.emit(ClientEvent.LASER, { x: 40, y: 40 });
    await settle(t, [b]);
    expect(laserOf(b, ana.sessionId)).toHaveLength(before);
  });

  test("I12: the teacher's viewport reaches the students following it and no one else; the teacher hears how many follow", async () => {
    const { teacher, t, a, b } = await lesson();
    expect(await t.socket.timeout(10_000).emitWithAck(ClientEvent.FOLLOW_PRESENT, { requestId: rid(), presenting: true, view: view(0) })).toMatchObject({ ok: true });
    for (const c of [a, b]) await c.until(() => c.received.follow.find((f) => f.kind === 'presenting' && f.presenting), 'presenting');
    expect(await a.socket.timeout(10_000).emitWithAck(ClientEvent.FOLLOW_SET, { requestId: rid(), following: true })).toEqual({ ok: true, following: true });
    await t.until(() => t.received.follow.find((f) => f.kind === 'followers' && f.count === 1), 'one follower');

    t.socket.emit(ClientEvent.VIEWPORT, view(500));
    await a.until(() => viewsAt(a).some((v) => v.cx === 500), 'the view at the follower');
    await settle(t, [b]);
    expect(viewsAt(b)).toEqual([]);
    expect(viewsAt(t)).toEqual([]);

    // Ana pans away: she stops following and the teacher's next view does not reach her.
    await a.socket.timeout(10_000).emitWithAck(ClientEvent.FOLLOW_SET, { requestId: rid(), following: false });
    await t.until(() => t.received.follow.some((f) => f.kind === 'followers' && f.count === 0), 'no follower left');
    t.socket.emit(ClientEvent.VIEWPORT, view(900));
    await settle(t, [a]);
    expect(viewsAt(a).some((v) => v.cx === 900)).toBe(false);

    // A follower whose connection closes no longer counts.
    await b.socket.timeout(10_000).emitWithAck(ClientEvent.FOLLOW_SET, { requestId: rid(), following: true });
    await t.until(() => t.received.follow.at(-1)?.kind === 'followers' && (t.received.follow.at(-1) as { count: number }).count === 1, 'Ben follows');
    b.close();
    await t.until(() => t.received.follow.at(-1)?.kind === 'followers' && (t.received.follow.at(-1) as { count: number }).count === 0, 'Ben gone');
    const c = client(app, (await joinAs(app, teacher.room.code, 'Cy')).token);
    await c.ready();

    // A student cannot lead: their viewport packets are refused, and reach no one.
    c.socket.emit(ClientEvent.VIEWPORT, view(1234));
    const refused = await c.until(() => c.received.notice.find((n) => n.event === ClientEvent.VIEWPORT), 'the viewport notice');
    expect(refused.code).toBe(ErrorCode.FORBIDDEN);
  });

  test("Follow (issue 21): a student who joins or reloads while the teacher presents is told at once, with the teacher's latest view; once it stops, no one is", async () => {
    const { teacher, ana, t } = await lesson();
    const presentingAt = (c: TestClient) => c.received.follow.find((f) => f.kind === 'presenting' && f.presenting);
    expect(await t.socket.timeout(10_000).emitWithAck(ClientEvent.FOLLOW_PRESENT, { requestId: rid(), presenting: true, view: view(0) })).toMatchObject({ ok: true });
    // The teacher moves on after pressing Present: a late joiner starts from where the teacher is now.
    t.socket.emit(ClientEvent.VIEWPORT, view(700));
    await settle(t, [t]);

    const cy = client(app, (await joinAs(app, teacher.room.code, 'Cy')).token);
    await cy.ready();
    const told = await cy.until(() => presentingAt(cy), 'presenting, for the late joiner');
    expect(told).toEqual({ kind: 'presenting', presenting: true, view: view(700) });
    // It comes after the sync: the board is there when the view moves.
    expect(cy.received.sync).toHaveLength(1);

    // Ana reloads (a new socket of the same session): she follows again at once.
    const reloaded = client(app, ana.token);
    await reloaded.ready();
    expect(await reloaded.until(() => presentingAt(reloaded), 'presenting, after the reload')).toMatchObject({ view: view(700) });

    // The teacher is not told to follow anyone.
    const teacherAgain = client(app, teacher.token);
    await teacherAgain.ready();

    expect(await t.socket.timeout(10_000).emitWithAck(ClientEvent.FOLLOW_PRESENT, { requestId: rid(), presenting: false, view: view(700) })).toMatchObject({ ok: true });
    const dee = client(app, (await joinAs(app, teacher.room.code, 'Dee')).token);
    await dee.ready();
    // A round trip of Dee's after her sync: anything sent on her connect has arrived by its answer.
    expect(await dee.socket.timeout(10_000).emitWithAck(ClientEvent.FOLLOW_SET, { requestId: rid(), following: false })).toEqual({ ok: true, following: false });
    expect(await teacherAgain.socket.timeout(10_000).emitWithAck(ClientEvent.FOLLOW_BRING, { requestId: rid(), view: view(1) })).toEqual({ ok: true });
    await dee.until(() => dee.received.follow.find((f) => f.kind === 'bring'), 'the barrier bring');
    expect(dee.received.follow.filter((f) => f.kind === 'presenting')).toEqual([]);
    expect(teacherAgain.received.follow.filter((f) => f.kind === 'presenting')).toEqual([]);
  });

  test('"Bring everyone to me" moves every student\'s view once; a student may not bring anyone', async () => {
    const { t, a, b } = await lesson();
    expect(await t.socket.timeout(10_000).emitWithAck(ClientEvent.FOLLOW_BRING, { requestId: rid(), view: view(321) })).toEqual({ ok: true });
    for (const c of [a, b]) await c.until(() => c.received.follow.find((f) => f.kind === 'bring' && f.view.cx === 321), 'brought');
    expect(await a.socket.timeout(10_000).emitWithAck(ClientEvent.FOLLOW_BRING, { requestId: rid(), view: view(1) })).toMatchObject({ ok: false, error: { code: ErrorCode.FORBIDDEN } });
  });
});
