import type { SessionEndReason } from '@wb/protocol';
import { listAttendance, loadAttendanceReport } from './attendance.ts';
import { databaseClock, type Clock } from './clock.ts';
import type { Database } from './database.ts';
import {
  deleteLeaseIfRevision,
  findExpiredLeases,
  graceLeases,
  listPresence,
  openLease,
  renewLeases,
  setLeaseConnected,
  type Lease,
  type RenewRequest,
} from './leases.ts';
import { eventsAfter, pruneRoomLog } from './roomLog.ts';
import { createRoom, findRoomByCode, findRoomById, joinRoom, listMembers } from './rooms.ts';
import { authenticateSession, closeSession, openSession, revokeMember } from './sessions.ts';
import { loadRoomSnapshot } from './snapshot.ts';

/**
 * The store's public face: named operations, each one conditional statement or one short
 * transaction, each returning a decision rather than throwing on a lost race (I3).
 * Every comparison against time uses `clock` (the database's `now()` in production, I2).
 */
export function createStore(database: Database, clock: Clock = databaseClock) {
  const { db } = database;
  return {
    database,
    clock,
    createRoom: (input: Parameters<typeof createRoom>[2]) => createRoom(db, clock, input),
    findRoomByCode: (code: string) => findRoomByCode(db, code),
    findRoomById: (roomId: string) => findRoomById(db, roomId),
    joinRoom: (input: Parameters<typeof joinRoom>[2]) => joinRoom(db, clock, input),
    listMembers: (roomId: string) => listMembers(db, roomId),
    revokeMember: (input: Parameters<typeof revokeMember>[2]) => revokeMember(db, clock, input),

    openSession: (input: Parameters<typeof openSession>[2]) => openSession(db, clock, input),
    authenticateSession: (tokenHash: string) => authenticateSession(db, clock, tokenHash),
    closeSession: (input: { sessionId: string; reason: SessionEndReason; requestId: string | null }) =>
      closeSession(db, clock, input),

    openLease: (input: Parameters<typeof openLease>[2]) => openLease(db, clock, input),
    renewLeases: (requests: readonly RenewRequest[], ttlMs: number) => renewLeases(db, clock, requests, ttlMs),
    findExpiredLeases: (limit: number) => findExpiredLeases(db, clock, limit),
    deleteLeaseIfRevision: (lease: Pick<Lease, 'roomId' | 'userId' | 'sessionId' | 'revision'>, requestId?: string) =>
      deleteLeaseIfRevision(db, clock, lease, requestId ?? null),
    graceLeases: (ttlMs: number) => graceLeases(db, clock, ttlMs),
    setLeaseConnected: (sessionId: string, connected: boolean) => setLeaseConnected(db, sessionId, connected),
    listPresence: (roomId: string) => listPresence(db, roomId),

    loadRoomSnapshot: (roomId: string) => loadRoomSnapshot(db, roomId),
    eventsAfter: (roomId: string, afterRevision: number, limit: number) => eventsAfter(db, roomId, afterRevision, limit),
    pruneRoomLog: (keepPerRoom: number) => pruneRoomLog(db, keepPerRoom),
    listAttendance: (roomId: string) => listAttendance(db, roomId),
    loadAttendanceReport: (roomId: string) => loadAttendanceReport(db, clock, roomId),
  };
}

export type Store = ReturnType<typeof createStore>;
