import type { Role } from '@wb/protocol';

/**
 * What this browser remembers of its memberships, by room code, beside the member key that is its
 * identity (memberKey.ts): the name and role it joined with, so a teacher who opens their lesson's
 * link in a new tab is let back in without typing their name (the server recognises the member key
 * and answers with the teacher's membership), and a student who left can rejoin with one click.
 */
const memberFor = (code: string) => `wb.member.${code.toUpperCase()}`;
const leftFor = (code: string) => `wb.left.${code.toUpperCase()}`;

export interface RememberedMembership {
  displayName: string;
  role: Role;
}

export function rememberMembership(code: string, membership: RememberedMembership): void {
  write(localStorage, memberFor(code), JSON.stringify(membership));
}

export function rememberedMembership(code: string): RememberedMembership | null {
  const raw = read(localStorage, memberFor(code));
  if (!raw) return null;
  try {
    const parsed = JSON.parse(raw) as Partial<RememberedMembership>;
    if (typeof parsed.displayName !== 'string' || (parsed.role !== 'teacher' && parsed.role !== 'student')) return null;
    return { displayName: parsed.displayName, role: parsed.role };
  } catch {
    return null;
  }
}

/** This tab left the lesson on purpose: it shows "You left the lesson", not the join form. */
export function markLeft(code: string): void {
  write(sessionStorage, leftFor(code), '1');
}

export function hasLeft(code: string): boolean {
  return read(sessionStorage, leftFor(code)) === '1';
}

export function clearLeft(code: string): void {
  try {
    sessionStorage.removeItem(leftFor(code));
  } catch {
    // Nothing stored.
  }
}

function read(storage: Storage, key: string): string | null {
  try {
    return storage.getItem(key);
  } catch {
    return null;
  }
}

function write(storage: Storage, key: string, value: string): void {
  try {
    storage.setItem(key, value);
  } catch {
    // Without storage the person types their name again; nothing else depends on it.
  }
}
