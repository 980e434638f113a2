import { useStore } from 'zustand';
import type { BoardEditor } from '../elements/boardEditor.ts';
import type { RosterEntry } from '../sync/roster.ts';
import { useT } from '../i18n/useT.ts';

/**
 * The teacher's part of a roster row, kept to the row's one line: how many elements the member
 * drew (on the board now) as a small count, and a badge while their pen is muted. Muting and
 * giving the pen back are in the row's menu (TeacherControls.tsx); the server decides both.
 */
export function RosterAuthority({ editor, entry, penMuted }: { editor: BoardEditor; entry: RosterEntry; penMuted: boolean }) {
  const drew = useStore(editor.board, (b) => {
    let n = 0;
    for (const e of b.elements.values()) if (e.createdBy === entry.userId) n++;
    return n;
  });
  const t = useT();
  const drewText = t('roster.drew', { count: drew });
  return (
    <span className="roster-authority">
      {penMuted && (
        <span className="roster-muted" data-testid="pen-muted" title={t('roster.penMutedTitle')}>
          {t('roster.penMuted')}
        </span>
      )}
      <span className={`roster-drew${drew === 0 ? ' roster-drew-none' : ''}`} data-testid="drew-count" data-count={drew} title={drewText}>
        <svg width="12" height="12" viewBox="0 0 12 12" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="1.3" strokeLinecap="round" strokeLinejoin="round">
          <path d="M2 10l.6-2.4L8.2 2a1.1 1.1 0 011.6 0l.2.2a1.1 1.1 0 010 1.6L4.4 9.4z" />
        </svg>
        <span aria-hidden="true">{drew}</span>
        <span className="visually-hidden">{drewText}</span>
      </span>
    </span>
  );
}
