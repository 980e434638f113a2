/**
 * Least privilege for real (docs/operations.md, "Database roles"): `pnpm db:migrate` runs as the
 * owner and creates the app role with its password; the server then runs as that role with
 * DATABASE_MIGRATE=false, and a lesson works end to end (join, socket, renewals, an edit, the
 * attendance report, a teacher deleting her lesson through the one purge path). The same role with
 * migrations on cannot start: it may not run DDL, which is exactly why the switch exists.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { ClientEvent } from '@wb/protocol';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { rect } from './support/board.ts';
import { FaultClient, createRoom, joinRoom, requestId } from './support/client.ts';
import { createScratchDatabase, killAll, postgresSkipReason, repoRoot, spawnServer, waitFor } from './support/serverProcess.ts';

const pgSkip = postgresSkipReason();
afterAll(killAll);

function run(script: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('exit', (code) => done({ code, output }));
  });
}

describe.skipIf(pgSkip !== null)(`least privilege${pgSkip ? ` (skipped: ${pgSkip})` : ''}`, () => {
  // Roles belong to the whole Postgres server: a name of its own keeps parallel runs apart.
  const role = `wb_app_t${randomBytes(4).toString('hex')}`;
  const password = randomUUID();
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${role}`).finally(() => admin.end());
  });

  test('db:migrate as the owner, then the server runs as the app role with DATABASE_MIGRATE=false', async () => {
    const db = await createScratchDatabase();
    cleanups.push(db.drop);
    const migrated = await run('apps/server/src/migrate.ts', { DATABASE_URL: db.url, WB_APP_ROLE: role, WB_APP_PASSWORD: password });
    expect(migrated.output).toContain(`role ${role}: grants applied, password set`);
    expect(migrated.code).toBe(0);

    const asApp = new URL(db.url);
    asApp.username = role;
    asApp.password = password;
    // Migrations on: the role may not create the migrations schema, so the server cannot start.
    const refused = await spawnServer({ databaseUrl: asApp.toString(), waitHealthy: false });
    const code = await new Promise((done) => refused.child.once('exit', done));
    expect(code).not.toBe(0);
    expect(refused.output()).toMatch(/permission denied/);

    const server = await spawnServer({ databaseUrl: asApp.toString(), env: { DATABASE_MIGRATE: 'false' } });
    cleanups.push(() => server.kill9());
    const who = await new pg.Client({ connectionString: db.url });
    await who.connect();
    const backends = await who
      .query<{ usename: string }>('SELECT DISTINCT usename FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [db.name])
      .finally(() => who.end());
    expect(backends.rows.map((r) => r.usename)).toEqual([role]);

    const teacher = await createRoom(server.url);
    const student = await joinRoom(server.url, teacher.room.code, 'Ada');
    const s = new FaultClient(server.url, student);
    await s.ready();
    await waitFor(() => s.renewals.some((r) => r.reply.ok), 'a renewal accepted as the app role');
    const created = await s.socket.timeout(5_000).emitWithAck(ClientEvent.ELEMENT_CREATE, { requestId: requestId(), id: randomUUID(), shape: rect(0, 0) });
    expect(created.ok).toBe(true);
    const report = await fetch(`${server.url}/api/rooms/${teacher.room.code}/attendance`, { headers: { authorization: `Bearer ${teacher.token}` } });
    expect(report.status).toBe(200);

    // A teacher deletes her lesson through the server running as the app role: the one purge
    // path deletes its attendance too, though the role itself may not.
    const signUp = await fetch(`${server.url}/api/teacher/sign-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `lp-${randomUUID()}@school.example`, password: 'correct horse battery', displayName: 'Ms Rivera' }),
    });
    const cookie = signUp.headers.get('set-cookie')!.split(';')[0]!;
    const lesson = (await (
      await fetch(`${server.url}/api/rooms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie },
        body: JSON.stringify({ teacherName: 'Ms Rivera', memberKey: randomBytes(18).toString('base64url') }),
      })
    ).json()) as { room: { id: string; code: string } };
    await joinRoom(server.url, lesson.room.code, 'Bo');
    const deleted = await fetch(`${server.url}/api/teacher/rooms/${lesson.room.code}/delete`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: '{}' });
    expect(deleted.status).toBe(200);
    const owner = new pg.Client({ connectionString: db.url });
    await owner.connect();
    const left = await owner
      .query<{ attendance: string; audits: string }>(
        `SELECT (SELECT count(*) FROM attendance WHERE room_id = $1) AS attendance,
                (SELECT count(*) FROM retention_purges WHERE room_id = $1 AND requested_by = 'teacher') AS audits`,
        [lesson.room.id],
      )
      .finally(() => owner.end());
    expect(left.rows[0]).toEqual({ attendance: '0', audits: '1' });
    s.close();
    await server.stop();
  });
});
