import type { SessionGrant } from '@wb/protocol';
import { useMemo, useState, type ReactNode } from 'react';
import { restoreMember, revokeMember } from '../api/teacherApi.ts';
import type { BoardEditor } from '../elements/boardEditor.ts';
import type { RosterEntry } from '../sync/roster.ts';
import { AttendanceReport } from './AttendanceReport.tsx';
import { RemoveMemberDialog } from './RemoveMemberDialog.tsx';
import type { RosterAction, RosterControls } from './RosterPanel.tsx';
import { errorMessage } from '../i18n/errors.ts';
import { useT } from '../i18n/useT.ts';

export interface TeacherControls {
  /** Roster actions; undefined for a student, so the roster renders none. */
  roster: RosterControls | undefined;
  /** Opens the attendance report; undefined for a student. */
  openReport: (() => void) | undefined;
  /** The open dialog, if any, to render once in the page. */
  dialogs: ReactNode;
}

/** A member's pen as the lesson knows it, and the request that mutes it or gives it back. */
export interface PenAuthority {
  mutedOf: (userId: string) => boolean;
  editor: BoardEditor;
}

/**
 * The teacher's lesson controls and their dialogs. Hidden from students entirely; the server
 * refuses these actions to them anyway (`forbidden`), so this is convenience, not security.
 */
export function useTeacherControls(grant: SessionGrant, pen: PenAuthority): TeacherControls {
  const isTeacher = grant.role === 'teacher';
  const [removing, setRemoving] = useState<RosterEntry | null>(null);
  const [reportOpen, setReportOpen] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const t = useT();

  const { mutedOf, editor } = pen;
  const roster = useMemo<RosterControls | undefined>(
    () =>
      isTeacher
        ? {
            // A list, so one more action on a member is one more entry here.
            actionsFor: (entry): RosterAction[] => {
              if (entry.role !== 'student') return [];
              if (entry.state === 'removed') {
                // Restoring only lets them join again, so it needs no confirmation.
                const restore = (e: RosterEntry) => {
                  setFailure(null);
                  restoreMember(grant.token, grant.room.code, e.userId).catch((error: unknown) =>
                    setFailure(errorMessage(error, 'teacher.restoreFailed')),
                  );
                };
                return [{ id: 'restore', label: t('teacher.restore'), run: restore }];
              }
              // In the menu rather than on the row: forty rows stay one line each.
              const muted = mutedOf(entry.userId);
              const togglePen = (e: RosterEntry) => {
                setFailure(null);
                editor.setPenMuted(e.userId, !muted).catch((error: unknown) =>
                  setFailure(errorMessage(error, 'teacher.penFailed')),
                );
              };
              return [
                muted
                  ? { id: 'pen-back', label: t('teacher.penBack'), name: t('teacher.penBackTo', { name: entry.displayName }), run: togglePen }
                  : { id: 'mute-pen', label: t('teacher.mutePen'), name: t('teacher.mutePenOf', { name: entry.displayName }), run: togglePen },
                { id: 'remove', label: t('teacher.remove'), run: (e) => setRemoving(e), danger: true },
              ];
            },
          }
        : undefined,
    [isTeacher, grant.token, grant.room.code, mutedOf, editor, t],
  );

  // Stable while the grant is: the report reloads only when asked.
  const reportSource = useMemo(() => ({ kind: 'room' as const, token: grant.token, code: grant.room.code }), [grant.token, grant.room.code]);

  const dialogs = (
    <>
      {failure && (
        <p className="teacher-failure panel" role="alert">
          {failure}
        </p>
      )}
      {removing && (
        <RemoveMemberDialog
          displayName={removing.displayName}
          onConfirm={async (reason) => {
            await revokeMember(grant.token, grant.room.code, removing.userId, reason);
          }}
          onClose={() => setRemoving(null)}
        />
      )}
      {reportOpen && <AttendanceReport source={reportSource} onClose={() => setReportOpen(false)} />}
    </>
  );

  return { roster, openReport: isTeacher ? () => setReportOpen(true) : undefined, dialogs };
}
