import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const script = fileURLToPath(new URL('./workerStatements.mjs', import.meta.url));

test(
  'the embedded database keeps nothing per statement: its worker heap is flat over 20,000 statements',
  async () => {
    // A child process, because measuring live memory needs --expose-gc (a full collection first).
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', script, '20000'], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
    });
    const { statements, before, after } = JSON.parse(stdout.trim().split('\n').pop()!) as { statements: number; before: number; after: number };
    expect(statements).toBe(20_000);
    // Keeping every reply (PGlite's execProtocolRaw did) grew the live heap by 150-500 bytes a
    // statement: 3-10 MB here. Flat means well under one megabyte.
    expect(after - before).toBeLessThan(1 * 2 ** 20);
  },
  120_000,
);
