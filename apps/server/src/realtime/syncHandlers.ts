import type { Store } from '@wb/db';
import { ClientEvent, ErrorCode, type SyncMessage } from '@wb/protocol';
import type { ClientEventHandlers } from './clientEvents.ts';
import { Refusal } from './requests.ts';

/** Room events a reconnecting client may be replayed; past this it gets a snapshot. */
export const REPLAY_LIMIT = 500;

/**
 * What a client syncs from: the room events after the revision it has (at most REPLAY_LIMIT, while
 * the log still holds them), else a snapshot. Sent on connect and on `sync.request` (a client that
 * saw a revision gap).
 */
export async function buildSync(store: Store, roomId: string, lastRevision: number | undefined): Promise<SyncMessage> {
  if (lastRevision !== undefined) {
    const replay = await store.eventsAfter(roomId, lastRevision, REPLAY_LIMIT);
    if (replay.kind === 'replay') return { kind: 'replay', fromRevision: lastRevision, events: replay.events };
  }
  const snapshot = await store.loadRoomSnapshot(roomId);
  if (!snapshot) throw new Refusal({ code: ErrorCode.ROOM_NOT_FOUND, message: 'This room no longer exists.' });
  return { kind: 'snapshot', snapshot };
}

export function syncHandlers(store: Store): Pick<ClientEventHandlers, typeof ClientEvent.SYNC_REQUEST> {
  return {
    [ClientEvent.SYNC_REQUEST]: async (session, request) => ({ sync: await buildSync(store, session.roomId, request.lastRevision) }),
  };
}
