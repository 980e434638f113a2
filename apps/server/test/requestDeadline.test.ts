/**
 * Issue 19 item 3, graceful overload: a request that misses its deadline while the database is
 * answering other work is the server past capacity, not the database away. It is answered `busy`
 * (the client keeps the edit, shows it as syncing and sends it again), never `unavailable`; with
 * the database silent it is still `unavailable`. Each request is answered exactly once.
 */
import { ErrorCode, type Ack } from '@wb/protocol';
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { REQUEST_DEADLINE_MS, acked, type AckContext } from '../src/realtime/requests.ts';

function context(databaseAnswering: boolean) {
  const refused: string[] = [];
  const failed: string[] = [];
  const ctx: AckContext = {
    refused: (code) => refused.push(code),
    missingAck: () => {},
    failed: (event) => failed.push(event),
    databaseAnswering: () => databaseAnswering,
  };
  return { ctx, refused, failed };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

test('a create past its deadline while the database answers other work is answered busy, once; a late outcome is not sent', async () => {
  const { ctx, refused, failed } = context(true);
  let finish!: (value: { element: string }) => void;
  const handler = acked(ctx, 'element.create', () => new Promise<{ element: string }>((resolve) => (finish = resolve)));
  const replies: Ack<{ element: string }>[] = [];
  handler({}, (reply: Ack<{ element: string }>) => replies.push(reply));
  await vi.advanceTimersByTimeAsync(REQUEST_DEADLINE_MS);
  expect(replies).toEqual([{ ok: false, error: { code: ErrorCode.BUSY, message: expect.any(String) } }]);
  expect(refused).toEqual([ErrorCode.BUSY]);
  expect(failed).toEqual([]);
  finish({ element: 'late' });
  await vi.advanceTimersByTimeAsync(0);
  expect(replies).toHaveLength(1);
});

test('with the database silent the same deadline is still unavailable', async () => {
  const { ctx, failed } = context(false);
  const handler = acked(ctx, 'element.create', () => new Promise<never>(() => {}));
  const replies: Ack<never>[] = [];
  handler({}, (reply: Ack<never>) => replies.push(reply));
  await vi.advanceTimersByTimeAsync(REQUEST_DEADLINE_MS);
  expect(replies).toEqual([{ ok: false, error: { code: ErrorCode.UNAVAILABLE, message: expect.any(String) } }]);
  expect(failed).toEqual(['element.create']);
});
