// The embedded database's own thread. PGlite runs Postgres in WebAssembly and executes each
// statement synchronously; on the server's main thread that time would land on cursor latency.
// Here it runs in a worker thread and is reached through the Postgres wire protocol on a unix
// socket in a private directory, so the main thread uses the same node-postgres driver as for a
// real Postgres server and never blocks on a statement.
//
// PGlite is one backend: a transaction is a property of that backend, not of a connection. So the
// bridge serves one connection at a time (the main thread's pool has exactly one; another waits),
// processes its messages strictly in order, and rolls back whatever a dropped connection left open.
//
// Plain JavaScript on purpose: a worker is started from a file path, and this file must load the
// same way under tsx, vitest and a built server.
import { createServer } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

/** Protocol 3.0 startup, SSL request and cancel request codes (untyped messages). */
const STARTUP = 196_608;
const SSL_REQUEST = 80_877_103;
const CANCEL_REQUEST = 80_877_102;
const TERMINATE = 0x58; // 'X'
/** The messages that end a query cycle: a simple query, or an extended-protocol Sync. */
const QUERY = 0x51; // 'Q'
const SYNC = 0x53; // 'S'

const { dataDir, socketPath, template } = workerData;

/**
 * Splits the bytes of one connection into whole protocol messages.
 * Before the startup message the messages are untyped (length first); after it, typed.
 */
class MessageReader {
  buffer = Buffer.alloc(0);
  started = false;

  push(chunk) {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
  }

  /** The next complete message, or null until more bytes arrive. */
  next() {
    if (!this.started) {
      if (this.buffer.length < 8) return null;
      const length = this.buffer.readInt32BE(0);
      if (this.buffer.length < length) return null;
      const code = this.buffer.readInt32BE(4);
      const message = this.buffer.subarray(0, length);
      this.buffer = this.buffer.subarray(length);
      if (code === STARTUP) this.started = true;
      return { untyped: code, message };
    }
    if (this.buffer.length < 5) return null;
    const length = 1 + this.buffer.readInt32BE(1);
    if (this.buffer.length < length) return null;
    const message = this.buffer.subarray(0, length);
    this.buffer = this.buffer.subarray(length);
    return { type: message[0], message };
  }
}

/**
 * One protocol message through PGlite, its reply bytes untouched. Not `execProtocolRaw`: in PGlite
 * 0.5 that also parses every reply into a result list that only `execProtocol` ever clears, so a
 * long-running bridge kept every row it ever returned (about 150-500 bytes a statement, measured:
 * the worker's heap grew for as long as the server ran). The stream variant hands over the raw
 * bytes (a view into WebAssembly memory, so copied) and parses nothing.
 */
