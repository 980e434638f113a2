import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * What each store operation's statements count as in `wb_db_statements_total{kind}`: the load a
 * lesson puts on the database, by what it is for. Operations not named here are `other`.
 */
const statementKinds: Readonly<Record<string, string>> = {
  renewLeases: 'renewal',
  authenticateSession: 'handshake',
  openLease: 'handshake',
  loadRoomSnapshot: 'sync',
  eventsAfter: 'sync',
  createElement: 'create',
  createElements: 'create',
  updateElement: 'edit',
  deleteElement: 'edit',
  setElementPinned: 'edit',
  setLessonSettings: 'edit',
  setPenMuted: 'edit',
  setHand: 'edit',
  lowerAllHands: 'edit',
  restoreElementVersion: 'edit',
  clearBoard: 'edit',
  restoreBatch: 'edit',
  readDrawRights: 'other',
  listHistory: 'other',
  pruneElementVersions: 'sweep',
  acquireLock: 'lock',
  extendLock: 'lock',
  releaseLock: 'lock',
  breakLock: 'lock',
  readLock: 'lock',
  findExpiredLeases: 'sweep',
  deleteLeaseIfRevision: 'sweep',
  findExpiredLocks: 'sweep',
  expireLockIfGeneration: 'sweep',
  graceLeases: 'sweep',
  graceLocks: 'sweep',
  restoreLostLeases: 'sweep',
  pruneRoomLog: 'sweep',
  pruneAppliedRequests: 'sweep',
  setLeaseConnected: 'presence',
  closeSession: 'presence',
};

export function statementKind(operation: string): string {
  return statementKinds[operation] ?? 'other';
}

/** Prometheus metrics (GET /metrics). One registry per server instance so tests can run several. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'wb_' });
  const dbStatements = new Counter({
    name: 'wb_db_statements_total',
    help: 'Statements sent to the database (BEGIN and COMMIT included), by what they were for and the store operation that sent them',
    labelNames: ['kind', 'operation'] as const,
    registers: [registry],
  });
  const laneWaiting = new Gauge({
    name: 'wb_db_lane_waiting',
    help: 'Store operations waiting for a database connection, by lane (priority: renewals and handshakes)',
    labelNames: ['lane'] as const,
    registers: [registry],
  });
  const laneGrants = new Counter({
    name: 'wb_db_lane_grants_total',
    help: 'Database connections handed out, by lane',
    labelNames: ['lane'] as const,
    registers: [registry],
  });
  const laneWait = new Counter({
    name: 'wb_db_lane_wait_seconds_total',
    help: 'Time spent waiting for a database connection, by lane (divide by grants for the mean wait)',
    labelNames: ['lane'] as const,
    registers: [registry],
  });
  const lanePastDeadline = new Counter({
    name: 'wb_db_lane_past_deadline_total',
    help: 'Store operations refused unrun because their request deadline passed while they waited for a connection, by lane',
    labelNames: ['lane'] as const,
    registers: [registry],
  });
  const reportedLanes = new Map<string, { granted: number; waitedMs: number; pastDeadline: number }>();
  /** What the counter has been told so far, per operation (the database's counter only grows). */
  const reportedStatements = new Map<string, number>();
  return {
    registry,
    /** Brings `wb_db_statements_total` up to the database's own count (called on each scrape). */
    recordStatements(counts: ReadonlyMap<string, number>): void {
      for (const [operation, count] of counts) {
        const delta = count - (reportedStatements.get(operation) ?? 0);
        if (delta <= 0) continue;
        reportedStatements.set(operation, count);
        dbStatements.inc({ kind: statementKind(operation), operation }, delta);
      }
    },
    /** Brings the lane metrics up to the database's lane gate (called on each scrape). */
    recordLanes(
      waiting: Readonly<Record<string, number>>,
      stats: Readonly<Record<string, { granted: number; waitedMs: number; pastDeadline: number }>>,
    ): void {
      for (const [lane, count] of Object.entries(waiting)) laneWaiting.set({ lane }, count);
      for (const [lane, now] of Object.entries(stats)) {
        const before = reportedLanes.get(lane) ?? { granted: 0, waitedMs: 0, pastDeadline: 0 };
        if (now.granted > before.granted) laneGrants.inc({ lane }, now.granted - before.granted);
        if (now.waitedMs > before.waitedMs) laneWait.inc({ lane }, (now.waitedMs - before.waitedMs) / 1000);
        if (now.pastDeadline > before.pastDeadline) lanePastDeadline.inc({ lane }, now.pastDeadline - before.pastDeadline);
        reportedLanes.set(lane, { ...now });
      }
    },
    inkPoints: new Counter({
      name: 'wb_ink_points_total',
      help: 'Live-ink points accepted for fan-out (each reaches every other member of the room once)',
      registers: [registry],
    }),
    droppedInkPoints: new Counter({
      name: 'wb_ink_points_dropped_total',
      help: "Live-ink points dropped because a room tick's bound was full (I10)",
      registers: [registry],
    }),
    shedVolatilePackets: new Counter({
      name: 'wb_volatile_packets_shed_total',
      help: "Volatile packets (cursor and board batches) not sent to a socket because its write buffer was full (I10, boundedVolatile.ts)",
      registers: [registry],
    }),
    connectedSockets: new Gauge({ name: 'wb_connected_sockets', help: 'Open sockets on this node', registers: [registry] }),
    renewals: new Counter({
      name: 'wb_lease_renewals_total',
      help: 'Lease renewals by decision',
      labelNames: ['decision'] as const,
      registers: [registry],
    }),
    renewalStatements: new Counter({
      name: 'wb_lease_renewal_statements_total',
      help: 'Statements written for lease renewals (one per batch)',
      registers: [registry],
    }),
    expiries: new Counter({ name: 'wb_lease_expiries_total', help: 'Leases expired by this node', registers: [registry] }),
    eventsPublished: new Counter({
      name: 'wb_room_events_published_total',
      help: 'Room events published by this node',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    createBatchSize: new Histogram({
      name: 'wb_create_batch_size',
      help: 'Element creates written per batch (one statement per batch)',
      buckets: [1, 2, 4, 8, 16, 32, 64],
      registers: [registry],
    }),
    cursorBatchSize: new Histogram({
      name: 'wb_cursor_batch_size',
      help: 'Cursor entries per batch sent to a room',
      buckets: [1, 2, 4, 8, 16, 31, 64],
      registers: [registry],
    }),
    cursorTick: new Gauge({
      name: 'wb_cursor_tick_ms',
      help: 'Current cursor batching tick in milliseconds (short when the event loop is calm, long when busy)',
      registers: [registry],
    }),
    refusedPackets: new Counter({
      name: 'wb_refused_packets_total',
      help: 'Socket packets refused, by error code',
      labelNames: ['code'] as const,
      registers: [registry],
    }),
    embeddedDbMemory: new Gauge({
      name: 'wb_embedded_db_memory_bytes',
      help: "The embedded database's worker thread (PGlite only): WebAssembly heap, JS heap used, external",
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    sweeperLastPassAge: new Gauge({
      name: 'wb_sweeper_last_pass_age_seconds',
      help: 'Seconds since the sweeper loop last completed a pass',
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
