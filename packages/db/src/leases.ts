/**
 * Presence leases: (room, user, session, revision, expires_at), ephemeral (I6).
 *
 * Lifecycle, each transition one conditional statement:
 *   (none) --openLease--> held(rev = floor + 1)
 *   held(r) --renewLeases(r' > r)--> held(r')                       [ignored when r' <= r]
 *   held(r) --openLease (socket back)--> held(r + 1)               [a reload keeps the session]
 *   held(r) --deleteLeaseIfRevision(r) after expiry--> (none)       [only the winner publishes]
 *   held(r) --closeSession / revokeMember--> (none)
 * Revisions only grow (I4): an open and an expiry raise the session's durable `lease_floor`, and a
 * re-opened lease starts above it, so no event id is reused even after a database crash empties
 * the UNLOGGED lease table (revisions reached by renewals alone are lost with it).
 */
import { sql } from 'drizzle-orm';
import type { LeaseDecision, Presence, RoomEvent } from '@wb/protocol';
import { appendAttendance, type AttendanceFact } from './attendance.ts';
import { msFromNow, type Clock } from './clock.ts';
import { releaseLocksOfSessions } from './locks.ts';
import { appendRoomEvent } from './roomLog.ts';
import { AlreadyApplied, date, int, rows, type Db, type Executor, type Tx } from './sql.ts';

export interface Lease {
  roomId: string;
  userId: string;
  sessionId: string;
  revision: number;
  expiresAt: Date;
}

interface LeaseRow {
  room_id: string;
  user_id: string;
  session_id: string;
  revision: unknown;
  expires_at: unknown;
}

const toLease = (r: LeaseRow): Lease => ({
  roomId: r.room_id,
  userId: r.user_id,
  sessionId: r.session_id,
  revision: int(r.revision),
  expiresAt: date(r.expires_at),
});

/**
 * A lease opening or ending as the room and the teacher's report see it: the room event, and the
 * attendance fact under the same id, in the caller's transaction.
 */
async function appendPresenceFact(
  tx: Tx,
  clock: Clock,
  kind: 'presence.opened' | 'presence.expired',
  lease: Pick<Lease, 'roomId' | 'userId' | 'sessionId' | 'revision'>,
  fact: Pick<AttendanceFact, 'kind' | 'requestId' | 'detail'>,
): Promise<RoomEvent> {
  const { roomId, userId, sessionId, revision } = lease;
  const event = await appendRoomEvent(tx, clock, roomId, kind, { sessionId, leaseRevision: revision }, { sessionId, userId, revision });
  await appendAttendance(tx, clock, { ...fact, eventId: event.eventId, roomId, userId, sessionId });
  return event;
}

export type OpenLeaseResult =
  /** A new lease: the room hears `presence.opened`, attendance records joined or reconnected. */
  | { decision: 'opened'; lease: Lease; events: RoomEvent[] }
  /** The session's lease was still held (a reload or a socket reconnect within the term, I7). */
  | { decision: 'resumed'; lease: Lease; priorRevision: number; events: [] }
  | { decision: 'not_a_member' };

/**
 * Called when a session's socket connects. Resumes the session's lease if it is still held
 * (bumping its revision, so a sweeper holding the old revision loses), or opens a new one.
 */
