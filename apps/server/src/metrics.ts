import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics (GET /metrics). One registry per server instance so tests can run several. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'wb_' });
  return {
    registry,
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
