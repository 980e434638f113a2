import { useStore } from 'zustand';
import type { BoardEditor } from '../elements/boardEditor.ts';
import type { RosterEntry } from '../sync/roster.ts';

/**
 * The teacher's part of a roster row: how many elements the member drew (on the board now), and
 * for a student, muting their pen (they only look) or giving it back. The server decides both.
 */
export function RosterAuthority({ editor, entry, penMuted }: { editor: BoardEditor; entry: RosterEntry; penMuted: boolean }) {
  const drew = useStore(editor.board, (b) => {
    let n = 0;
    for (const e of b.elements.values()) if (e.createdBy === entry.userId) n++;
    return n;
  });
  return (
    <span className="roster-authority">
      <span className="muted roster-drew" data-testid="drew-count">
        drew {drew} element{drew === 1 ? '' : 's'}
      </span>
      {entry.role === 'student' && entry.state !== 'removed' && (
        <button
          type="button"
          className="roster-action"
          aria-pressed={penMuted}
          onClick={() => void editor.setPenMuted(entry.userId, !penMuted)}
          aria-label={penMuted ? `Give pen back to ${entry.displayName}` : `Mute pen of ${entry.displayName}`}
        >
          {penMuted ? 'Give pen back' : 'Mute pen'}
        </button>
      )}
    </span>
  );
}
