/**
 * The typed transport (issue 37): a request names an acknowledged client event and gets that
 * event's reply, checked by the compiler. The `@ts-expect-error` lines are the test: `pnpm
 * typecheck` fails if any of them compiles (a payload or a reply the map does not allow).
 */
import { ClientEvent, type BoardInfo } from '@wb/protocol';
import { expect, test } from 'vitest';
import type { Request } from './request.ts';

/** A request that answers a fixed list reply, whatever it is asked (the types are the point). */
const board: BoardInfo = {
  id: '00000000-0000-4000-8000-0000000000b1',
  activityId: '00000000-0000-4000-8000-0000000000a1',
  ownerUserId: '00000000-0000-4000-8000-0000000000c1',
  ownerName: 'Ana',
  revision: 0,
  editPolicy: 'own',
  shownLabel: null,
};
const request = (async () => ({ ok: true, activity: null, boards: [board] })) as unknown as Request;

async function misuses() {
  // @ts-expect-error a volatile event is not a request
  await request(ClientEvent.BOARD_POINTER, { boardId: board.id, x: 0, y: 0 });
  // @ts-expect-error board.sync needs the board's id
  await request(ClientEvent.BOARD_SYNC, {});
  // @ts-expect-error element.create's payload is not board.list's
  await request(ClientEvent.ELEMENT_CREATE, {});
  const listed = await request(ClientEvent.BOARD_LIST, {});
  // @ts-expect-error board.list answers boards, not an element
  if (listed.ok) void listed.element;
}

test('a request answers the reply of the event it names: board.list lists boards', async () => {
  expect(typeof misuses).toBe('function');
  const listed = await request(ClientEvent.BOARD_LIST, {});
  expect(listed.ok && listed.boards.map((b) => b.ownerName)).toEqual(['Ana']);
});
