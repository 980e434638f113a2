/**
 * Bad input: every client-to-server socket event fuzzed with fast-check against a real server
 * process (NaN, ±Infinity, 1e308, wrong types, unknown and real ids, missing acks, 50 KB strings,
 * markup and control characters). Each acknowledged request is judged by the contract written in
 * docs/protocol.md (support/contract.ts, apart from the zod schemas the server checks with): a
 * packet the contract calls invalid is refused bad_request and changes nothing (no room event
 * reaches anyone), one it calls valid is never refused bad_request; every answer is a known code,
 * the sockets and the process stay up, and nothing invalid is stored or published.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { ClientEvent, ElementShape, ErrorCode, RoomEvent, RoomSnapshot } from '@wb/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createRect, storedSnapshot } from './support/board.ts';
import { FaultClient, createRoom, joinRoom, requestId } from './support/client.ts';
import { reportFigures } from './support/results.ts';
import type { FaultSocket } from './support/client.ts';
import { killAll, spawnServer, type ServerProcess, type ServerProcessOptions } from './support/serverProcess.ts';
import { validByContract, type OpenPoll } from './support/contract.ts';
import { STORES, databaseOn, skipNote } from './support/stores.ts';

/** The typed socket, loosened to send what its types forbid. */
type LooseSocket = {
  emit(event: string, ...args: unknown[]): unknown;
  timeout(ms: number): { emitWithAck(event: string, payload: unknown): Promise<unknown> };
};
const loose = (socket: FaultSocket) => socket as unknown as LooseSocket;

const RUNS = Number(process.env.FAULTS_FUZZ_RUNS ?? 400);
const knownCodes = new Set<string>(Object.values(ErrorCode));

const poison = fc.oneof(
  fc.constantFrom<unknown>(
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    1e308,
    -1e308,
    -0,
    2 ** 53 + 2,
    2 ** 31,
    -1,
    0.5,
    null,
    true,
    '',
    '1',
    'NaN',
    [],
    {},
    '<script>window.__pwned=1</script>',
    '\u0000',
    '\u202Eevil',
    '__proto__',
    { __proto__: { polluted: true } },
  ),
  fc.double(),
  fc.integer(),
  fc.string({ maxLength: 30 }),
  fc.uuid(),
  fc.constant('x'.repeat(50_000)),
  fc.anything({ maxDepth: 2 }),
);

/** A valid value most of the time, a poisoned one otherwise. */
const mixed = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ arbitrary: valid, weight: 6 }, { arbitrary: poison, weight: 1 });

/**
 * A record of mostly valid fields, sometimes with fields missing or an extra one; or every field
 * valid; or every field valid but one, poisoned (the packet that finds a bound the server forgot).
 */
function payload(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> {
  const record = fc.record(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, mixed(v)])), { requiredKeys: [] });
  const whole = fc.record(fields);
  const keys = Object.keys(fields);
  // A packet of no fields (`clock.now`, `poll.get`) has no field to poison.
  const oneBad = keys.length === 0 ? whole : fc.tuple(whole, fc.constantFrom(...keys), poison).map(([r, key, bad]) => ({ ...(r as object), [key]: bad }));
  return fc.oneof(
    { arbitrary: record, weight: 5 },
    { arbitrary: whole, weight: 2 },
    { arbitrary: oneBad, weight: 2 },
    { arbitrary: fc.tuple(record, poison).map(([r, extra]) => ({ ...(r as object), extra })), weight: 1 },
    { arbitrary: poison, weight: 1 },
  );
}

