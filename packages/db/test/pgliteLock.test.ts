import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { PgliteDirLock, PgliteDirLockedError } from '../src/pgliteLock.ts';

const packageRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'wb-lock-'));
  dirs.push(dir);
  return join(dir, 'pglite');
};

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the embedded database directory is held by one process', () => {
  test('a second holder in another process is refused with a message naming the holder', () => {
    const dataDir = freshDir();
    const lock = PgliteDirLock.acquire(dataDir);
    try {
      const other = spawnSync(
        process.execPath,
        [
          '--import',
          'tsx',
          '-e',
          `import { PgliteDirLock } from './src/pgliteLock.ts';
           try { PgliteDirLock.acquire(${JSON.stringify(dataDir)}); console.log('ACQUIRED'); }
           catch (e) { console.log(e.message); process.exit(3); }`,
        ],
        { cwd: packageRoot, encoding: 'utf8' },
      );
      expect(other.status).toBe(3);
      expect(other.stdout).not.toMatch(/ACQUIRED/);
      expect(other.stdout).toMatch(new RegExp(`in use by another process \\(pid ${process.pid}\\)`));
      expect(other.stdout).toMatch(/PGLITE_DIR/);
    } finally {
      lock.release();
    }
    expect(existsSync(`${dataDir}.lock`)).toBe(false);
  });

  test('the same process asking twice is refused too (two PGlite instances on one directory lose writes)', () => {
    const dataDir = freshDir();
    const lock = PgliteDirLock.acquire(dataDir);
    try {
      expect(() => PgliteDirLock.acquire(dataDir)).toThrow(PgliteDirLockedError);
    } finally {
      lock.release();
    }
  });

  test('a lock left by a process that died is taken over', () => {
    const dataDir = freshDir();
    const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    const deadPid = Number(dead.stdout.trim());
    writeFileSync(`${dataDir}.lock`, JSON.stringify({ pid: deadPid, host: hostname(), since: new Date(0).toISOString() }));
    const lock = PgliteDirLock.acquire(dataDir);
    expect(lock.path).toBe(`${dataDir}.lock`);
    lock.release();
  });
});
