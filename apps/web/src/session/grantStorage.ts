import { SessionGrant } from '@wb/protocol';
import { clearLeft, rememberMembership } from './membershipMemory.ts';

/**
 * Session grants live in sessionStorage, keyed by room code: a reload of this tab resumes the same
 * session (no roster flicker, I7) while another tab gets a session of its own.
 */
const keyFor = (code: string) => `wb.session.${code.toUpperCase()}`;

export function loadGrant(code: string): SessionGrant | null {
  let raw: string | null;
  try {
    raw = sessionStorage.getItem(keyFor(code));
  } catch {
    return null;
  }
  if (!raw) return null;
  try {
    const parsed = SessionGrant.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function saveGrant(grant: SessionGrant): void {
  rememberMembership(grant.room.code, { displayName: grant.displayName, role: grant.role });
  clearLeft(grant.room.code);
  try {
    sessionStorage.setItem(keyFor(grant.room.code), JSON.stringify(grant));
  } catch {
    // Without storage a reload means joining again; the lesson itself still works.
  }
}

export function forgetGrant(code: string): void {
  try {
    sessionStorage.removeItem(keyFor(code));
  } catch {
    // Nothing stored, nothing to forget.
  }
}