async function execute(db, bytes) {
  const chunks = [];
  await db.execProtocolRawStream(bytes, { onRawData: (data) => chunks.push(Buffer.from(data)) });
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

/** Every table of the application (the migrator's journal, in schema drizzle, is kept). */
const USER_TABLES = `
  SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
  WHERE schemaname NOT IN ('pg_catalog', 'information_schema', 'drizzle')`;

/** A digest of the schema: relations and their columns, grants, functions, triggers, constraints, roles, settings. */
const SCHEMA_SIGNATURE = `
  SELECT md5(string_agg(item, ',' ORDER BY item)) AS signature FROM (
    SELECT format('c %s.%s %s%s %s %s', n.nspname, c.relname, c.relkind, c.relpersistence, c.relacl, (
      SELECT string_agg(format('%s %s %s %s', a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid)), ';' ORDER BY a.attnum)
      FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped)) AS item
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_to%' AND n.nspname NOT LIKE 'pg\\_temp%'
    UNION ALL SELECT format('p %s %s', p.oid::regprocedure, md5(p.prosrc)) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
    UNION ALL SELECT format('t %s %s %s', tgrelid::regclass, tgname, tgenabled) FROM pg_trigger
    UNION ALL SELECT format('k %s %s %s', conrelid::regclass, conname, pg_get_constraintdef(k.oid)) FROM pg_constraint k JOIN pg_namespace n ON n.oid = k.connamespace
    WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
    UNION ALL SELECT format('r %s %s', rolname, rolsuper) FROM pg_roles
    UNION ALL SELECT format('s %s', setconfig) FROM pg_db_role_setting
  ) items`;

async function main() {
  // From the migrated template when the parent gives one (pgliteTemplate.ts): in memory, or a new
  // directory on disk for a test server.
  const seed = template ? { loadDataDir: new Blob([template]) } : undefined;
  const db = dataDir ? new PGlite(dataDir, seed) : new PGlite(seed);
  await db.waitReady;
  let current = null;
  const waiting = [];

  // Online backups ('backup' from the parent: `pnpm db:backup` against a running server). PGlite
  // is this thread's one backend, so the copy is taken here, between two protocol messages, at a
  // point where the connection being served has finished its query cycle (a simple Query or a
  // Sync was the last message) and holds no transaction open: the files then hold only committed
  // work. While the copy is made (a CHECKPOINT, so it needs no WAL replay, then PGlite's own
  // dump), serving waits for it; every request goes on afterwards where it stopped.
  let executing = false;
  let atCycleEnd = true;
  let copying = null;
  const backupsWanted = [];
  const backupPoint = () => !executing && atCycleEnd && !copying && !db.isInTransaction();
  const takeBackupIfWanted = async () => {
    if (backupsWanted.length === 0 || !backupPoint()) return;
    const ids = backupsWanted.splice(0);
    let copied;
    copying = new Promise((resolve) => (copied = resolve));
    try {
      await db.exec('CHECKPOINT');
      const archive = new Uint8Array(await (await db.dumpDataDir('gzip')).arrayBuffer());
      // Every request waiting gets this one copy (each its own: a transfer empties the buffer).
      for (const id of ids) parentPort.postMessage({ backup: id, archive: archive.slice() });
    } catch (error) {
      for (const id of ids) parentPort.postMessage({ backup: id, failed: error instanceof Error ? error.message : String(error) });
    } finally {
      copying = null;
      copied();
    }
  };

  const release = (socket) => {
    if (current !== socket) return;
    current = null;
    const next = waiting.shift();
    if (next) attach(next);
  };

  const attach = (socket) => {
    current = socket;
    const reader = new MessageReader();
    let queue = Promise.resolve();

    const serve = async () => {
      for (let item = reader.next(); item; item = reader.next()) {
        if (item.untyped === SSL_REQUEST) {
          socket.write('N'); // no TLS on a private unix socket
          continue;
        }
        if (item.untyped === CANCEL_REQUEST) continue; // not supported; the statement runs to its end
        if (item.type === TERMINATE) {
          socket.end();
          return;
        }
        while (copying) await copying;
        const bytes = new Uint8Array(item.message.buffer, item.message.byteOffset, item.message.length);
        executing = true;
        let reply;
        try {
          reply = await execute(db, bytes);
        } finally {
          executing = false;
        }
        // The startup message (untyped) ends with ReadyForQuery too.
        atCycleEnd = item.untyped !== undefined || item.type === QUERY || item.type === SYNC;
        if (reply.length > 0 && !socket.destroyed) socket.write(reply);
        await takeBackupIfWanted();
      }
    };

    socket.on('data', (chunk) => {
      reader.push(chunk);
      queue = queue.then(serve).catch((error) => {
        parentPort.postMessage({ warning: `embedded database connection failed: ${String(error)}` });
        socket.destroy();
      });
    });
    socket.on('close', () => {
      // Whatever the connection left open is rolled back before the next one is served, and its
      // prepared statements dropped: the next connection's driver knows none and parses its named
      // statements again, which would fail on a name the backend still holds.
      queue = queue
        .then(async () => {
          while (copying) await copying;
          if (db.isInTransaction()) await db.exec('ROLLBACK');
          await db.exec('DEALLOCATE ALL');
        })
        .catch(() => {})
        .finally(() => {
          atCycleEnd = true;
          release(socket);
          void takeBackupIfWanted();
        });
    });
    socket.resume();
  };

  const server = createServer({ pauseOnConnect: true }, (socket) => {
    socket.setNoDelay(true);
    socket.on('error', () => {});
    // One connection at a time: a second waits (paused) until the first has closed.
    if (current) {
      waiting.push(socket);
      socket.once('close', () => {
        const at = waiting.indexOf(socket);
        if (at >= 0) waiting.splice(at, 1);
      });
    } else {
      attach(socket);
    }
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, resolve);
  });

  /**
   * Tests only (openRecycledPglite in database.ts): returns the engine to an empty database for the
   * next test file, when its schema is still the one recorded by 'mark schema' (sent once the
   * engine's database was migrated); otherwise it answers false and the parent starts a fresh
   * engine instead. Runs once the last connection has closed (its open transaction rolled back),
   * never beside one.
   */
  let schemaAtStart = null;
  const schemaSignature = async () => (await db.query(SCHEMA_SIGNATURE)).rows[0].signature;
  const reset = async () => {
    for (let waited = 0; current || waiting.length > 0; waited += 10) {
      if (waited >= 30_000) return false;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    if (db.isInTransaction()) await db.exec('ROLLBACK');
    if (schemaAtStart === null || (await schemaSignature()) !== schemaAtStart) return false;
    // Session state a file may have left: settings, prepared statements, temporary tables, locks.
    await db.exec('DISCARD ALL');
    const tables = (await db.query(USER_TABLES)).rows.map((row) => row.name);
    if (tables.length > 0) {
      // Replica role: the append-only guards' TRUNCATE triggers do not fire (this is not a purge).
      await db.exec(`BEGIN; SET LOCAL session_replication_role = replica; TRUNCATE ${tables.join(', ')} RESTART IDENTITY CASCADE; COMMIT`);
    }
    return true;
  };

  parentPort.on('message', async (message) => {
    if (message === 'memory' || message === 'memory after gc') {
      // A diagnosis aid: with --expose-gc on this thread, count live memory only.
      if (message === 'memory after gc') globalThis.gc?.();
      // This thread's share of the process's memory, for the operator's /metrics: PGlite's
      // WebAssembly heap (it grows on demand and never shrinks) and this isolate's JS heap.
      const { heapUsed, external } = process.memoryUsage();
      parentPort.postMessage({ memory: { wasmBytes: db.Module.HEAPU8.byteLength, heapUsedBytes: heapUsed, externalBytes: external } });
      return;
    }
    if (message === 'dump') {
      // The parent's template of a freshly migrated database; asked for while no statement runs.
      const tarball = await (await db.dumpDataDir('none')).arrayBuffer();
      parentPort.postMessage({ dump: new Uint8Array(tarball) }, [tarball]);
      return;
    }
    if (typeof message === 'object' && message !== null && 'backup' in message) {
      backupsWanted.push(message.backup);
      await takeBackupIfWanted();
      return;
    }
    if (message === 'mark schema') {
      schemaAtStart = await schemaSignature().catch(() => null);
      parentPort.postMessage({ marked: schemaAtStart !== null });
      return;
    }
    if (message === 'reset') {
      parentPort.postMessage({ reset: await reset().catch((error) => String(error)) });
      return;
    }
    if (message !== 'close') return;
    server.close();
    current?.destroy();
    await db.close();
    parentPort.postMessage({ closed: true });
  });
  parentPort.postMessage({ ready: true });
}

main().catch((error) => {
  parentPort.postMessage({ failed: error instanceof Error ? error.message : String(error) });
});
