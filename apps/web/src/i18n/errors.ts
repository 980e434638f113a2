import { isErrorCode, type ErrorCode } from '@wb/protocol';
import type { MessageId } from '@lingui/core';
import { i18n } from './i18n.ts';

/**
 * What a person reads for a refusal: by its code, from the catalog (`refusal.<code>`), never the
 * server's English `message` (which stays for logs and other clients). The catalog's type makes
 * this total: a new code does not compile until English has its text.
 */
export function refusalMessage(code: ErrorCode): string {
  return i18n._(`refusal.${code}`);
}

/** An error of unknown shape: a refusal's text by its code, a network failure, or the fallback. */
export function errorMessage(error: unknown, fallback: MessageId): string {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' && isErrorCode(error.code)) {
    // Status 0: the request never reached the server (roomsApi.ts `call`).
    if ('status' in error && error.status === 0) return i18n._('error.unreachable');
    return refusalMessage(error.code);
  }
  return i18n._(fallback);
}

/** A zod check of a name, email or password, as the person reads it (the schema's own words are English). */
export function fieldProblem(field: 'name' | 'title' | 'email' | 'password', issue: { code: string } | undefined): string {
  if (field === 'title') return i18n._('field.titleInvalid');
  if (field === 'email') return i18n._('field.emailInvalid');
  if (field === 'password') return i18n._(issue?.code === 'too_big' ? 'field.passwordTooLong' : 'field.passwordTooShort');
  if (issue?.code === 'too_small') return i18n._('field.nameEmpty');
  if (issue?.code === 'too_big') return i18n._('field.nameTooLong');
  return i18n._('field.nameInvalid');
}