const coordinate = fc.oneof(fc.integer({ min: -5_000, max: 5_000 }), fc.double({ min: -10_000_000, max: 10_000_000, noNaN: true }));
const size = fc.integer({ min: 0, max: 2_000 });
const color = fc.constantFrom('#1f2937', '#ff0000', '#00AA00');
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.constant('<img src=x onerror=window.__pwned=1>'));
const shape = fc.constantFrom('rect', 'ellipse', 'line', 'arrow', 'pen', 'text', 'sticky', 'circle').chain((kind) =>
  payload({
    kind: fc.constant(kind),
    x: coordinate,
    y: coordinate,
    ...(['rect', 'ellipse', 'text', 'sticky'].includes(kind) ? { w: size, h: size } : {}),
    ...(['line', 'arrow'].includes(kind) ? { dx: coordinate, dy: coordinate } : {}),
    ...(kind === 'pen' ? { points: fc.array(fc.tuple(coordinate, coordinate, fc.double({ min: 0, max: 1, noNaN: true })), { minLength: 1, maxLength: 5 }) } : {}),
    ...(['text', 'sticky'].includes(kind) ? { text } : {}),
    ...(kind === 'text' ? { stroke: color, fontSize: fc.integer({ min: 4, max: 400 }) } : {}),
    ...(['rect', 'ellipse', 'line', 'arrow', 'pen'].includes(kind) ? { stroke: color, strokeWidth: fc.integer({ min: 1, max: 64 }) } : {}),
    ...(['rect', 'ellipse', 'sticky'].includes(kind) ? { fill: color } : {}),
  }),
);

/** The teacher's poll packets that change which poll is open (the oracle's `openPoll`). */
const POLL_STATE_EVENTS = new Set<string>([ClientEvent.POLL_OPEN, ClientEvent.POLL_CLOSE, ClientEvent.POLL_SHOW]);

type Case = { event: string; acked: boolean; payload: unknown; as: 'teacher' | 'student'; dropAck: boolean };