export async function openLease(
  db: Db,
  clock: Clock,
  input: { sessionId: string; ttlMs: number; requestId: string | null },
): Promise<OpenLeaseResult> {
  try {
    return await db.transaction(async (tx) => {
      const [session] = await rows<{ room_id: string; user_id: string; lease_floor: unknown }>(
        tx,
        sql`SELECT s.room_id, s.user_id, s.lease_floor FROM sessions s
            JOIN memberships m ON m.room_id = s.room_id AND m.user_id = s.user_id
            WHERE s.id = ${input.sessionId}::uuid AND s.status = 'open' AND s.expires_at > ${clock.now()}
              AND m.status = 'active'
            FOR NO KEY UPDATE OF s`,
      );
      if (!session) return { decision: 'not_a_member' as const };

      const resume = async (): Promise<OpenLeaseResult | null> => {
        const [resumed] = await rows<LeaseRow>(
          tx,
          sql`UPDATE presence_leases
              SET connected = true, revision = revision + 1, expires_at = ${msFromNow(clock, input.ttlMs)},
                  last_request_id = ${input.requestId}
              WHERE session_id = ${input.sessionId}::uuid
              RETURNING room_id, user_id, session_id, revision, expires_at`,
        );
        if (!resumed) return null;
        const lease = toLease(resumed);
        return { decision: 'resumed', lease, priorRevision: lease.revision - 1, events: [] };
      };

      const resumed = await resume();
      if (resumed) return resumed;

      const [inserted] = await rows<LeaseRow>(
        tx,
        sql`INSERT INTO presence_leases (room_id, user_id, session_id, revision, expires_at, last_request_id, connected)
            VALUES (${session.room_id}::uuid, ${session.user_id}::uuid, ${input.sessionId}::uuid,
                    ${int(session.lease_floor) + 1}::int8, ${msFromNow(clock, input.ttlMs)}, ${input.requestId}, true)
            ON CONFLICT DO NOTHING
            RETURNING room_id, user_id, session_id, revision, expires_at`,
      );
      if (!inserted) {
        // Another socket of this session opened it between our two statements.
        const raced = await resume();
        if (raced) return raced;
        throw new Error(`lease for session ${input.sessionId} neither inserted nor found`);
      }
      const lease = toLease(inserted);
      // The floor is durable and the lease is not: if a database crash truncates the UNLOGGED
      // lease table, the next open must still start above this one, or its event id repeats.
      await tx.execute(
        sql`UPDATE sessions SET lease_floor = greatest(lease_floor, ${lease.revision}::int8)
            WHERE id = ${input.sessionId}::uuid`,
      );
      const [seen] = await rows<{ seen: boolean }>(
        tx,
        sql`SELECT EXISTS (SELECT 1 FROM attendance WHERE session_id = ${input.sessionId}::uuid) AS seen`,
      );
      const kind = seen?.seen ? 'reconnected' : 'joined';
      const event = await appendPresenceFact(tx, clock, 'presence.opened', lease, { kind, requestId: input.requestId });
      return { decision: 'opened' as const, lease, events: [event] };
    });
  } catch (error) {
    // Only reachable if a lease revision were reused; the floor (raised by every open and every
    // expiry) makes that impossible.
    if (error instanceof AlreadyApplied) throw new Error(`lease revision reused: ${error.eventId}`, { cause: error });
    throw error;
  }
}

export interface RenewRequest {
  sessionId: string;
  /** The revision the client proposes; accepted only when newer than the stored one. */
  revision: number;
  requestId: string;
}

/**
 * How far past the stored revision a renewal may propose (I4 with a bound): a client proposes the
 * revision it was prompted with plus one, so a jump of millions is a broken or hostile client. Far
 * enough that no honest sequence of renewals and reconnects reaches it, near enough that
 * Number.MAX_SAFE_INTEGER stays out of reach: a renewal to 2^53-1 would leave every later
 * renewal unrepresentable and the session unable to renew.
 */
export const MAX_LEASE_REVISION_STEP = 1_000_000;

/** A renewal's decision: the protocol's, or `too_far_ahead` (refused; the lease is untouched). */
export type RenewDecision = LeaseDecision | 'too_far_ahead';

export interface RenewOutcome {
  sessionId: string;
  requestId: string;
  decision: RenewDecision;
  /** Stored revision before this renewal; null when there was no lease. */
  priorRevision: number | null;
  /** Stored revision after this renewal. */
  revision: number;
  /**
   * The room's revision in the database when the renewal was decided: a client behind it missed
   * an event (a lost packet, a Redis outage between nodes) and resyncs, whatever the relay did.
   */
  roomRevision: number | null;
}

/**
 * Renews many leases in one statement (a node batches the renewals of a tick); the i-th outcome
 * answers the i-th request. A session named twice in one batch costs one more statement. Each renewal is
 * accepted only for an open session of an active member and only when its revision is newer
 * than the stored one (I3, I4); otherwise it is decided, not thrown.
 */
