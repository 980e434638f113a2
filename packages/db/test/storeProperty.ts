/**
 * The lease contract as a property: random sequences of renewals, duplicate and late deliveries,
 * sweeps by several workers (reading and deleting at different moments), reconnects, replayed
 * expiries, restart grace, database crashes and clock advances, checked step by step against a model.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RoomEvent } from '@wb/protocol';
import { sql } from 'drizzle-orm';
import { FrozenClock } from '../src/clock.ts';
import type { Database } from '../src/database.ts';
import type { Lease, RenewRequest } from '../src/leases.ts';
import { appendRoomEvent } from '../src/roomLog.ts';
import { AlreadyApplied } from '../src/sql.ts';
import { createStore } from '../src/store.ts';
import { sweepExpiredLeases } from '../src/sweeper.ts';
import type { AttendanceRow } from '../src/attendance.ts';
import {
  CLOCK_START,
  LEASE_TTL_MS,
  RecordingLog,
  RecordingPublisher,
  newRoom,
  onlyRoom,
  roomRevision,
  seatStudent,
  type Seat,
} from './fixtures.ts';

const SESSIONS = 3;
const WORKERS = 3;
/** Runs per driver: enough to meet every step kind many times while the db project stays quick. */
const RUNS = Number(process.env.STORE_PROPERTY_RUNS ?? 100);

const session = fc.nat(SESSIONS - 1);
const worker = fc.nat(WORKERS - 1);
const step = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('renew' as const), session }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('duplicate' as const), session }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('late' as const), session, back: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('batch' as const), duplicate: session }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('read' as const), worker }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), worker }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('sweep' as const), worker }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 200, max: 12_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reopen' as const), session }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replayExpiry' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const), session }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('grace' as const) }) },
);
type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;

/** What the store should hold for one session, and what its client has sent. */
interface SessionModel {
  seat: Seat;
  lease: { revision: number; expiresAtMs: number; lastRequestId: string | null } | null;
  /** Highest revision that is durable for the session (opened at or expired): the re-open floor. */
  durableFloor: number;
  /** Highest revision the session ever held, lost or not. */
  highest: number;
  crashed: boolean;
  sent: RenewRequest[];
  clientRevision: number;
}

export function registerStoreProperty(database: () => Database): void {
  describe('property: the lease contract under random deliveries', () => {
    it(`no lease renewed within its term is expired; one expiry per lease revision; room revisions strictly increase; attendance only grows (${RUNS} runs)`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 40 }), async (steps) => {
          await runSequence(database(), steps);
        }),
        { numRuns: RUNS, endOnFailure: process.env.CI !== undefined },
      );
    });
  });
}

