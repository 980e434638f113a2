import { describe, expect, test } from 'vitest';
import {
  ErrorCode,
  FatalErrorCode,
  RequestErrorCode,
  RetryableErrorCode,
  isErrorCode,
  isFatalErrorCode,
  isRequestErrorCode,
  refusalText,
} from '../src/index.ts';

describe('error codes and their texts: one source', () => {
  test('every code is in exactly one class: fatal, retryable or request', () => {
    const classes = [FatalErrorCode, RetryableErrorCode, RequestErrorCode].map((c) => Object.values(c) as string[]);
    const all = classes.flat();
    expect(new Set(all).size).toBe(all.length);
    expect(all.sort()).toEqual((Object.values(ErrorCode) as string[]).sort());
  });

  test('the class helpers answer by class, and only for known codes', () => {
    for (const code of Object.values(ErrorCode)) {
      expect(isErrorCode(code)).toBe(true);
      expect(isFatalErrorCode(code)).toBe((Object.values(FatalErrorCode) as string[]).includes(code));
      expect(isRequestErrorCode(code)).toBe((Object.values(RequestErrorCode) as string[]).includes(code));
    }
    expect(isRequestErrorCode('nonsense')).toBe(false);
    expect(isErrorCode('nonsense')).toBe(false);
  });

  test('every code has a text a person can read, and no other key has one', () => {
    for (const code of Object.values(ErrorCode)) expect(refusalText[code]).toMatch(/^[A-Z].*\.$/);
    expect(Object.keys(refusalText).sort()).toEqual((Object.values(ErrorCode) as string[]).sort());
  });
});
