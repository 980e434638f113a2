/**
 * The lobby over the real server (docs/store.md "The lobby", L1-L7; docs/protocol.md): a waiting
 * student gets a session but no socket, the teacher admits or denies them through the teacher
 * guard, and the waiting page learns the decision from the admission route. PGlite and Postgres.
 */
import { ErrorCode, type SessionGrant } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { describeOnEachDatabase, joinRoom, newMemberKey, post } from './support.ts';

type Reply = { ok?: boolean; decision?: string; admitted?: string[]; admission?: string; error?: { code: string } };

describeOnEachDatabase('lobby', {}, (suite) => {
  const { client } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  async function lobbyRoom(): Promise<SessionGrant> {
    const created = await post<SessionGrant>(`${app.url}/api/rooms`, { teacherName: 'Ms Rivera', memberKey: newMemberKey(), requireApproval: true });
    expect(created.status).toBe(201);
    expect(created.body.room.requireApproval).toBe(true);
    return created.body;
  }
  const knock = async (code: string, name: string, memberKey = newMemberKey()) => {
    const joined = await joinRoom(app, code, name, memberKey);
    expect(joined.status).toBe(200);
    return { grant: joined.body, memberKey };
  };
  const teacherAct = (grant: SessionGrant, code: string, path: string, body: unknown = {}) =>
    post<Reply>(`${app.url}/api/rooms/${code}/${path}`, body, grant.token);
  const admission = async (grant: SessionGrant, waitMs = 0) => {
    const response = await fetch(`${app.url}/api/session/admission?waitMs=${waitMs}`, { headers: { authorization: `Bearer ${grant.token}` } });
    return { status: response.status, body: (await response.json()) as Reply };
  };
  /** An admission request held open, returned once it is parked on the server (not before). */
  const parkedAdmission = async (grant: SessionGrant, waitMs: number) => {
    const before = app.lobbyWaiters.waiting;
    const answer = admission(grant, waitMs);
    await expect.poll(() => app.lobbyWaiters.waiting, { timeout: 10_000, interval: 10 }).toBe(before + 1);
    return { answer };
  };
  const statusOf = async (roomId: string, userId: string) =>
    (await app.store.listMembers(roomId)).find((m) => m.userId === userId)?.status;

  test('L1: a waiting student gets a pending session; the handshake refuses it with awaiting_approval; the teacher hears member.pending', async () => {
    const teacher = await lobbyRoom();
    const t = client(app, teacher.token);
    await t.ready();
    const { grant } = await knock(teacher.room.code, 'Wren');
    expect(grant.admission).toBe('pending');
    const pending = await t.until(() => t.eventsOfKind('member.pending').find((e) => e.payload.userId === grant.userId), 'member.pending');
    expect(pending.payload).toMatchObject({ displayName: 'Wren', status: 'pending', role: 'student' });

    const s = client(app, grant.token);
    await s.until(() => s.connectError, 'handshake refusal');
    expect(s.connectError?.data?.code).toBe(ErrorCode.AWAITING_APPROVAL);
    expect(s.received.welcome).toEqual([]);
    expect(s.received.sync).toEqual([]);
    // Nothing about the board over HTTP either: the session's bearer routes answer awaiting_approval.
    const report = await fetch(`${app.url}/api/rooms/${teacher.room.code}/attendance/report`, { headers: { authorization: `Bearer ${grant.token}` } });
    expect(report.status).toBe(403);
    expect(((await report.json()) as Reply).error?.code).toBe(ErrorCode.AWAITING_APPROVAL);
    expect(await admission(grant)).toEqual({ status: 200, body: { admission: 'pending' } });
    expect(await app.store.listPresence(teacher.room.id)).toHaveLength(1);
  });

  test('L2: admit wakes the waiting page, the same session then connects and syncs; a second admit changes nothing', async () => {
    const teacher = await lobbyRoom();
    const t = client(app, teacher.token);
    await t.ready();
    const { grant } = await knock(teacher.room.code, 'Ada');
    const started = Date.now();
    // The request is parked before the teacher decides.
    const { answer: waiting } = await parkedAdmission(grant, 20_000);
    expect(await teacherAct(teacher, teacher.room.code, `members/${grant.userId}/admit`)).toEqual({
      status: 200,
      body: { ok: true, decision: 'admitted' },
    });
    expect(await waiting).toEqual({ status: 200, body: { admission: 'admitted' } });
    // Half the park's 20 s: woken by the admit, not answered at the park's end.
    expect(Date.now() - started).toBeLessThan(10_000);

    const s = client(app, grant.token);
    const { welcome, sync } = await s.ready();
    expect(welcome.userId).toBe(grant.userId);
    expect(sync.kind === 'snapshot' && sync.snapshot.members.find((m) => m.userId === grant.userId)?.status).toBe('active');
    const renewed = await s.renew(welcome.leaseRevision + 1, 'renew-after-admit');
    expect(renewed).toMatchObject({ ok: true, decision: 'accepted' });

    expect(await teacherAct(teacher, teacher.room.code, `members/${grant.userId}/admit`)).toEqual({
      status: 200,
      body: { ok: true, decision: 'not_waiting' },
    });
    await t.until(() => t.eventsOfKind('presence.opened').some((e) => e.payload.userId === grant.userId), 'presence.opened');
    expect(t.eventsOfKind('member.admitted').filter((e) => e.payload.userId === grant.userId)).toHaveLength(1);
  });

  test('L3: deny keeps them out: the waiting page hears denied, the handshake and a rejoin are refused with admission_denied', async () => {
    const teacher = await lobbyRoom();
    const { grant, memberKey } = await knock(teacher.room.code, 'Dee');
    const { answer: waiting } = await parkedAdmission(grant, 20_000);
    expect(await teacherAct(teacher, teacher.room.code, `members/${grant.userId}/deny`, { reason: 'Not in this class' })).toEqual({
      status: 200,
      body: { ok: true, decision: 'denied' },
    });
    expect(await waiting).toEqual({ status: 200, body: { admission: 'denied' } });
    const s = client(app, grant.token);
    await s.until(() => s.connectError, 'handshake refusal');
    expect(s.connectError?.data?.code).toBe(ErrorCode.ADMISSION_DENIED);
    const again = await joinRoom(app, teacher.room.code, 'Dee', memberKey);
    expect([again.status, again.body.error?.code]).toEqual([403, ErrorCode.ADMISSION_DENIED]);
    expect(await teacherAct(teacher, teacher.room.code, `members/${grant.userId}/deny`)).toEqual({
      status: 200,
      body: { ok: true, decision: 'not_waiting' },
    });
    expect(await statusOf(teacher.room.id, grant.userId)).toBe('denied');
  });

  test('authorization: a student (admitted or waiting) cannot admit, deny, admit all or change the setting', async () => {
    const teacher = await lobbyRoom();
    const { grant: waiting } = await knock(teacher.room.code, 'Wes');
    const { grant: other } = await knock(teacher.room.code, 'Ola');
    await teacherAct(teacher, teacher.room.code, `members/${other.userId}/admit`);
    const admitted = { ...other, admission: 'admitted' as const };
    const paths: [string, unknown][] = [
      [`members/${waiting.userId}/admit`, {}],
      [`members/${waiting.userId}/deny`, {}],
      ['lobby/admit-all', {}],
      ['settings', { requireApproval: false }],
    ];
    for (const [path, body] of paths) {
      const byAdmitted = await teacherAct(admitted, teacher.room.code, path, body);
      expect([path, byAdmitted.status, byAdmitted.body.error?.code]).toEqual([path, 403, ErrorCode.FORBIDDEN]);
      // Waiting themselves: they cannot even be a student yet.
      const bySelf = await teacherAct(waiting, teacher.room.code, path, body);
      expect([path, bySelf.status, bySelf.body.error?.code]).toEqual([path, 403, ErrorCode.AWAITING_APPROVAL]);
    }
    expect(await statusOf(teacher.room.id, waiting.userId)).toBe('pending');
    expect((await app.store.findRoomById(teacher.room.id))?.requireApproval).toBe(true);
  });

  test('authorization: a teacher cannot admit, deny or change settings in another teacher’s room', async () => {
    const mine = await lobbyRoom();
    const theirs = await lobbyRoom();
    const { grant } = await knock(theirs.room.code, 'Cy');
    for (const [path, body] of [
      [`members/${grant.userId}/admit`, {}],
      [`members/${grant.userId}/deny`, {}],
      ['lobby/admit-all', {}],
      ['settings', { requireApproval: false }],
    ] as const) {
      const refused = await teacherAct(mine, theirs.room.code, path, body);
      expect([path, refused.status, refused.body.error?.code]).toEqual([path, 403, ErrorCode.FORBIDDEN]);
    }
    // Their student named under my room's code is no member of mine.
    const crossed = await teacherAct(mine, mine.room.code, `members/${grant.userId}/admit`);
    expect([crossed.status, crossed.body.error?.code]).toEqual([404, ErrorCode.NOT_FOUND]);
    expect(await teacherAct(mine, mine.room.code, 'lobby/admit-all')).toEqual({ status: 200, body: { ok: true, admitted: [] } });
    expect(await statusOf(theirs.room.id, grant.userId)).toBe('pending');
  });

  test('L4: turning approval off admits nobody who waits; later joiners go straight in; admit all lets the waiting in', async () => {
    const teacher = await lobbyRoom();
    const t = client(app, teacher.token);
    await t.ready();
    const { grant: early } = await knock(teacher.room.code, 'Early');
    const off = await teacherAct(teacher, teacher.room.code, 'settings', { requireApproval: false });
    expect(off.body).toMatchObject({ ok: true, decision: 'changed', room: { requireApproval: false } });
    const updated = await t.until(() => t.eventsOfKind('room.updated').find((e) => !e.payload.requireApproval), 'room.updated');
    expect(updated.payload.code).toBe(teacher.room.code);
    expect(await admission(early)).toEqual({ status: 200, body: { admission: 'pending' } });
    const late = await knock(teacher.room.code, 'Late');
    expect(late.grant.admission).toBe('admitted');
    await client(app, late.grant.token).ready();

    const all = await teacherAct(teacher, teacher.room.code, 'lobby/admit-all');
    expect(all.body).toEqual({ ok: true, admitted: [early.userId] });
    expect(await admission(early)).toEqual({ status: 200, body: { admission: 'admitted' } });
    const bad = await teacherAct(teacher, teacher.room.code, 'settings', { requireApproval: 'yes' });
    expect([bad.status, bad.body.error?.code]).toEqual([400, ErrorCode.BAD_REQUEST]);
  });

  test('L6: a member admitted before comes straight back in on the same browser; a revoked one stays refused', async () => {
    const teacher = await lobbyRoom();
    const { grant, memberKey } = await knock(teacher.room.code, 'Rae');
    await teacherAct(teacher, teacher.room.code, `members/${grant.userId}/admit`);
    const back = await joinRoom(app, teacher.room.code, 'Rae', memberKey);
    expect([back.status, back.body.admission, back.body.userId]).toEqual([200, 'admitted', grant.userId]);
    // A waiting member is not removed but declined.
    const { grant: waiting } = await knock(teacher.room.code, 'Wai');
    const revokeWaiting = await teacherAct(teacher, teacher.room.code, `members/${waiting.userId}/revoke`);
    expect([revokeWaiting.status, revokeWaiting.body.error?.code]).toEqual([409, ErrorCode.CONFLICT]);
    await teacherAct(teacher, teacher.room.code, `members/${grant.userId}/revoke`);
    const refused = await joinRoom(app, teacher.room.code, 'Rae', memberKey);
    expect([refused.status, refused.body.error?.code]).toEqual([403, ErrorCode.MEMBERSHIP_REVOKED]);
  });

  test('L7: leaving the waiting page withdraws the request: the teacher hears member.withdrawn and the session is over', async () => {
    const teacher = await lobbyRoom();
    const t = client(app, teacher.token);
    await t.ready();
    const { grant } = await knock(teacher.room.code, 'Quinn');
    expect(await post(`${app.url}/api/session/sign-out`, {}, grant.token)).toEqual({ status: 200, body: { ok: true } });
    await t.until(() => t.eventsOfKind('member.withdrawn').find((e) => e.payload.userId === grant.userId), 'member.withdrawn');
    expect(await statusOf(teacher.room.id, grant.userId)).toBeUndefined();
    const after = await admission(grant);
    expect([after.status, after.body.error?.code]).toEqual([401, ErrorCode.NOT_AUTHENTICATED]);
    expect(await app.store.listAttendance(teacher.room.id)).toEqual(
      expect.not.arrayContaining([expect.objectContaining({ userId: grant.userId })]),
    );
  });
});
