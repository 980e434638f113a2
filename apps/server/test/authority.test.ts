/**
 * Teacher authority (I11) end to end through real sockets: every operation a student's own socket
 * can send against someone else's work, under every policy and with a muted pen, gets the
 * documented refusal, and nothing is stored or broadcast; the teacher's history restores what a
 * student erased; reducing rights ends a drag at once.
 */
import { randomUUID } from 'node:crypto';
import { ClientEvent, ErrorCode, type EditPolicy, type ElementShape } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { TestClient, createRoom, describeOnEachDatabase, joinAs, joinRoom } from './support.ts';

const rect = (x: number): ElementShape => ({ kind: 'rect', x, y: 0, w: 100, h: 60, stroke: '#1f2937', fill: 'transparent', strokeWidth: 2 });
const rid = () => `req-${randomUUID()}`;

describeOnEachDatabase('teacher authority', { start: new Date('2030-05-01T09:00:00Z') }, (suite) => {
  const { client } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  const ask = <E extends Parameters<TestClient['socket']['emitWithAck']>[0]>(c: TestClient, event: E, ...args: unknown[]) =>
    (c.socket.timeout(10_000).emitWithAck as (event: string, ...rest: unknown[]) => Promise<unknown>)(event, ...args);
  const create = async (c: TestClient, x: number) => {
    const reply = (await ask(c, ClientEvent.ELEMENT_CREATE, { requestId: rid(), id: randomUUID(), shape: rect(x) })) as {
      ok: boolean;
      element: { id: string };
    };
    if (!reply.ok) throw new Error(`create: ${JSON.stringify(reply)}`);
    return reply.element.id;
  };
  const setPolicy = (c: TestClient, editPolicy: EditPolicy) => ask(c, ClientEvent.LESSON_SETTINGS, { requestId: rid(), settings: { editPolicy } });

  async function classroom() {
    const teacher = await createRoom(app);
    const ana = await joinAs(app, teacher.room.code, 'Ana');
    const ben = await joinAs(app, teacher.room.code, 'Ben');
    const t = client(app, teacher.token);
    const a = client(app, ana.token);
    const b = client(app, ben.token);
    await Promise.all([t.ready(), a.ready(), b.ready()]);
    return { teacher, ana, ben, t, a, b };
  }

  /** Every request a student's socket can make against the teacher's element, with its answer's code. */
  async function everyForbiddenRequest(a: TestClient, elementId: string, benId: string) {
    const code = async (event: string, request: object) => ((await ask(a, event as never, request)) as { error?: { code: string } }).error?.code ?? 'ok';
    return {
      update: await code(ClientEvent.ELEMENT_UPDATE, { requestId: rid(), id: elementId, baseVersion: 1, shape: rect(500) }),
      delete: await code(ClientEvent.ELEMENT_DELETE, { requestId: rid(), id: elementId }),
      erase: await code(ClientEvent.ELEMENT_DELETE, { requestId: rid(), id: elementId, erased: true }),
      lockAcquire: await code(ClientEvent.LOCK_ACQUIRE, { requestId: rid(), elementId }),
      restore: await code(ClientEvent.ELEMENT_RESTORE, { requestId: rid(), elementId, version: 1 }),
      clear: await code(ClientEvent.BOARD_CLEAR, { requestId: rid() }),
      removeWork: await code(ClientEvent.BOARD_CLEAR, { requestId: rid(), of: benId }),
      batchRestore: await code(ClientEvent.BATCH_RESTORE, { requestId: rid(), batchId: randomUUID() }),
      settings: await code(ClientEvent.LESSON_SETTINGS, { requestId: rid(), settings: { editPolicy: 'everyone' } }),
      pen: await code(ClientEvent.MEMBER_PEN, { requestId: rid(), userId: benId, muted: true }),
      history: await code(ClientEvent.HISTORY_LIST, {}),
    };
  }

  const teacherOnly = {
    restore: ErrorCode.FORBIDDEN,
    clear: ErrorCode.FORBIDDEN,
    removeWork: ErrorCode.FORBIDDEN,
    batchRestore: ErrorCode.FORBIDDEN,
    settings: ErrorCode.FORBIDDEN,
    pen: ErrorCode.FORBIDDEN,
    history: ErrorCode.FORBIDDEN,
  };
  const byPolicy = {
    update: ErrorCode.FORBIDDEN_BY_POLICY,
    delete: ErrorCode.FORBIDDEN_BY_POLICY,
    erase: ErrorCode.FORBIDDEN_BY_POLICY,
    lockAcquire: ErrorCode.FORBIDDEN_BY_POLICY,
  };

  test.each([
    ['own', false],
    ['look', false],
    ['everyone', true],
  ] as const)(
    'I11: under "%s" (pen muted: %s) a student\'s raw socket is refused every change of the teacher\'s work; nothing stored or broadcast',
    async (policy, muted) => {
      const { teacher, ana, ben, t, a, b } = await classroom();
      const teachers = await create(t, 0);
      await create(b, 200);
      expect(await setPolicy(t, policy)).toMatchObject({ ok: true, settings: { editPolicy: policy } });
      if (muted) expect(await ask(t, ClientEvent.MEMBER_PEN, { requestId: rid(), userId: ana.userId, muted: true })).toMatchObject({ ok: true, member: { penMuted: true } });
      // Ben hears everything up to here; whatever comes after is what Ana's packets caused.
      const before = (await app.store.loadRoomSnapshot(teacher.room.id))!;
      await b.until(() => b.received['room.event'].some((e) => e.revision === before.revision), 'the settled room');
      const heardBefore = b.received['room.event'].length;

      expect(await everyForbiddenRequest(a, teachers, ben.userId)).toEqual({ ...byPolicy, ...teacherOnly });
      const drawing = (await ask(a, ClientEvent.ELEMENT_CREATE, { requestId: rid(), id: randomUUID(), shape: rect(9) })) as { ok: boolean; error?: { code: string } };
      if (policy === 'own') expect(drawing.ok).toBe(true);
      else expect(drawing).toMatchObject({ ok: false, error: { code: ErrorCode.FORBIDDEN_BY_POLICY } });

      const after = (await app.store.loadRoomSnapshot(teacher.room.id))!;
      const theTeachers = (s: typeof after) => s.elements.find((e) => e.id === teachers);
      expect(theTeachers(after)).toEqual(theTeachers(before));
      expect(after.revision).toBe(before.revision + (drawing.ok ? 1 : 0));
      // A marker from the teacher: once Ben has it, anything Ana's packets published would be there too.
      const marker = await create(t, 300);
      await b.until(() => b.eventsOfKind('element.created').find((e) => e.payload.element.id === marker), 'the marker');
      expect(b.received['room.event'].slice(heardBefore).map((e) => e.kind)).toEqual([...(drawing.ok ? ['element.created'] : []), 'element.created']);
    },
  );

  test('I11: under "everyone" a student erases the teacher\'s work; the teacher finds it in the history and restores it for everyone', async () => {
    const { teacher, ana, t, a, b } = await classroom();
    const teachers = await create(t, 0);
    await setPolicy(t, 'everyone');
    expect(await ask(a, ClientEvent.ELEMENT_DELETE, { requestId: rid(), id: teachers, erased: true })).toMatchObject({ ok: true });
    const history = (await ask(t, ClientEvent.HISTORY_LIST, { by: ana.userId })) as { ok: true; entries: { elementId: string; action: string; version: number; previousVersion: number }[] };
    expect(history.entries.map((e) => [e.elementId, e.action])).toEqual([[teachers, 'erased']]);
    const restored = await ask(t, ClientEvent.ELEMENT_RESTORE, { requestId: rid(), elementId: teachers, version: history.entries[0]!.previousVersion });
    expect(restored).toMatchObject({ ok: true, element: { id: teachers, createdBy: teacher.userId, version: 3 } });
    const back = await b.until(() => b.eventsOfKind('element.restored').find((e) => e.payload.element.id === teachers), 'element.restored');
    expect(back.payload.element.createdBy).toBe(teacher.userId);
    expect((await app.store.loadRoomSnapshot(teacher.room.id))!.elements.map((e) => e.id)).toContain(teachers);
  });

  test('I11: "clear the board" is one action, and restoring it brings every element back', async () => {
    const { teacher, t, a, b } = await classroom();
    await create(t, 0);
    await create(a, 100);
    await create(b, 200);
    const cleared = (await ask(t, ClientEvent.BOARD_CLEAR, { requestId: rid() })) as { ok: true; batchId: string; count: number };
    expect(cleared).toMatchObject({ ok: true, count: 3 });
    expect((await app.store.loadRoomSnapshot(teacher.room.id))!.elements).toEqual([]);
    expect(await ask(t, ClientEvent.BATCH_RESTORE, { requestId: rid(), batchId: cleared.batchId })).toEqual({ ok: true, count: 3 });
    expect((await app.store.loadRoomSnapshot(teacher.room.id))!.elements).toHaveLength(3);
  });

  test('I11: a drag of the teacher\'s element ends at once when the policy becomes "own"; the late commit is stale', async () => {
    const { t, a } = await classroom();
    const teachers = await create(t, 0);
    await setPolicy(t, 'everyone');
    const held = (await ask(a, ClientEvent.LOCK_ACQUIRE, { requestId: rid(), elementId: teachers })) as { ok: true; grant: { generation: number } };
    expect(held.ok).toBe(true);
    await setPolicy(t, 'own');
    const ended = await a.until(() => a.eventsOfKind('lock.released').find((e) => e.payload.elementId === teachers), 'lock.released');
    expect(ended.payload.reason).toBe('broken');
    expect(await ask(a, ClientEvent.LOCK_RELEASE, { requestId: rid(), elementId: teachers, generation: held.grant.generation, shape: rect(700) })).toMatchObject({
      ok: false,
      error: { code: ErrorCode.STALE_GENERATION },
    });
  });

  test('the end of a lesson: every student told and disconnected, attendance closed as lesson_ended, joins refused, the teacher keeps the board and reopens it', async () => {
    const { teacher, ana, ben, t, a, b } = await classroom();
    const teachers = await create(t, 0);
    // A student cannot end the lesson.
    expect(await ask(a, ClientEvent.LESSON_END, { requestId: rid() })).toMatchObject({ ok: false, error: { code: ErrorCode.FORBIDDEN } });
    expect(await ask(t, ClientEvent.LESSON_END, { requestId: rid() })).toMatchObject({ ok: true, room: { status: 'ended' } });
    for (const s of [a, b]) {
      const ended = await s.until(() => s.received['session.ended'][0], 'session.ended');
      expect(ended).toEqual({ code: ErrorCode.LESSON_ENDED, message: 'The lesson has ended.' });
      await s.until(() => s.socket.disconnected, 'the disconnect');
    }
    const facts = await app.store.listAttendance(teacher.room.id);
    for (const student of [ana, ben]) {
      expect(facts.filter((f) => f.userId === student.userId).map((f) => f.kind)).toEqual(['joined', 'lesson_ended']);
    }
    // New joins and the students' old tokens are refused with the same clear code.
    const late = await joinRoom(app, teacher.room.code, 'Late');
    expect(late).toMatchObject({ status: 409, body: { error: { code: ErrorCode.LESSON_ENDED } } });
    const back = client(app, ana.token);
    await back.until(() => back.connectError, 'the refused handshake');
    expect(back.connectError?.data?.code).toBe(ErrorCode.LESSON_ENDED);
    // The teacher is still connected, reads the board and may still change it.
    expect(t.socket.connected).toBe(true);
    const sync = (await ask(t, ClientEvent.SYNC_REQUEST, {})) as { ok: true; sync: { kind: 'snapshot'; snapshot: { elements: { id: string }[] } } };
    expect(sync.sync.snapshot.elements.map((e) => e.id)).toEqual([teachers]);
    expect(await ask(t, ClientEvent.LESSON_REOPEN, { requestId: rid() })).toMatchObject({ ok: true, room: { status: 'open' } });
    expect(await joinRoom(app, teacher.room.code, 'Late')).toMatchObject({ status: 200 });
  });
});
