import { randomUUID } from 'node:crypto';
import { ClientEvent, ErrorCode, type ElementShape } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { createRoom, describeOnEachDatabase, joinAs } from './support.ts';

const rect: ElementShape = { kind: 'rect', x: 0, y: 0, w: 100, h: 60, stroke: '#1f2937', fill: 'transparent', strokeWidth: 2 };
/** What the web client's rotate and resize handles send at pointer-up. */
const resizedAndTurned: ElementShape = { ...rect, x: -20, y: -10, w: 140, h: 80, rotation: 30 };
const rid = () => `req-${randomUUID()}`;

describeOnEachDatabase('resize and rotate are edits under the drag lock', { start: new Date('2030-04-02T09:00:00Z') }, (suite) => {
  const { client } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  async function classroom() {
    const teacher = await createRoom(app);
    const ana = await joinAs(app, teacher.room.code, 'Ana');
    const ben = await joinAs(app, teacher.room.code, 'Ben');
    const t = client(app, teacher.token);
    const a = client(app, ana.token);
    const b = client(app, ben.token);
    await Promise.all([t.ready(), a.ready(), b.ready()]);
    expect(await t.socket.timeout(10_000).emitWithAck(ClientEvent.LESSON_SETTINGS, { requestId: rid(), settings: { editPolicy: 'everyone' } })).toMatchObject({ ok: true });
    const created = await a.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_CREATE, { requestId: rid(), id: randomUUID(), shape: rect });
    if (!created.ok) throw new Error('create failed');
    return { t, a, b, element: created.element };
  }

  test('TR5: the holder\'s drop writes the resized, turned shape, and everyone gets it', async () => {
    const { t, a, element } = await classroom();
    const granted = await a.socket.timeout(10_000).emitWithAck(ClientEvent.LOCK_ACQUIRE, { requestId: rid(), elementId: element.id });
    if (!granted.ok) throw new Error('lock refused');
    const released = await a.socket
      .timeout(10_000)
      .emitWithAck(ClientEvent.LOCK_RELEASE, { requestId: rid(), elementId: element.id, generation: granted.grant.generation, shape: resizedAndTurned });
    expect(released).toMatchObject({ ok: true, element: { lock: null, shape: resizedAndTurned } });
    await t.until(() => t.eventsOfKind('element.updated').some((e) => e.payload.element.id === element.id && e.payload.element.shape.kind === 'rect' && e.payload.element.shape.rotation === 30), 'the turned rectangle');
  });

  test('TR6: a hand-written resize or turn of an element someone else holds is refused as the UI refuses it', async () => {
    const { a, b, element } = await classroom();
    const granted = await a.socket.timeout(10_000).emitWithAck(ClientEvent.LOCK_ACQUIRE, { requestId: rid(), elementId: element.id });
    if (!granted.ok) throw new Error('lock refused');
    // Ben's handles would not start (the element is held); a packet without the lock is refused.
    expect(await b.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_UPDATE, { requestId: rid(), id: element.id, baseVersion: element.version, shape: resizedAndTurned })).toMatchObject({
      ok: false,
      error: { code: ErrorCode.LOCKED },
    });
    expect(await b.socket.timeout(10_000).emitWithAck(ClientEvent.LOCK_ACQUIRE, { requestId: rid(), elementId: element.id })).toMatchObject({ ok: false, error: { code: ErrorCode.LOCKED } });
    // Nor can Ben commit under Ana's generation: it is not his lock.
    expect(
      await b.socket.timeout(10_000).emitWithAck(ClientEvent.LOCK_RELEASE, { requestId: rid(), elementId: element.id, generation: granted.grant.generation, shape: resizedAndTurned }),
    ).toMatchObject({ ok: false, error: { code: ErrorCode.STALE_GENERATION } });
  });

  test("TR15: a resize in progress reaches the others as the holder's lock.move with its frame; a non-holder's hand-written frame is dropped like a drag", async () => {
    const { t, a, b, element } = await classroom();
    const granted = await a.socket.timeout(10_000).emitWithAck(ClientEvent.LOCK_ACQUIRE, { requestId: rid(), elementId: element.id });
    if (!granted.ok) throw new Error('lock refused');
    const g = granted.grant.generation;
    const dragsOf = () => t.received.cursors.flatMap((batch) => batch.drags ?? []).filter((d) => d.elementId === element.id);
    // Ben forges a preview under Ana's generation, then moves an element of his own: once the
    // teacher sees that, his forged packet (sent before it on the same socket) was processed.
    b.socket.emit(ClientEvent.LOCK_MOVE, { elementId: element.id, generation: g, x: 1, y: 1, frame: { x: 1, y: 1, w: 9_999, h: 9_999, rotation: 90 } });
    const own = await b.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_CREATE, { requestId: rid(), id: randomUUID(), shape: { ...rect, x: -900 } });
    if (!own.ok) throw new Error('create failed');
    const held = await b.socket.timeout(10_000).emitWithAck(ClientEvent.LOCK_ACQUIRE, { requestId: rid(), elementId: own.element.id });
    if (!held.ok) throw new Error('lock refused');
    b.socket.emit(ClientEvent.LOCK_MOVE, { elementId: own.element.id, generation: held.grant.generation, x: -800, y: 0 });
    await t.until(() => t.received.cursors.some((batch) => (batch.drags ?? []).some((d) => d.elementId === own.element.id)), "Ben's own move");
    // Ana, the holder, drags the corner: the teacher gets her frame with the element's new x, y.
    const frame = { x: -20, y: -10, w: 140, h: 80, rotation: 0 };
    a.socket.emit(ClientEvent.LOCK_MOVE, { elementId: element.id, generation: g, x: -20, y: -10, frame });
    const seen = await t.until(() => dragsOf().find((d) => d.frame !== undefined), "Ana's resize preview");
    expect(seen).toMatchObject({ generation: g, userId: element.createdBy, x: -20, y: -10, frame });
    expect(dragsOf().some((d) => d.frame?.w === 9_999)).toBe(false);
    // A malformed frame is a bad_request notice, as any malformed lock.move: nothing fans out.
    a.socket.emit(ClientEvent.LOCK_MOVE, { elementId: element.id, generation: g, x: 0, y: 0, frame: { ...frame, rotation: 720 } });
    await a.until(() => a.received.notice.find((n) => n.code === ErrorCode.BAD_REQUEST), 'the notice');
    expect(dragsOf().some((d) => d.frame?.rotation === 720)).toBe(false);
  });

  test('TR7: a turn outside [0, 360) is refused at the edge and nothing changes', async () => {
    const { a, element } = await classroom();
    const reply = await a.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_UPDATE, { requestId: rid(), id: element.id, baseVersion: element.version, shape: { ...rect, rotation: 400 } });
    expect(reply).toMatchObject({ ok: false, error: { code: ErrorCode.BAD_REQUEST } });
  });
});
