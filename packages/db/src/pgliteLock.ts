import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';

/**
 * Two processes opening one PGlite data directory silently lose writes, so a directory is held
 * by a lock file beside it (`<dir>.lock`) naming the holder's pid. A lock left by a dead process
 * is taken over; one held by a live process refuses with a message saying who holds it.
 */
export class PgliteDirLock {
  private constructor(readonly path: string) {}

  static acquire(dataDir: string): PgliteDirLock {
    const path = `${dataDir.replace(/\/+$/, '')}.lock`;
    mkdirSync(dirname(path), { recursive: true });
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(path, 'wx');
        writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() }));
        closeSync(fd);
        const lock = new PgliteDirLock(path);
        process.once('exit', () => lock.release());
        return lock;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const holder = readHolder(path);
        if (holder && holder.host === hostname() && isAlive(holder.pid)) {
          throw new PgliteDirLockedError(dataDir, path, holder.pid);
        }
        if (holder && holder.host !== hostname()) {
          throw new PgliteDirLockedError(dataDir, path, holder.pid, holder.host);
        }
        try {
          unlinkSync(path); // stale: its process is gone
        } catch {
          // another process removed it first; the next attempt decides
        }
      }
    }
    throw new PgliteDirLockedError(dataDir, path, undefined);
  }

  release(): void {
    try {
      const holder = readHolder(this.path);
      if (holder?.pid === process.pid) unlinkSync(this.path);
    } catch {
      // already gone
    }
  }
}

export class PgliteDirLockedError extends Error {
  constructor(dataDir: string, lockPath: string, pid: number | undefined, host?: string) {
    super(
      `The embedded database directory ${dataDir} is in use by another process` +
        (pid ? ` (pid ${pid}${host ? ` on ${host}` : ''})` : '') +
        `. Two processes on one PGlite directory lose writes, so this one will not start. ` +
        `Stop the other server, or set PGLITE_DIR to another directory. Lock file: ${lockPath}`,
    );
    this.name = 'PgliteDirLockedError';
  }
}

function readHolder(path: string): { pid: number; host: string } | null {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as { pid?: unknown; host?: unknown };
    return typeof parsed.pid === 'number' && typeof parsed.host === 'string'
      ? { pid: parsed.pid, host: parsed.host }
      : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
