import { snapshotOf } from '../sync/roomState.ts';
import type { SyncEngine } from '../sync/syncEngine.ts';
import { loadPicture, savePicture, type BoardScope } from './deviceStore.ts';

/**
 * The class board as last synced, kept on this device so a page reloaded without network shows
 * the board (with the unsynced edits on top) instead of an empty page. Written a while after the
 * state changes (not on every stroke: a large board is a large write) and when the page is hidden
 * or left. Read back once, into an engine that holds nothing yet (`SyncEngine.restore`).
 */

/** The picture is written at most this often while the board changes (ms). */
const PICTURE_WRITE_MS = 2_000;

export function keepBoardPicture(engine: SyncEngine, scope: BoardScope): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let dirty = false;
  let stopped = false;
  const write = () => {
    clearTimeout(timer);
    timer = undefined;
    const state = engine.state;
    if (!dirty || !state) return;
    dirty = false;
    void savePicture(scope, snapshotOf(state));
  };
  const unsubscribe = engine.subscribe((changes) => {
    if (!changes.has('state')) return;
    dirty = true;
    timer ??= setTimeout(write, PICTURE_WRITE_MS);
  });
  const onHide = () => {
    if (document.visibilityState === 'hidden') write();
  };
  document.addEventListener('visibilitychange', onHide);
  window.addEventListener('pagehide', write);
  void loadPicture(scope).then((kept) => {
    if (!stopped && kept) engine.restore(kept);
  });
  return () => {
    stopped = true;
    write();
    unsubscribe();
    document.removeEventListener('visibilitychange', onHide);
    window.removeEventListener('pagehide', write);
  };
}
