/**
 * The baseline build of an A/B run (issue 42): `--baseline-ref=<git ref>` checks the ref out as a
 * detached worktree of this repository in the system's temporary directory (once per commit: a
 * second run reuses it) and installs its dependencies from the lockfile, so the bench can start the
 * product server of that commit beside this checkout's. `--baseline=<dir>` names a checkout that is
 * already installed instead.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './serverUnderTest.ts';

const git = (cwd: string, args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The checkout of `ref`, installed; made on first use. */
export function baselineCheckout(ref: string, log: (line: string) => void): string {
  const commit = git(repoRoot, ['rev-parse', '--verify', `${ref}^{commit}`]);
  const dir = join(tmpdir(), `wb-bench-baseline-${commit.slice(0, 12)}`);
  if (!existsSync(join(dir, 'node_modules'))) {
    log(`baseline ${ref} (${commit.slice(0, 12)}): checking out and installing in ${dir}`);
    if (!existsSync(dir)) git(repoRoot, ['worktree', 'add', '--detach', dir, commit]);
    try {
      execFileSync('pnpm', ['install', '--frozen-lockfile', '--offline'], { cwd: dir, stdio: 'ignore' });
    } catch {
      execFileSync('pnpm', ['install', '--frozen-lockfile'], { cwd: dir, stdio: 'ignore' });
    }
  }
  return dir;
}

/** A checkout's commit, `-dirty` when it has uncommitted changes. */
export function commitOf(dir: string): string {
  try {
    const commit = git(dir, ['rev-parse', '--short=12', 'HEAD']);
    return git(dir, ['status', '--porcelain', '--untracked-files=no']) ? `${commit}-dirty` : commit;
  } catch {
    return 'unknown';
  }
}

/**
 * The protocol version a checkout's server speaks (its `PROTOCOL_VERSION`): the handshake refuses
 * any other, so the baseline's generator announces the baseline's. The drawing class's packets
 * (cursors, live ink, element.create) are the same across the versions an A/B compares.
 */
export function protocolVersionOf(dir: string): number {
  const source = readFileSync(join(dir, 'packages/protocol/src/primitives.ts'), 'utf8');
  const found = /export const PROTOCOL_VERSION = (\d+);/.exec(source);
  if (!found) throw new Error(`no PROTOCOL_VERSION in ${dir}`);
  return Number(found[1]);
}
