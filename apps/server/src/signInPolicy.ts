/**
 * Who may make an account and who is an admin: the operator's decisions (SIGN_UP,
 * SIGN_UP_EMAIL_DOMAINS, ADMIN_EMAILS; docs/operations.md, "Teacher sign-in"), applied the same
 * to a password sign-up and to a first sign-in through an OpenID provider.
 */
import type { SignInOptions } from '@wb/protocol';
import type { Config } from './config.ts';

type Policy = Pick<Config, 'SIGN_UP' | 'SIGN_UP_EMAIL_DOMAINS' | 'ADMIN_EMAILS'>;

export function signUpMode(config: Policy): SignInOptions['signUp'] {
  if (config.SIGN_UP === 'closed') return 'closed';
  return config.SIGN_UP_EMAIL_DOMAINS.length > 0 ? 'domains' : 'open';
}

/** Whether a new account may be made for this (lowercased) address. */
export function mayMakeAccount(config: Policy, email: string): boolean {
  const mode = signUpMode(config);
  if (mode === 'closed') return false;
  if (mode === 'open') return true;
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  return config.SIGN_UP_EMAIL_DOMAINS.includes(domain);
}

export function isAdmin(config: Policy, email: string): boolean {
  return config.ADMIN_EMAILS.includes(email.toLowerCase());
}
