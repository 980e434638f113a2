import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { LessonSettings, RoomEvent } from '@wb/protocol';
import type { Database } from '../src/database.ts';
import { postgresUnavailableReason, type TestDatabaseKind } from '../src/testing.ts';
import type { Lease } from '../src/leases.ts';
import { date, int, rows } from '../src/sql.ts';
import type { Store } from '../src/store.ts';
import type { DecisionLog } from '../src/sweeper.ts';

/** Lease term in tests: a client renews about every third of it, as in production. */
export const LEASE_TTL_MS = 9_000;
/** Long enough that no test's clock advance ever ends a session by its own expiry. */
export const SESSION_TTL_MS = 30 * 24 * 3_600_000;

/** The clocks of tests start here and only move forward; far from the real "now" on purpose. */
export const CLOCK_START = new Date('2031-03-01T08:00:00.000Z');

export interface Seat {
  roomId: string;
  teacherId: string;
  userId: string;
  sessionId: string;
}

const token = () => randomBytes(16).toString('hex');

/** A fresh room with its teacher; every test builds its own so tests share no rows. */
export async function newRoom(store: Store, settings?: Partial<LessonSettings>): Promise<{ roomId: string; teacherId: string }> {
  const created = await store.createRoom({
    code: token().slice(0, 10).toUpperCase(),
    title: 'Contract test',
    teacherName: 'Teacher',
    memberKeyHash: token(),
    ...(settings ? { settings } : {}),
  });
  if (created.decision !== 'created') throw new Error(`room not created: ${created.decision}`);
  return { roomId: created.room.id, teacherId: created.member.userId };
}

/** A student with an open session in the room (a new room unless one is given); no lease yet. Pending in a room that requires approval. */
export async function seatStudent(store: Store, room?: { roomId: string; teacherId: string }): Promise<Seat> {
  const { roomId, teacherId } = room ?? (await newRoom(store));
  const joined = await store.joinRoom({ roomId, displayName: 'Student', memberKeyHash: token(), role: 'student' });
  if (joined.decision !== 'joined' && joined.decision !== 'pending') throw new Error(`student not joined: ${joined.decision}`);
  const sessionId = randomUUID();
  await store.openSession({
    id: sessionId,
    roomId,
    userId: joined.member.userId,
    tokenHash: token(),
    ttlMs: SESSION_TTL_MS,
  });
  return { roomId, teacherId, userId: joined.member.userId, sessionId };
}

export const requestId = (label: string) => `${label}-${token().slice(0, 12)}`;

/** Opens the seat's lease and renews it straight to `revision` (the renewal starts its term). */
export async function leaseAt(store: Store, seat: Seat, revision: number): Promise<Lease> {
  const opened = await store.openLease({ sessionId: seat.sessionId, ttlMs: LEASE_TTL_MS, requestId: requestId('open') });
  if (opened.decision === 'not_a_member') throw new Error('seat cannot hold a lease');
  if (revision > opened.lease.revision) {
    const [renewed] = await store.renewLeases(
      [{ sessionId: seat.sessionId, revision, requestId: requestId('renew') }],
      LEASE_TTL_MS,
    );
    if (renewed?.decision !== 'accepted') throw new Error(`renewal to ${revision}: ${renewed?.decision}`);
  }
  return { roomId: seat.roomId, userId: seat.userId, sessionId: seat.sessionId, revision, expiresAt: new Date(0) };
}

/** Keeps what a sweeper published, as a subscriber would receive it. */
export class RecordingPublisher {
  readonly events: RoomEvent[] = [];
  readonly publish = (events: readonly RoomEvent[]): void => {
    this.events.push(...events);
  };

  inRoom(roomId: string): RoomEvent[] {
    return this.events.filter((e) => e.roomId === roomId);
  }
}

/** Keeps every structured decision line, so tests can check each decision was logged once. */
export class RecordingLog implements DecisionLog {
  readonly lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
  info(fields: Record<string, unknown>, message: string): void {
    this.lines.push({ fields, message });
  }
  warn(fields: Record<string, unknown>, message: string): void {
    this.lines.push({ fields, message });
  }
}

/** The message of an error and of every cause under it (drivers wrap the server's error). */
export function errorText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    parts.push(current.message);
    current = current.cause;
  }
  return parts.join(' <- ');
}

/** The SQLSTATE of the first error in a cause chain that carries one. */
export function sqlState(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}

/** Lets other promises run a random number of turns: how the race tests vary interleavings. */
export async function yieldTurns(turns: number): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Resolves once `parties` callers have arrived: both workers have read before either deletes. */
export function barrier(parties: number): () => Promise<void> {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return async () => {
    if (++arrived === parties) open();
    await opened;
  };
}

/** Other tests' leftover leases are expired too; a sweeper here only sees the test's own room. */
export function onlyRoom(store: Store, roomId: string): Store {
  return {
    ...store,
    findExpiredLeases: async (limit: number) =>
      (await store.findExpiredLeases(SCAN_ALL)).filter((l) => l.roomId === roomId).slice(0, limit),
  };
}

/** Larger than every lease a test file ever leaves behind. */
const SCAN_ALL = 100_000;

/** A small seeded generator, so a failing random interleaving can be replayed from its seed. */
export function seededRandom(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) / 4_294_967_296) * below | 0;
  };
}

/** The room's stored revision, read directly: the thing I1 says never goes back. */
export async function roomRevision(database: Database, roomId: string): Promise<number> {
  const [room] = await rows<{ revision: unknown }>(database.db, sql`SELECT revision FROM rooms WHERE id = ${roomId}::uuid`);
  if (!room) throw new Error(`no room ${roomId}`);
  return int(room.revision);
}

/** The stored lease of a session, or null; read directly to see expires_at, which no operation returns. */
export async function storedLease(
  database: Database,
  sessionId: string,
): Promise<{ revision: number; expiresAt: Date; lastRequestId: string | null; connected: boolean } | null> {
  const [row] = await rows<{ revision: unknown; expires_at: unknown; last_request_id: string | null; connected: boolean }>(
    database.db,
    sql`SELECT revision, expires_at, last_request_id, connected FROM presence_leases WHERE session_id = ${sessionId}::uuid`,
  );
  return row
    ? { revision: int(row.revision), expiresAt: date(row.expires_at), lastRequestId: row.last_request_id, connected: row.connected }
    : null;
}

/** The databases every store suite runs on: PGlite always, real Postgres when TEST_DATABASE_URL is set. */
export const storeDatabaseKinds: { kind: TestDatabaseKind; skip: string | null }[] = [
  { kind: 'pglite', skip: null },
  { kind: 'postgres', skip: postgresUnavailableReason() },
];
