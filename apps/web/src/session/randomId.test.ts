import { ElementId, RequestId } from '@wb/protocol';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { randomId, randomUuid } from './randomId.ts';

describe('I15 random ids without a secure context', () => {
  afterEach(() => vi.unstubAllGlobals());

  test('with crypto.randomUUID missing (plain http on a LAN address), ids are still made, valid and distinct', () => {
    // What a student's tablet on http://<laptop>:3000 has: getRandomValues, and no randomUUID.
    const real = globalThis.crypto;
    vi.stubGlobal('crypto', { getRandomValues: <T extends ArrayBufferView>(array: T) => real.getRandomValues(array) });
    expect(globalThis.crypto.randomUUID).toBeUndefined();
    const uuids = Array.from({ length: 1_000 }, randomUuid);
    for (const id of uuids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(ElementId.safeParse(id).success).toBe(true);
    }
    expect(new Set(uuids).size).toBe(uuids.length);
    const requests = Array.from({ length: 1_000 }, () => randomId());
    for (const id of requests) expect(RequestId.safeParse(id).success).toBe(true);
    expect(new Set(requests).size).toBe(requests.length);
  });
});