export async function renewLeases(
  executor: Executor,
  clock: Clock,
  requests: readonly RenewRequest[],
  ttlMs: number,
): Promise<RenewOutcome[]> {
  if (requests.length === 0) return [];
  // One statement cannot update a row twice: a session's second renewal goes in the next round.
  const round: RenewRequest[] = [];
  const later: RenewRequest[] = [];
  const laterAt: number[] = [];
  const inRound = new Set<string>();
  requests.forEach((request, at) => {
    if (inRound.has(request.sessionId)) {
      later.push(request);
      laterAt.push(at);
    } else {
      round.push(request);
    }
    inRound.add(request.sessionId);
  });
  const payload = JSON.stringify(
    round.map((r) => ({ session_id: r.sessionId, revision: r.revision, request_id: r.requestId })),
  );
  const decided = await rows<{
    session_id: string;
    request_id: string;
    prior: unknown;
    prior_request_id: string | null;
    renewed: unknown;
    authorized: boolean;
    room_revision: unknown;
  }>(
    executor,
    sql`WITH req AS (
          SELECT * FROM jsonb_to_recordset(${payload}::jsonb) AS r(session_id uuid, revision int8, request_id text)
        ),
        cur AS (
          SELECT l.session_id, l.revision, l.last_request_id
          FROM presence_leases l JOIN req ON req.session_id = l.session_id
        ),
        auth AS (
          SELECT s.id AS session_id FROM sessions s
          JOIN req ON req.session_id = s.id
          JOIN memberships m ON m.room_id = s.room_id AND m.user_id = s.user_id
          WHERE s.status = 'open' AND s.expires_at > ${clock.now()} AND m.status = 'active'
        ),
        upd AS (
          UPDATE presence_leases l
          SET revision = req.revision, expires_at = ${msFromNow(clock, ttlMs)}, last_request_id = req.request_id
          FROM req
          WHERE l.session_id = req.session_id AND l.revision < req.revision
            AND req.revision <= l.revision + ${MAX_LEASE_REVISION_STEP}::int8
            AND req.session_id IN (SELECT session_id FROM auth)
          RETURNING l.session_id, l.revision
        )
        SELECT req.session_id, req.request_id, cur.revision AS prior, cur.last_request_id AS prior_request_id,
               upd.revision AS renewed, auth.session_id IS NOT NULL AS authorized, r.revision AS room_revision
        FROM req
        LEFT JOIN cur ON cur.session_id = req.session_id
        LEFT JOIN upd ON upd.session_id = req.session_id
        LEFT JOIN auth ON auth.session_id = req.session_id
        LEFT JOIN sessions s ON s.id = req.session_id
        LEFT JOIN rooms r ON r.id = s.room_id`,
    'wb_renew_batch',
  );
  const bySession = new Map(decided.map((d) => [d.session_id, d]));
  const outcomes = round.map((request): RenewOutcome => {
    const d = bySession.get(request.sessionId);
    const prior = d?.prior == null ? null : int(d.prior);
    const base = {
      sessionId: request.sessionId,
      requestId: request.requestId,
      priorRevision: prior,
      roomRevision: d?.room_revision == null ? null : int(d.room_revision),
    };
    if (d?.renewed != null) return { ...base, decision: 'accepted', revision: int(d.renewed) };
    const stored = prior ?? 0;
    if (!d?.authorized) return { ...base, decision: 'not_a_member', revision: stored };
    if (prior === null) return { ...base, decision: 'no_lease', revision: 0 };
    if (d.prior_request_id === request.requestId) return { ...base, decision: 'already_applied', revision: stored };
    if (request.revision > stored + MAX_LEASE_REVISION_STEP) return { ...base, decision: 'too_far_ahead', revision: stored };
    return { ...base, decision: 'ignored_old_revision', revision: stored };
  });
  if (later.length === 0) return outcomes;
  // Outcomes answer requests position by position, duplicates included.
  const laterOutcomes = await renewLeases(executor, clock, later, ttlMs);
  const ordered: RenewOutcome[] = [];
  let first = 0;
  let next = 0;
  requests.forEach((_, at) => {
    const outcome = laterAt[next] === at ? laterOutcomes[next++] : outcomes[first++];
    if (outcome) ordered.push(outcome);
  });
  return ordered;
}

/** Leases whose expiry has passed by the clock, oldest first. Reading claims nothing (I5). */
export async function findExpiredLeases(executor: Executor, clock: Clock, limit: number): Promise<Lease[]> {
  const found = await rows<LeaseRow>(
    executor,
    sql`SELECT room_id, user_id, session_id, revision, expires_at FROM presence_leases
        WHERE expires_at <= ${clock.now()} ORDER BY expires_at LIMIT ${limit}::int`,
  );
  return found.map(toLease);
}

export type DeleteLeaseResult = { won: true; events: RoomEvent[] } | { won: false };

/**
 * Compare-and-delete of one expired lease on its exact revision (I5). Only the caller whose
 * delete succeeds gets the `presence.expired` event to publish; the attendance row and the room
 * revision are written in the same transaction. A renewal or a second sweeper makes it lose.
 */
