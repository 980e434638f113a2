/**
 * Online backups of the embedded database (docs/operations.md, "Backup and restore"). Two
 * processes on one PGlite directory silently lose writes, so a backup of a running server is
 * never a second process opening the directory: `pnpm db:backup` asks the server that holds it,
 * over a unix socket beside the directory, and the server's own engine copies its files between
 * two statements outside any transaction (Database.embeddedBackup) while lessons go on.
 *
 * The socket is the server's only other listener and answers one request, `GET /backup`, with
 * the archive (application/gzip). It is mode 0600: only the account that runs the server (or
 * root), which can read the data directory anyway, reaches it; nothing on the network does.
 */
import { createHash } from 'node:crypto';
import { chmodSync, createWriteStream, existsSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { createServer, request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyBaseLogger } from 'fastify';

/** Unix socket paths are limited to 107 bytes on Linux (104 on macOS); leave room. */
const MAX_SOCKET_PATH = 100;

/** Where the server holding `dataDir` listens for backup requests: `<dir>.backup.sock` when short enough. */
export function backupSocketPath(dataDir: string): string {
  const beside = `${resolve(dataDir).replace(/\/+$/, '')}.backup.sock`;
  if (Buffer.byteLength(beside) <= MAX_SOCKET_PATH) return beside;
  const digest = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16);
  return join(tmpdir(), `wb-backup-${digest}.sock`);
}

export interface BackupListener {
  path: string;
  close(): Promise<void>;
}

/**
 * Listens on the backup socket of `dataDir` (whose lock this process holds, so a socket file
 * left there is a dead server's and is replaced). One backup at a time: a request that arrives
 * while one is copied gets that copy's successor, never two copies at once.
 */
export async function serveOnlineBackups(dataDir: string, backup: () => Promise<Uint8Array>, log: FastifyBaseLogger): Promise<BackupListener> {
  const path = backupSocketPath(dataDir);
  if (existsSync(path)) unlinkSync(path);
  let previous: Promise<unknown> = Promise.resolve();
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/backup') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('GET /backup is the only request here\n');
      return;
    }
    const started = Date.now();
    const copy = previous.then(backup, backup);
    previous = copy.catch(() => {});
    copy.then(
      (archive) => {
        log.info({ bytes: archive.length, took_ms: Date.now() - started }, 'online backup of the embedded database sent');
        res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': archive.length }).end(archive);
      },
      (error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        log.warn({ err: message }, 'online backup of the embedded database failed');
        res.writeHead(503, { 'content-type': 'text/plain' }).end(`${message}\n`);
      },
    );
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(path, () => done());
  });
  chmodSync(path, 0o600);
  return {
    path,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => {
          rmSync(path, { force: true });
          done();
        });
        server.closeAllConnections();
      }),
  };
}

/** Thrown when no server answers on the backup socket. */
export class NoRunningServerError extends Error {}

/**
 * Asks the server holding `dataDir` for a backup and writes it to `file` (under a temporary name
 * first, then renamed: a failure never leaves a partial file under the final name).
 */
export async function requestOnlineBackup(dataDir: string, file: string): Promise<{ file: string; bytes: number }> {
  const path = backupSocketPath(dataDir);
  const partial = `${file}.partial`;
  const response = await new Promise<IncomingMessage>((done, fail) => {
    const req = request({ socketPath: path, path: '/backup', method: 'GET' }, done);
    req.once('error', (error: NodeJS.ErrnoException) => {
      fail(error.code === 'ENOENT' || error.code === 'ECONNREFUSED' ? new NoRunningServerError(`no server answers on ${path}`) : error);
    });
    req.end();
  });
  if (response.statusCode !== 200) {
    let text = '';
    for await (const chunk of response) text += String(chunk);
    throw new Error(`the running server refused the backup (${response.statusCode}): ${text.trim()}`);
  }
  try {
    await pipeline(response, createWriteStream(partial));
    renameSync(partial, file);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
  const bytes = Number(response.headers['content-length']);
  return { file, bytes };
}
