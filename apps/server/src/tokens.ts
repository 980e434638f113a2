import { createHash, randomBytes } from 'node:crypto';

/** A bearer token: 256 random bits, base64url. Shown once to its owner, stored only as a hash. */
export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The token's digest at rest. A fast hash is right here (unlike passwords): the token is
 * 256 random bits, so there is nothing to brute-force.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'; // no I, O, 0, 1: read aloud in class

/** A 6-character room code: 32^6 = about a billion codes. */
export function newRoomCode(): string {
  const bytes = randomBytes(6);
  let code = '';
  for (const byte of bytes) code += CODE_ALPHABET[byte % CODE_ALPHABET.length];
  return code;
}
