import { snapshotOf } from '../sync/roomState.ts';
import type { SyncEngine } from '../sync/syncEngine.ts';
import { loadPicture, savePicture, type BoardScope } from './deviceStore.ts';

/**
 * The class board as last synced, kept on this device so a page reloaded without network shows
 * the board (with the unsynced edits on top) instead of an empty page. Written when the state
 * changes, at most every PICTURE_WRITE_MS (not on every stroke of a busy board: a large board is a
 * large write), at once when the device goes offline, and when the page is hidden or left. Read back once, into an engine that holds nothing yet (`SyncEngine.restore`).
 */

/** The picture is written at most this often while the board changes (ms). */
const PICTURE_WRITE_MS = 2_000;

export function keepBoardPicture(engine: SyncEngine, scope: BoardScope): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let dirty = false;
  let stopped = false;
  let lastWriteAt = -Infinity;
  const write = () => {
    clearTimeout(timer);
    timer = undefined;
    const state = engine.state;
    if (!dirty || !state) return;
    dirty = false;
    lastWriteAt = Date.now();
    void savePicture(scope, snapshotOf(state));
  };
  const unsubscribe = engine.subscribe((changes) => {
    if (!changes.has('state')) return;
    dirty = true;
    // The first change after a quiet spell is written at once (a write begun as the page unloads
    // may not finish); changes coming faster are written together, PICTURE_WRITE_MS apart.
    timer ??= setTimeout(write, Math.max(0, lastWriteAt + PICTURE_WRITE_MS - Date.now()));
  });
  const onHide = () => {
    if (document.visibilityState === 'hidden') write();
  };
  document.addEventListener('visibilitychange', onHide);
  window.addEventListener('pagehide', write);
  // The device lost its network: the board as it is now is what a reload without network will
  // show, so it is written at once (a reload inside PICTURE_WRITE_MS showed it without its last change).
  window.addEventListener('offline', write);
  void loadPicture(scope).then((kept) => {
    if (!stopped && kept) engine.restore(kept);
  });
  return () => {
    stopped = true;
    write();
    unsubscribe();
    document.removeEventListener('visibilitychange', onHide);
    window.removeEventListener('pagehide', write);
    window.removeEventListener('offline', write);
  };
}
