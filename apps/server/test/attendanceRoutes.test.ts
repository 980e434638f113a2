import { AttendanceReport, ErrorCode } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { createRoom, describeOnEachDatabase, joinAs, post } from './support.ts';

const MIN = 60_000;

async function get(url: string, token?: string) {
  const response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: response.status, type: response.headers.get('content-type'), response };
}

describeOnEachDatabase('attendance report routes', {}, (suite) => {
  const { client, clock } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  test('the teacher gets the report as JSON and as CSV, with how each interval ended', async () => {
    const teacher = await createRoom(app);
    const ana = await joinAs(app, teacher.room.code, '=HYPERLINK("http://x","win")');
    const bo = await joinAs(app, teacher.room.code, 'Bo');
    const a = client(app, ana.token);
    const b = client(app, bo.token);
    await Promise.all([a.ready(), b.ready()]);
    clock.advance(5 * MIN);
    expect((await post(`${app.url}/api/session/sign-out`, {}, ana.token)).status).toBe(200);
    const revoke = await post(`${app.url}/api/rooms/${teacher.room.code}/members/${bo.userId}/revoke`, {}, teacher.token);
    expect(revoke.status).toBe(200);

    const json = await get(`${app.url}/api/rooms/${teacher.room.code}/attendance/report`, teacher.token);
    expect(json.status).toBe(200);
    const report = AttendanceReport.parse(await json.response.json());
    expect(report.room.code).toBe(teacher.room.code);
    // Sorted by name: '=' sorts before letters.
    expect(report.students.map((s) => [s.displayName, s.membership, s.connectedMs])).toEqual([
      ['=HYPERLINK("http://x","win")', 'active', 5 * MIN],
      ['Bo', 'revoked', 5 * MIN],
    ]);
    expect(report.students.flatMap((s) => s.sessions.flatMap((x) => x.intervals.map((i) => i.endedBy)))).toEqual([
      'signed_out',
      'membership_revoked',
    ]);

    const csv = await get(`${app.url}/api/rooms/${teacher.room.code}/attendance/report.csv`, teacher.token);
    expect(csv.status).toBe(200);
    expect(csv.type).toBe('text/csv; charset=utf-8');
    expect(csv.response.headers.get('content-disposition')).toMatch(
      new RegExp(`^attachment; filename="attendance-${teacher.room.code}-2030-01-06\\.csv"$`),
    );
    const lines = (await csv.response.text()).trimEnd().split('\r\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/^"'=HYPERLINK\(""http:\/\/x"",""win""\)",/);
    expect(lines[1]).toContain(',signed_out,signed out,300');
    expect(lines[2]).toMatch(/^Bo,.*,membership_revoked,removed,300$/);
  });

  test('authorization: a student cannot read the report of their own room', async () => {
    const teacher = await createRoom(app);
    const student = await joinAs(app, teacher.room.code, 'Cy');
    for (const path of ['report', 'report.csv']) {
      const refused = await get(`${app.url}/api/rooms/${teacher.room.code}/attendance/${path}`, student.token);
      expect(refused.status).toBe(403);
      expect(await refused.response.json()).toMatchObject({ error: { code: ErrorCode.FORBIDDEN } });
    }
  });

  test('authorization: a teacher cannot read the report of another teacher’s room', async () => {
    const mine = await createRoom(app, 'Mr A');
    const theirs = await createRoom(app, 'Ms B');
    const refused = await get(`${app.url}/api/rooms/${theirs.room.code}/attendance/report`, mine.token);
    expect(refused.status).toBe(403);
    expect(await refused.response.json()).toMatchObject({ error: { code: ErrorCode.FORBIDDEN } });
  });

  test('no token is not_authenticated; an unknown room is room_not_found', async () => {
    const teacher = await createRoom(app);
    const anonymous = await get(`${app.url}/api/rooms/${teacher.room.code}/attendance/report.csv`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.response.json()).toMatchObject({ error: { code: ErrorCode.NOT_AUTHENTICATED } });
    const missing = await get(`${app.url}/api/rooms/ZZZZZZ/attendance/report`, teacher.token);
    expect(missing.status).toBe(404);
    expect(await missing.response.json()).toMatchObject({ error: { code: ErrorCode.ROOM_NOT_FOUND } });
  });
});
