/**
 * Issue 23 on the server: the lesson's paper is a setting only the teacher changes (a student's
 * hand-written packet is refused `forbidden`), it reaches every member with `room.updated` and a
 * late joiner with the snapshot; an equation element is validated at the edge (its LaTeX bounded).
 */
import { randomUUID } from 'node:crypto';
import { ClientEvent, ErrorCode, MAX_LATEX_LENGTH, type ElementShape, type LessonSettingsPatch } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { createRoom, describeOnEachDatabase, joinAs } from './support.ts';

const rid = () => randomUUID().replaceAll('-', '');
const equation = (latex: string): ElementShape => ({ kind: 'equation', x: 0, y: 0, w: 120, h: 40, latex, stroke: '#1e1e1e', fontSize: 28 });

describeOnEachDatabase('paper and equations', {}, (suite) => {
  const { client } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  test("I11: only the teacher sets the paper; a student's packet is refused forbidden; everyone hears the change and a late joiner's snapshot carries it", async () => {
    const teacher = await createRoom(app, 'Ms Rivera');
    const ana = await joinAs(app, teacher.room.code, 'Ana');
    const t = client(app, teacher.token);
    const a = client(app, ana.token);
    for (const c of [t, a]) await c.ready();
    // A hand-written packet: any string, as a modified client could send.
    const setPaper = (c: typeof t, paper: string) =>
      c.socket.timeout(10_000).emitWithAck(ClientEvent.LESSON_SETTINGS, { requestId: rid(), settings: { paper } as unknown as LessonSettingsPatch });

    expect(await setPaper(a, 'staff')).toMatchObject({ ok: false, error: { code: ErrorCode.FORBIDDEN } });
    expect(await setPaper(t, 'tartan')).toMatchObject({ ok: false, error: { code: ErrorCode.BAD_REQUEST } });
    expect(await setPaper(t, 'graph')).toMatchObject({ ok: true, settings: { paper: 'graph' } });
    await a.until(() => a.eventsOfKind('room.updated').find((e) => e.payload.settings.paper === 'graph'), 'graph paper at the student');
    expect(a.eventsOfKind('room.updated').some((e) => e.payload.settings.paper === 'staff')).toBe(false);

    const ben = await joinAs(app, teacher.room.code, 'Ben');
    const b = client(app, ben.token);
    const { sync } = await b.ready();
    expect(sync.kind === 'snapshot' ? sync.snapshot.room.settings.paper : sync.kind).toBe('graph');
  });

  test('an equation is an element like the others; LaTeX over the limit is refused bad_request naming shape.latex', async () => {
    const teacher = await createRoom(app, 'Ms Rivera');
    const t = client(app, teacher.token);
    await t.ready();
    const create = (shape: ElementShape) => t.socket.timeout(10_000).emitWithAck(ClientEvent.ELEMENT_CREATE, { requestId: rid(), id: randomUUID(), shape });
    const made = await create(equation('\\frac{1}{2}'));
    expect(made).toMatchObject({ ok: true, element: { shape: { kind: 'equation', latex: '\\frac{1}{2}' } } });
    const refused = await create(equation('x'.repeat(MAX_LATEX_LENGTH + 1)));
    expect(refused).toMatchObject({ ok: false, error: { code: ErrorCode.BAD_REQUEST } });
    expect(JSON.stringify(refused)).toContain('latex');
  });
});
