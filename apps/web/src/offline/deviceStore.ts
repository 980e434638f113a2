import type { RoomSnapshot } from '@wb/protocol';
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { EditOp } from '../elements/editQueue.ts';

/**
 * What this device keeps of a lesson between reloads, in IndexedDB (through `idb`), which a plain
 * HTTP page at a LAN address has as well as a secure one (I15):
 * - `edits`: each board's unsynced edits of one session, in the order they were made, with their
 *   request ids (the server answers a request id it has already applied instead of applying it
 *   again), written as they change;
 * - `pictures`: the class board as last synced (a snapshot at its revision and its tombstones), so
 *   a page reloaded without network shows the board under those edits.
 * A record belongs to one session of one board of one lesson (`BoardScope`): another tab, another
 * session, never sends it.
 */

/** Whose records: one session (a tab) on one board of one lesson. */
export interface BoardScope {
  readonly lessonId: string;
  readonly boardId: string;
  readonly sessionId: string;
}

export interface KeptPicture {
  readonly snapshot: RoomSnapshot;
  readonly tombstones: ReadonlyArray<readonly [string, number]>;
}

interface OfflineSchema extends DBSchema {
  edits: { key: string; value: { ops: EditOp[]; savedAt: number } };
  pictures: { key: string; value: KeptPicture & { savedAt: number } };
}

const DB_NAME = 'wb-offline';
const DB_VERSION = 1;
/**
 * Records untouched this long are removed when a lesson opens (ms): a session's token does not
 * outlive it, so nothing older could be sent anyway.
 */
const KEEP_MS = 14 * 24 * 60 * 60 * 1000;

export const scopeKey = (scope: BoardScope): string => `${scope.lessonId}/${scope.boardId}/${scope.sessionId}`;

let opened: Promise<IDBPDatabase<OfflineSchema> | null> | null = null;

/** The database, or null where the browser has none or refuses it (then nothing is kept: the tab's queue still works). */
function database(): Promise<IDBPDatabase<OfflineSchema> | null> {
  opened ??= (async () => {
    if (typeof indexedDB === 'undefined') return null;
    try {
      const db = await openDB<OfflineSchema>(DB_NAME, DB_VERSION, {
        upgrade(db) {
          db.createObjectStore('edits');
          db.createObjectStore('pictures');
        },
      });
      void prune(db);
      return db;
    } catch {
      return null;
    }
  })();
  return opened;
}

async function prune(db: IDBPDatabase<OfflineSchema>): Promise<void> {
  const before = Date.now() - KEEP_MS;
  try {
    for (const name of ['edits', 'pictures'] as const) {
      let cursor = await db.transaction(name, 'readwrite').store.openCursor();
      while (cursor) {
        if (cursor.value.savedAt < before) await cursor.delete();
        cursor = await cursor.continue();
      }
    }
  } catch {
    // Pruning is housekeeping: the next lesson opened tries again.
  }
}

/** The edits kept for `scope`, oldest first (none when nothing is kept or storage is unavailable). */
export async function loadEdits(scope: BoardScope): Promise<EditOp[]> {
  const db = await database();
  if (!db) return [];
  try {
    return (await db.get('edits', scopeKey(scope)))?.ops ?? [];
  } catch {
    return [];
  }
}

/** Replaces the edits kept for `scope` (none: the record goes). True when written. */
export async function saveEdits(scope: BoardScope, ops: readonly EditOp[]): Promise<boolean> {
  const db = await database();
  if (!db) return false;
  try {
    if (ops.length === 0) await db.delete('edits', scopeKey(scope));
    else await db.put('edits', { ops: [...ops], savedAt: Date.now() }, scopeKey(scope));
    return true;
  } catch {
    return false;
  }
}

export async function loadPicture(scope: BoardScope): Promise<KeptPicture | null> {
  const db = await database();
  if (!db) return null;
  try {
    return (await db.get('pictures', scopeKey(scope))) ?? null;
  } catch {
    return null;
  }
}

export async function savePicture(scope: BoardScope, picture: KeptPicture): Promise<void> {
  const db = await database();
  if (!db) return;
  try {
    await db.put('pictures', { ...picture, savedAt: Date.now() }, scopeKey(scope));
  } catch {
    // A picture not kept costs a reload without network its board, never an edit.
  }
}

/** The editor's keeper of one board's unsynced edits on this device (`EditKeeper`). */
export function deviceEditKeeper(scope: BoardScope): { load(): Promise<EditOp[]>; save(ops: readonly EditOp[]): Promise<boolean> } {
  return { load: () => loadEdits(scope), save: (ops) => saveEdits(scope, ops) };
}