export async function deleteLeaseIfRevision(
  db: Db,
  clock: Clock,
  lease: Pick<Lease, 'roomId' | 'userId' | 'sessionId' | 'revision'>,
  requestId: string | null = null,
): Promise<DeleteLeaseResult> {
  try {
    return await db.transaction(async (tx) => {
      // Session row before lease row, the order openLease, closeSession and revokeMember take
      // them in: deleting first and then raising the floor deadlocked against a resuming socket.
      await tx.execute(sql`SELECT 1 FROM sessions WHERE id = ${lease.sessionId}::uuid FOR NO KEY UPDATE`);
      const deleted = await rows<{ revision: unknown }>(
        tx,
        sql`DELETE FROM presence_leases
            WHERE room_id = ${lease.roomId}::uuid AND user_id = ${lease.userId}::uuid
              AND session_id = ${lease.sessionId}::uuid AND revision = ${lease.revision}::int8
              AND expires_at <= ${clock.now()}
            RETURNING revision`,
      );
      if (deleted.length === 0) return { won: false as const };
      await tx.execute(
        sql`UPDATE sessions SET lease_floor = greatest(lease_floor, ${lease.revision}::int8)
            WHERE id = ${lease.sessionId}::uuid`,
      );
      const event = await appendPresenceFact(tx, clock, 'presence.expired', lease, {
        kind: 'lease_expired',
        requestId,
        detail: { revision: lease.revision },
      });
      // The holder is gone: its drag locks go with it, in the same transaction.
      const released = await releaseLocksOfSessions(tx, clock, [lease.sessionId]);
      return { won: true as const, events: [event, ...released] };
    });
  } catch (error) {
    if (error instanceof AlreadyApplied) return { won: false };
    throw error;
  }
}

/**
 * Restart grace (I8): gives every in-flight lease a full term from now, never shortening one.
 * Run when a server starts and when the database is reachable again, before the first sweep.
 */
export async function graceLeases(executor: Executor, clock: Clock, ttlMs: number): Promise<number> {
  const graced = await rows<{ n: unknown }>(
    executor,
    sql`WITH g AS (
          UPDATE presence_leases SET expires_at = greatest(expires_at, ${msFromNow(clock, ttlMs)})
          RETURNING 1)
        SELECT count(*) AS n FROM g`,
  );
  return int(graced[0]?.n ?? 0);
}

/**
 * Records whether a socket is open for the session. A close is a signal, not a decision (I7):
 * it changes neither revision, roster nor attendance.
 */
export async function setLeaseConnected(
  executor: Executor,
  sessionId: string,
  connected: boolean,
): Promise<Presence | null> {
  const [row] = await rows<LeaseRow & { connected: boolean }>(
    executor,
    sql`UPDATE presence_leases SET connected = ${connected}
        WHERE session_id = ${sessionId}::uuid
        RETURNING room_id, user_id, session_id, revision, expires_at, connected`,
  );
  return row
    ? { sessionId: row.session_id, userId: row.user_id, revision: int(row.revision), connected: row.connected }
    : null;
}

export async function listPresence(executor: Executor, roomId: string): Promise<Presence[]> {
  const found = await rows<LeaseRow & { connected: boolean }>(
    executor,
    sql`SELECT room_id, user_id, session_id, revision, expires_at, connected FROM presence_leases
        WHERE room_id = ${roomId}::uuid ORDER BY session_id`,
  );
  return found.map((r) => ({
    sessionId: r.session_id,
    userId: r.user_id,
    revision: int(r.revision),
    connected: r.connected,
  }));
}

/**
 * After a database crash the UNLOGGED lease table comes back empty (I6), so a student whose lid
 * closed during the outage would never be expired: a ghost. The attendance log still says who was
 * present: every open session whose last fact is `joined` or `reconnected` but which holds no lease
 * gets one back, unconnected, above its floor, with a full term (I8). If its client returns it
 * resumes the lease; if not, the sweeper expires it as usual and everyone sees it go.
 */
export async function restoreLostLeases(executor: Executor, clock: Clock, ttlMs: number): Promise<number> {
  const restored = await rows<{ n: unknown }>(
    executor,
    sql`WITH last AS (
          SELECT DISTINCT ON (a.session_id) a.session_id, a.kind
          FROM attendance a JOIN sessions s ON s.id = a.session_id AND s.status = 'open'
          ORDER BY a.session_id, a.seq DESC
        ),
        restored AS (
          INSERT INTO presence_leases (room_id, user_id, session_id, revision, expires_at, last_request_id, connected)
          SELECT s.room_id, s.user_id, s.id, s.lease_floor + 1, ${msFromNow(clock, ttlMs)}, NULL, false
          FROM sessions s JOIN last ON last.session_id = s.id
          JOIN memberships m ON m.room_id = s.room_id AND m.user_id = s.user_id AND m.status = 'active'
          WHERE last.kind IN ('joined', 'reconnected')
            AND NOT EXISTS (SELECT 1 FROM presence_leases l WHERE l.session_id = s.id)
          ON CONFLICT DO NOTHING
          RETURNING session_id, revision
        ),
        floors AS (
          UPDATE sessions s SET lease_floor = greatest(s.lease_floor, r.revision)
          FROM restored r WHERE s.id = r.session_id
          RETURNING 1
        )
        SELECT count(*) AS n FROM restored`,
  );
  return int(restored[0]?.n ?? 0);
}
