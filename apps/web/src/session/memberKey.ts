import { randomId } from './randomId.ts';

const MEMBER_KEY_STORAGE = 'wb.memberKey';
/** 24 random bytes: 32 base64url characters, well past the protocol's 22-character minimum. */
const MEMBER_KEY_BYTES = 24;

/**
 * The browser's member key: generated once and kept in localStorage, so a student who comes back
 * on the same browser is the same member (same user id, same colour) rather than a stranger.
 */
export function memberKey(): string {
  const stored = readStorage(MEMBER_KEY_STORAGE);
  if (stored && /^[A-Za-z0-9_-]{22,64}$/.test(stored)) return stored;
  const key = randomId(MEMBER_KEY_BYTES);
  try {
    localStorage.setItem(MEMBER_KEY_STORAGE, key);
  } catch {
    // Storage can be disabled (private modes): the key then lasts for this page only.
  }
  return key;
}

function readStorage(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}
