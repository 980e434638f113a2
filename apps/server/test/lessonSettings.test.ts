/**
 * Who may set each lesson setting is its declaration's (LESSON_SETTINGS), decided by the server: a
 * student's hand-written `lesson.settings` naming any teacher-only setting is refused `forbidden`
 * and nobody hears a change; the teacher's same packet is applied.
 */
import { randomUUID } from 'node:crypto';
import { ClientEvent, DEFAULT_LESSON_SETTINGS, ErrorCode, SETTING_NAMES, everySettingValue, maySetSetting, type LessonSettingsPatch } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { createRoom, describeOnEachDatabase, joinAs } from './support.ts';

const rid = () => randomUUID().replaceAll('-', '');

describeOnEachDatabase('declared lesson settings', {}, (suite) => {
  const { client } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  test("I11: a student's hand-written packet setting any teacher-only setting is refused forbidden; the teacher's is applied", async () => {
    const teacher = await createRoom(app, 'Ms Rivera');
    const ana = await joinAs(app, teacher.room.code, 'Ana');
    const t = client(app, teacher.token);
    const a = client(app, ana.token);
    for (const c of [t, a]) await c.ready();
    const send = (c: typeof t, settings: Record<string, unknown>) =>
      c.socket.timeout(10_000).emitWithAck(ClientEvent.LESSON_SETTINGS, { requestId: rid(), settings: settings as LessonSettingsPatch });

    const teacherOnly = SETTING_NAMES.filter((name) => !maySetSetting('student', name));
    expect(teacherOnly).toEqual(SETTING_NAMES);
    for (const name of teacherOnly) {
      const other = everySettingValue(name).find((v) => v !== DEFAULT_LESSON_SETTINGS[name]);
      expect(await send(a, { [name]: other }), name).toMatchObject({ ok: false, error: { code: ErrorCode.FORBIDDEN } });
    }
    expect(a.eventsOfKind('room.updated')).toEqual([]);
    for (const name of teacherOnly) {
      const other = everySettingValue(name).find((v) => v !== DEFAULT_LESSON_SETTINGS[name]);
      expect(await send(t, { [name]: other }), name).toMatchObject({ ok: true, settings: { [name]: other } });
    }
    await a.until(() => a.eventsOfKind('room.updated').length === teacherOnly.length || undefined, 'every change at the student');
  });
});