for (const store of STORES) describe.skipIf(store.skip !== null)(`fuzzed socket events against a real server process (${store.label})${skipNote(store)}`, () => {
  let server: ServerProcess;
  let teacher: FaultClient;
  let student: FaultClient;
  const known: string[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  const clients: FaultClient[] = [];

  beforeAll(async () => {
    const where: ServerProcessOptions = await databaseOn(store, cleanups);
    // Lease prompts off and the rate limit out of the way: this suite is about content, not rate.
    server = await spawnServer({ ...where, env: { SOCKET_EVENTS_PER_SEC: '10000', SOCKET_EVENT_BURST: '10000', LEASE_TTL_MS: '600000', LEASE_RENEW_MS: '60000' } });
    const teacherGrant = await createRoom(server.url);
    teacher = new FaultClient(server.url, teacherGrant, { renew: false });
    student = new FaultClient(server.url, await joinRoom(server.url, teacherGrant.room.code, 'Fuzz'), { renew: false });
    clients.push(teacher, student);
    await Promise.all([teacher.ready(), student.ready()]);
    for (let i = 0; i < 3; i++) {
      const id = randomUUID();
      await createRect(student, id, i * 10, 0);
      known.push(id);
    }
  });

  afterAll(async () => {
    for (const c of clients) c.close();
    await killAll();
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  });

  test(`every client event fuzzed (${RUNS} runs): crashes = 0, unclear answers = 0, invalid values stored = 0`, async () => {
    const elementId = fc.oneof(fc.constantFrom(...known), fc.uuid(), fc.constant(randomUUID()));
    const rid = fc.oneof(fc.constant('req').map(() => requestId()), fc.string({ minLength: 8, maxLength: 20 }));
    const revision = fc.oneof(fc.nat(), fc.integer({ min: 0, max: 2 ** 31 }));
    const timerAction = fc.oneof(
      payload({ action: fc.constant('start'), durationMs: fc.integer({ min: 0, max: 8_000_000 }), freezeAtZero: fc.boolean(), sound: fc.boolean() }),
      payload({ action: fc.constantFrom('pause', 'resume', 'add', 'stop', 'restart') }),
      payload({ action: fc.constant('options'), freezeAtZero: fc.boolean(), sound: fc.boolean() }),
    );
    // Text at and past its bounds (80, 200 and 40 characters after trimming), blank, with a control character.
    const pollText = fc.oneof(
      { arbitrary: fc.constantFrom('Is 7 a prime number?', '  3/4  ', 'x'.repeat(80), 'x'.repeat(200)), weight: 3 },
      { arbitrary: fc.constantFrom(' ', 'a\u0007b', 'x'.repeat(81), ` ${'x'.repeat(200)} `, 'x'.repeat(201)), weight: 2 },
      { arbitrary: fc.string({ maxLength: 90 }), weight: 1 },
    );
    const pollKind = fc.constantFrom('yesno', 'abcd', 'scale', 'thumbs', 'text', 'custom', 'essay');
    const pollChoices = fc.array(fc.oneof(fc.constantFrom('3/4', '2/3', 'x'.repeat(40), 'x'.repeat(41), ''), fc.string({ maxLength: 45 })), { maxLength: 9 });
    const pollId = fc.oneof({ arbitrary: fc.constant(null).map(() => openPoll?.id ?? randomUUID()), weight: 3 }, { arbitrary: fc.uuid(), weight: 1 });
    const events: { event: string; acked: boolean; fields: Record<string, fc.Arbitrary<unknown>> }[] = [
      { event: ClientEvent.CURSOR, acked: false, fields: { x: coordinate, y: coordinate, t: fc.nat() } },
      { event: ClientEvent.LEASE_RENEW, acked: true, fields: { revision, requestId: rid } },
      { event: ClientEvent.SYNC_REQUEST, acked: true, fields: { lastRevision: revision } },
      { event: ClientEvent.ELEMENT_CREATE, acked: true, fields: { requestId: rid, id: fc.oneof(fc.uuid(), elementId), shape } },
      { event: ClientEvent.ELEMENT_UPDATE, acked: true, fields: { requestId: rid, id: elementId, baseVersion: revision, shape } },
      { event: ClientEvent.ELEMENT_DELETE, acked: true, fields: { requestId: rid, id: fc.uuid() } },
      { event: ClientEvent.LOCK_ACQUIRE, acked: true, fields: { requestId: rid, elementId } },
      { event: ClientEvent.LOCK_MOVE, acked: false, fields: { elementId, generation: revision, x: coordinate, y: coordinate } },
      { event: ClientEvent.LOCK_RELEASE, acked: true, fields: { requestId: rid, elementId, generation: revision, shape } },
      { event: ClientEvent.ELEMENT_PIN, acked: true, fields: { requestId: rid, elementId, pinned: fc.boolean() } },
      { event: ClientEvent.LOCK_BREAK, acked: true, fields: { requestId: rid, elementId } },
      // The teacher-authority events, each kept from changing what the others fuzz against (no look-only
      // policy, no muted pen, no clear of the known elements).
      { event: ClientEvent.LESSON_SETTINGS, acked: true, fields: { requestId: rid, settings: fc.constant({ editPolicy: 'everyone' }) } },
      { event: ClientEvent.MEMBER_PEN, acked: true, fields: { requestId: rid, userId: fc.uuid(), muted: fc.constant(false) } },
      { event: ClientEvent.HISTORY_LIST, acked: true, fields: { limit: fc.integer({ min: -5, max: 500 }) } },
      { event: ClientEvent.ELEMENT_RESTORE, acked: true, fields: { requestId: rid, elementId, version: revision } },
      { event: ClientEvent.BOARD_CLEAR, acked: true, fields: { requestId: rid, of: fc.uuid() } },
      { event: ClientEvent.BATCH_RESTORE, acked: true, fields: { requestId: rid, batchId: fc.uuid() } },
      // Timer, polls and flags. A poll's id is mostly the lesson's latest (read after every poll packet).
      { event: ClientEvent.TIMER_SET, acked: true, fields: { requestId: rid, timer: timerAction } },
      { event: ClientEvent.CLOCK_NOW, acked: true, fields: {} },
      // Its choices go with a custom poll only: one spec each way, so most packets are close to valid.
      { event: ClientEvent.POLL_OPEN, acked: true, fields: { requestId: rid, pollId: fc.uuid(), question: pollText, kind: pollKind } },
      { event: ClientEvent.POLL_OPEN, acked: true, fields: { requestId: rid, pollId: fc.uuid(), question: pollText, kind: fc.constant('custom'), choices: pollChoices } },
      { event: ClientEvent.POLL_ANSWER, acked: true, fields: { requestId: rid, pollId, choice: fc.integer({ min: -1, max: 9 }), text: pollText } },
      { event: ClientEvent.POLL_CLOSE, acked: true, fields: { requestId: rid, pollId } },
      { event: ClientEvent.POLL_SHOW, acked: true, fields: { requestId: rid, pollId, shown: fc.boolean() } },
      { event: ClientEvent.POLL_GET, acked: true, fields: {} },
      { event: ClientEvent.BOARD_FLAG, acked: true, fields: { requestId: rid, boardId: fc.uuid(), flag: fc.constantFrom('done', 'help', null, 'raised') } },
    ];
    const disconnects: string[] = [];
    for (const c of [teacher, student]) c.socket.on('disconnect', (reason) => disconnects.push(`${c.grant.displayName}: ${reason}`));
    const cases: fc.Arbitrary<Case> = fc
      .tuple(fc.constantFrom(...events), fc.constantFrom<'teacher' | 'student'>('teacher', 'student'), fc.oneof({ arbitrary: fc.constant(false), weight: 19 }, { arbitrary: fc.constant(true), weight: 1 }))
      .chain(([spec, as, dropAck]) =>
        // A poll's opening, closing or showing always waits for its answer: the poll the oracle
        // judges answers by is read after it, and an unanswered one could land after that read.
        payload(spec.fields).map((p) => ({ event: spec.event, acked: spec.acked, payload: p, as, dropAck: spec.acked && dropAck && !POLL_STATE_EVENTS.has(spec.event) })),
      );

    const tally = {
      runs: 0,
      withoutAck: 0,
      refusedAsBadRequest: 0,
      invalidAccepted: 0,
      invalidNotBadRequest: 0,
      validRefusedAsBadRequest: 0,
      invalidChangedState: 0,
      unclear: 0,
      unanswered: 0,
      socketsLost: 0,
      crashes: 0,
      accepted: 0,
      domainRefusals: 0,
    };
    /** The first packets the server and the documented contract disagreed on (event, payload, answer). */
    const disagreements: string[] = [];
    const disagree = (c: Case, wire: unknown, answer: string) => {
      if (disagreements.length < 5) disagreements.push(`${c.event} ${JSON.stringify(wire).slice(0, 300)} -> ${answer}`);
    };
    /** Each socket's stored lease revision, as its accepted renewals moved it. */
    const leaseRevisions = new Map<FaultClient, number>();
    /** The lesson's latest poll while it is open (read from the server after each poll packet): what an answer to it must be. */
    let openPoll: OpenPoll | null = null;
    const readPoll = async () => {
      const reply = (await loose(teacher.socket).timeout(10_000).emitWithAck(ClientEvent.POLL_GET, {}).catch(() => null)) as
        | { ok: true; poll: { id: string; kind: string; choices: string[]; status: string } | null }
        | { ok: false }
        | null;
      if (!reply?.ok) return;
      openPoll = reply.poll && reply.poll.status === 'open' ? { id: reply.poll.id, kind: reply.poll.kind, choices: reply.poll.choices.length } : null;
    };
    /**
     * Room events either socket has received that a packet could have caused: a packet that changed
     * state published one. The sweeper's own (a lease or a fuzzed lock running out) come any time.
     */
    const bySweeper = (e: RoomEvent) => e.kind.startsWith('presence.') || (e.kind === 'lock.released' && e.payload.reason !== 'broken' && e.payload.reason !== 'released');
    const eventsSeen = () => [teacher, student].reduce((n, c) => n + c.received['room.event'].filter((e) => !bySweeper(e)).length, 0);
    const codes = new Map<string, number>();
    const perEvent = new Map<string, number>();
    const seed = Number(process.env.FAULTS_FUZZ_SEED ?? Date.now() % 2 ** 31);
    // A poll open from the start, so answers meet one (the fuzzed packets then open, close and show others).
    await loose(teacher.socket).timeout(10_000).emitWithAck(ClientEvent.POLL_OPEN, { requestId: requestId(), pollId: randomUUID(), question: 'Fuzz?', kind: 'yesno' });
    await readPoll();
    expect(openPoll).not.toBeNull();
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        // Over 64 KB the transport closes the connection by design (the 2 MB test below): not this test's subject.
        fc.pre(JSON.stringify(c.payload ?? null).length < 60_000);
        tally.runs++;
        perEvent.set(c.event, (perEvent.get(c.event) ?? 0) + 1);
        const typed = (c.as === 'teacher' ? teacher : student).socket;
        const socket = loose(typed);
        // Judged as the server receives it: the packet's JSON, where a key whose value is undefined
        // is absent (seed 823836140 sent `{ ..., extra: undefined }`, valid on the wire).
        const wire: unknown = JSON.parse(JSON.stringify([c.payload ?? null]))[0];
        if (!c.acked || c.dropAck) {
          tally.withoutAck++;
          socket.emit(c.event, c.payload);
        } else {
          // The documented contract, not the server's schema, says what is valid (support/contract.ts).
          const sender = c.as === 'teacher' ? teacher : student;
          const leaseRevision = leaseRevisions.get(sender) ?? sender.received.welcome[0]!.leaseRevision;
          const valid = validByContract(c.event, wire, { leaseRevision, role: c.as, openPoll });
          const before = eventsSeen();
          const reply = (await socket
            .timeout(10_000)
            .emitWithAck(c.event, c.payload)
            .catch(() => null)) as { ok: boolean; error?: { code: string } } | null;
          if (reply === null) tally.unanswered++;
          else if (reply.ok) {
            tally.accepted++;
            const renewed = reply as { decision?: string; revision?: number };
            if (c.event === ClientEvent.LEASE_RENEW && (renewed.decision === 'accepted' || renewed.decision === 'no_lease')) leaseRevisions.set(sender, renewed.revision!);
            if (!valid) {
              tally.invalidAccepted++;
              disagree(c, wire, 'ok');
            }
          } else {
            const code = reply.error?.code ?? 'none';
            codes.set(code, (codes.get(code) ?? 0) + 1);
            if (!knownCodes.has(code) || code === ErrorCode.UNAVAILABLE) tally.unclear++;
            else if (code === ErrorCode.BAD_REQUEST) tally.refusedAsBadRequest++;
            else tally.domainRefusals++;
            if (!valid && code !== ErrorCode.BAD_REQUEST) {
              tally.invalidNotBadRequest++;
              disagree(c, wire, code);
            }
            if (valid && code === ErrorCode.BAD_REQUEST) {
              tally.validRefusedAsBadRequest++;
              disagree(c, wire, code);
            }
          }
          if (!valid) {
            // Bad input loses nothing and changes nothing: no room event reached either socket.
            // A round trip on each socket orders the check after anything the packet published.
            await Promise.all([teacher, student].map((s) => s.socket.timeout(10_000).emitWithAck(ClientEvent.HISTORY_LIST, { limit: 1 }).catch(() => null)));
            if (eventsSeen() !== before) {
              tally.invalidChangedState++;
              disagree(c, wire, 'changed the room');
            }
          }
        }
        if (c.event.startsWith('poll.')) await readPoll();
        // The socket still answers (ordered after the packet above), and the process is alive. The
        // ping is a sync request: served, or refused `rate_limited` once the member's sync budget
        // (issue 18) is spent; either is an answer from a socket that still serves.
        const ping = await typed.timeout(10_000).emitWithAck(ClientEvent.SYNC_REQUEST, { lastRevision: 0 }).catch(() => null);
        const answered = ping !== null && (ping.ok || ping.error.code === ErrorCode.RATE_LIMITED);
        if (!answered) tally.socketsLost++;
        if (server.child.exitCode !== null) tally.crashes++;
        return answered && server.child.exitCode === null;
      }),
      { numRuns: RUNS, endOnFailure: true, seed },
    );

    const snapshot = await storedSnapshot(server.url, teacher.grant);
    const snapshotValid = RoomSnapshot.safeParse(snapshot).success;
    const badElements = snapshot.elements.filter((e) => !ElementShape.safeParse(e.shape).success).length;
    const badPublished = teacher.received['room.event'].filter((e) => !RoomEvent.safeParse(e).success).length;
    const healthy = (await fetch(`${server.url}/healthz`)).ok;
    const invalidStored = badElements + (snapshotValid ? 0 : 1) + badPublished + tally.invalidAccepted + tally.invalidChangedState;
    reportFigures(`fuzzed socket events (${store.label})`, {
      'invalid values stored': invalidStored,
      crashes: tally.crashes + (healthy ? 0 : 1),
      'unclear answers (unknown code, or unavailable)': tally.unclear,
      'invalid by the contract, not refused bad_request': tally.invalidNotBadRequest,
      'valid by the contract, refused bad_request': tally.validRefusedAsBadRequest,
      'invalid by the contract, changed the room': tally.invalidChangedState,
      'first disagreements with docs/protocol.md': disagreements.join(' | ') || 'none',
      'unanswered requests': tally.unanswered,
      'sockets lost': tally.socketsLost,
      'disconnects': disconnects.join('; ') || 'none',
      runs: tally.runs,
      seed,
      'volatile or ack-less packets': tally.withoutAck,
      'refused as bad_request': tally.refusedAsBadRequest,
      'accepted (valid packets)': tally.accepted,
      'domain refusals (not_found, locked, stale_generation, …)': tally.domainRefusals,
      'packets per event': [...perEvent].map(([k, v]) => `${k} ${v}`).join(', '),
      'codes seen': [...codes].map(([k, v]) => `${k} ${v}`).join(', '),
      'elements stored and checked': snapshot.elements.length,
      'room events published and checked': teacher.received['room.event'].length,
    });
    expect(disagreements).toEqual([]);
    expect(invalidStored).toBe(0);
    expect(tally.crashes).toBe(0);
    expect(tally.unclear).toBe(0);
    expect(tally.unanswered).toBe(0);
    expect(tally.socketsLost).toBe(0);
    expect(healthy).toBe(true);
  });

  test('a 2 MB socket packet closes only its own connection: oversize accepted = 0, others unaffected', async () => {
    const grant = await joinRoom(server.url, teacher.grant.room.code, 'Big');
    const big = new FaultClient(server.url, grant, { renew: false });
    clients.push(big);
    await big.ready();
    const before = (await storedSnapshot(server.url, teacher.grant)).elements.length;
    const closed = new Promise<string>((done) => big.socket.once('disconnect', (reason) => done(reason)));
    const id = randomUUID();
    loose(big.socket).emit(ClientEvent.ELEMENT_CREATE, {
      requestId: requestId(),
      id,
      shape: { kind: 'text', x: 0, y: 0, w: 10, h: 10, text: 'y'.repeat(2 * 1024 * 1024), stroke: '#000000', fontSize: 12 },
    });
    const reason = await closed;
    // Another member's socket still serves (a teacher's history read: not budgeted like sync.request).
    const ping = await teacher.socket.timeout(10_000).emitWithAck(ClientEvent.HISTORY_LIST, { limit: 1 });
    const after = await storedSnapshot(server.url, teacher.grant);
    const oversizeAccepted = after.elements.filter((e) => e.id === id).length;
    reportFigures(`2 MB socket packet (${store.label})`, {
      'oversize accepted': oversizeAccepted,
      'sender disconnected': reason,
      'others unaffected': ping.ok,
      'elements before / after': `${before} / ${after.elements.length}`,
    });
    expect(oversizeAccepted).toBe(0);
    expect(ping.ok).toBe(true);
    expect(server.child.exitCode).toBeNull();
  });
});
