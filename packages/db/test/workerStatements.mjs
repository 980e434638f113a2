// Run by embeddedWorker.test.ts in a child `node --expose-gc`: starts the embedded database's
// worker (pgliteWorker.mjs) in memory, sends statements through it over its unix socket as the
// server does, and prints the worker's live JS heap (after a full collection) before and after.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import pg from 'pg';

const statements = Number(process.argv[2] ?? 20_000);
const socketDir = mkdtempSync(join(tmpdir(), 'wb-worker-test-'));
const worker = new Worker(new URL('../src/pgliteWorker.mjs', import.meta.url), {
  workerData: { dataDir: null, socketPath: join(socketDir, '.s.PGSQL.5432') },
});
await new Promise((resolve, reject) => {
  worker.on('message', (m) => (m.ready ? resolve() : m.failed ? reject(new Error(m.failed)) : undefined));
});
const liveHeap = () =>
  new Promise((resolve) => {
    const onMessage = (m) => {
      if (!m.memory) return;
      worker.off('message', onMessage);
      resolve(m.memory.heapUsedBytes);
    };
    worker.on('message', onMessage);
    worker.postMessage('memory after gc');
  });

const client = new pg.Client({ host: socketDir, port: 5432, user: 'postgres', database: 'postgres' });
await client.connect();
// Warm up first: the first statements compile code and fill caches that stay.
for (let i = 0; i < 1_000; i++) await client.query('SELECT $1::int AS n, now() AS at', [i]);
const before = await liveHeap();
for (let i = 0; i < statements; i++) await client.query('SELECT $1::int AS n, now() AS at', [i]);
const after = await liveHeap();
await client.end();
await worker.terminate();
rmSync(socketDir, { recursive: true, force: true });
console.log(JSON.stringify({ statements, before, after }));