async function runSequence(database: Database, steps: readonly Step[]): Promise<void> {
  const clock = new FrozenClock(CLOCK_START);
  const store = createStore(database, clock);
  const room = await newRoom(store);
  const nowMs = () => clock.current.getTime();
  const models: SessionModel[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const seat = await seatStudent(store, room);
    const opened = await store.openLease({ sessionId: seat.sessionId, ttlMs: LEASE_TTL_MS, requestId: `open-${i}` });
    if (opened.decision !== 'opened') throw new Error(`open: ${opened.decision}`);
    const revision = opened.lease.revision;
    models.push({
      seat,
      lease: { revision, expiresAtMs: nowMs() + LEASE_TTL_MS, lastRequestId: `open-${i}` },
      durableFloor: revision,
      highest: revision,
      crashed: false,
      sent: [],
      clientRevision: revision,
    });
  }
  const bySession = new Map(models.map((m) => [m.seat.sessionId, m]));
  const pending: Lease[][] = Array.from({ length: WORKERS }, () => []);
  const publishedExpiries = new Set<string>();
  const wonExpiries: Lease[] = [];
  let lastRevision = await roomRevision(database, room.roomId);
  let attendance = await store.listAttendance(room.roomId);

  /** Every event a step produced must sit above everything the room had before (I1). */
  const sawEvents = (events: readonly RoomEvent[]) => {
    for (const event of events) {
      expect(event.revision).toBeGreaterThan(lastRevision);
      lastRevision = event.revision;
    }
  };

  const expectedRenewal = (m: SessionModel, request: RenewRequest) => {
    if (!m.lease) return 'no_lease';
    if (request.revision > m.lease.revision) return 'accepted';
    return m.lease.lastRequestId === request.requestId ? 'already_applied' : 'ignored_old_revision';
  };

  const deliver = async (requests: RenewRequest[]) => {
    const outcomes = await store.renewLeases(requests, LEASE_TTL_MS);
    expect(outcomes.map((o) => o.requestId)).toEqual(requests.map((r) => r.requestId));
    requests.forEach((request, i) => {
      const m = bySession.get(request.sessionId)!;
      const expected = expectedRenewal(m, request);
      expect(outcomes[i]?.decision, `renewal ${request.requestId} of revision ${request.revision}`).toBe(expected);
      if (expected === 'accepted') {
        m.lease = { revision: request.revision, expiresAtMs: nowMs() + LEASE_TTL_MS, lastRequestId: request.requestId };
        m.highest = Math.max(m.highest, request.revision);
        m.clientRevision = Math.max(m.clientRevision, request.revision);
      }
    });
  };

  /** A won delete is checked against the model: the lease was at this revision and its term was over. */
  const expiryWon = (lease: Lease) => {
    const m = bySession.get(lease.sessionId)!;
    expect(m.lease?.revision, `expired revision ${lease.revision}`).toBe(lease.revision);
    expect(m.lease!.expiresAtMs, 'a lease renewed within its term was expired').toBeLessThanOrEqual(nowMs());
    const key = `${lease.sessionId}:${lease.revision}`;
    expect(publishedExpiries.has(key), `second expiry published for ${key}`).toBe(false);
    publishedExpiries.add(key);
    wonExpiries.push(lease);
    m.lease = null;
    m.durableFloor = Math.max(m.durableFloor, lease.revision);
  };

  const shouldWin = (lease: Lease) => {
    const m = bySession.get(lease.sessionId)!;
    return m.lease !== null && m.lease.revision === lease.revision && m.lease.expiresAtMs <= nowMs();
  };

  for (const s of steps) {
    switch (s.kind) {
      case 'renew': {
        const m = models[s.session]!;
        const request = { sessionId: m.seat.sessionId, revision: m.clientRevision + 1, requestId: randomUUID() };
        m.sent.push(request);
        await deliver([request]);
        break;
      }
      case 'duplicate':
      case 'late': {
        const m = models[s.session]!;
        const request = m.sent[m.sent.length - 1 - (s.kind === 'late' ? s.back : 0)];
        if (request) await deliver([request]);
        break;
      }
      case 'batch': {
        // One tick of a node: every session's next renewal plus a re-delivery of one of them.
        const requests = models.map((m) => {
          const request = { sessionId: m.seat.sessionId, revision: m.clientRevision + 1, requestId: randomUUID() };
          m.sent.push(request);
          return request;
        });
        await deliver([...requests, requests[s.duplicate]!]);
        break;
      }
      case 'read': {
        const found = await onlyRoom(store, room.roomId).findExpiredLeases(100);
        for (const lease of found) {
          const m = bySession.get(lease.sessionId)!;
          expect(m.lease?.revision).toBe(lease.revision);
          expect(m.lease!.expiresAtMs).toBeLessThanOrEqual(nowMs());
        }
        pending[s.worker] = found;
        break;
      }
      case 'delete': {
        const held = pending[s.worker]!;
        pending[s.worker] = [];
        for (const lease of held) {
          const expected = shouldWin(lease);
          const result = await store.deleteLeaseIfRevision(lease);
          expect(result.won, `delete of ${lease.sessionId}:${lease.revision}`).toBe(expected);
          if (result.won) {
            sawEvents(result.events);
            expiryWon(lease);
          }
        }
        break;
      }
      case 'sweep': {
        const publisher = new RecordingPublisher();
        await sweepExpiredLeases(onlyRoom(store, room.roomId), publisher.publish, new RecordingLog(), { batch: 100 });
        sawEvents(publisher.events);
        for (const event of publisher.events) {
          if (event.kind !== 'presence.expired') throw new Error(`sweeper published ${event.kind}`);
          expiryWon({ roomId: event.roomId, userId: event.payload.userId, sessionId: event.payload.sessionId, revision: event.payload.revision, expiresAt: new Date(0) });
        }
        break;
      }
      case 'advance':
        clock.advance(s.ms);
        break;
      case 'reopen': {
        const m = models[s.session]!;
        const reopenId = randomUUID();
        const result = await store.openLease({ sessionId: m.seat.sessionId, ttlMs: LEASE_TTL_MS, requestId: reopenId });
        if (result.decision === 'not_a_member') throw new Error('an active member was refused a lease');
        if (m.lease) {
          expect(result).toMatchObject({ decision: 'resumed', priorRevision: m.lease.revision, lease: { revision: m.lease.revision + 1 } });
        } else {
          expect(result.decision).toBe('opened');
          sawEvents(result.events);
        }
        const revision = result.lease.revision;
        // I4: above every durable revision always; above every revision at all unless a crash lost them.
        expect(revision).toBeGreaterThan(m.durableFloor);
        if (!m.crashed) expect(revision).toBeGreaterThan(m.highest);
        m.lease = { revision, expiresAtMs: nowMs() + LEASE_TTL_MS, lastRequestId: reopenId };
        if (result.decision === 'opened') m.durableFloor = revision;
        m.highest = Math.max(m.highest, revision);
        m.clientRevision = revision;
        break;
      }
      case 'replayExpiry': {
        const lease = wonExpiries[wonExpiries.length - 1];
        if (!lease) break;
        expect(await store.deleteLeaseIfRevision(lease)).toEqual({ won: false });
        await expect(
          database.db.transaction((tx) =>
            appendRoomEvent(
              tx,
              clock,
              lease.roomId,
              'presence.expired',
              { sessionId: lease.sessionId, leaseRevision: lease.revision },
              { sessionId: lease.sessionId, userId: lease.userId, revision: lease.revision },
            ),
          ),
        ).rejects.toBeInstanceOf(AlreadyApplied);
        break;
      }
      case 'grace': {
        // A restart between a worker's read and its delete: the extended lease must not be expired.
        await store.graceLeases(LEASE_TTL_MS);
        for (const m of models) {
          if (m.lease) m.lease.expiresAtMs = Math.max(m.lease.expiresAtMs, nowMs() + LEASE_TTL_MS);
        }
        break;
      }
      case 'crash': {
        // Crash recovery truncates UNLOGGED tables; limited to one session so other runs keep theirs.
        const m = models[s.session]!;
        await database.db.execute(sql`DELETE FROM presence_leases WHERE session_id = ${m.seat.sessionId}::uuid`);
        if (m.lease) m.crashed = true;
        m.lease = null;
        break;
      }
    }

    const revision = await roomRevision(database, room.roomId);
    expect(revision, 'room revision moved past the events it published').toBe(lastRevision);
    const grown = await store.listAttendance(room.roomId);
    expect(grown.slice(0, attendance.length), 'attendance lost or changed a row').toEqual(attendance);
    attendance = grown;
  }

  const expiredRows = attendance.filter((a: AttendanceRow) => a.kind === 'lease_expired');
  expect(expiredRows.map((a) => a.eventId).sort()).toEqual(
    [...publishedExpiries].map((key) => `presence.expired:${key}`).sort(),
  );
  const log = await store.eventsAfter(room.roomId, 0, 10_000);
  expect(log.kind).toBe('replay');
  if (log.kind === 'replay') expect(log.events.map((e) => e.revision)).toEqual(log.events.map((_, i) => i + 1));
}
