/**
 * Joining by name over the real server: the teacher's name is reserved in their lesson
 * (`409 name_reserved`, docs/protocol.md). PGlite and real Postgres.
 */
import { ErrorCode } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { createRoom, describeOnEachDatabase, joinRoom, newMemberKey } from './support.ts';

describeOnEachDatabase('joining by name', {}, (suite) => {
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  test('a student taking the teacher\'s name is refused with 409 name_reserved and may join under another', async () => {
    const teacher = await createRoom(app, 'Ms Rivera');
    const memberKey = newMemberKey();
    const refused = await joinRoom(app, teacher.room.code, ' ms  rivera', memberKey);
    expect(refused.status).toBe(409);
    expect(refused.body.error?.code).toBe(ErrorCode.NAME_RESERVED);
    const joined = await joinRoom(app, teacher.room.code, 'Rivera fan', memberKey);
    expect(joined.status).toBe(200);
  });
});
