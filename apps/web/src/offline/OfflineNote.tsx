import { useStore } from 'zustand';
import type { ConnectionState } from '../connection/connectionMachine.ts';
import type { BoardEditor } from '../elements/boardEditor.ts';
import { useShellCached } from './appShell.ts';
import { offlineText } from './offlineText.ts';
import './OfflineNote.css';

/**
 * While the lesson server cannot be reached: what happens to the person's work, and whether a
 * reload would open the page. Where a service worker keeps the app shell, a reload opens from this
 * device; on a plain-HTTP school address it needs the network (appShell.ts). Where this browser
 * keeps nothing (no IndexedDB), the edits are in this tab only, and it says so.
 */
export function OfflineNote({ connection, editor }: { connection: ConnectionState; editor: BoardEditor }) {
  const unsynced = useStore(editor.board, (b) => b.unsynced);
  const kept = useStore(editor.board, (b) => b.kept);
  const shellCached = useShellCached();
  // Still connecting with edits waiting (a reload without the lesson server): say it at once.
  const unreachable = connection.status === 'offline' || connection.status === 'reconnecting' || (connection.status === 'connecting' && unsynced > 0);
  if (!unreachable) return null;
  const text = unsynced > 0 && !kept ? offlineText.tabOnly : shellCached ? offlineText.keptWithShell : offlineText.keptNeedsNetwork;
  return (
    <p className="offline-note" data-testid="offline-note" data-shell={shellCached ? 'cached' : 'network'} role="status">
      {text}
    </p>
  );
}
