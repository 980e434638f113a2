import './AttentionBar.css';
import type { CursorVisibility, SharedView } from '@wb/protocol';
import { useEffect, useState } from 'react';
import { useStore } from 'zustand';
import type { BoardEditor } from '../elements/boardEditor.ts';
import { COMPACT_LAYOUT, useMediaQuery } from '../layout/mediaQuery.ts';
import type { AttentionClient } from './attentionClient.ts';

/** Whose cursors students see, in the teacher's words. */
export const cursorVisibilityLabel: Record<CursorVisibility, string> = {
  everyone: 'Students see all cursors',
  teacher: 'Students see my cursor',
  none: 'Students see no cursors',
};

interface AttentionBarProps {
  attention: AttentionClient;
  editor: BoardEditor;
  /** What this screen shows now, as a shared view. */
  sharedView: () => SharedView;
}

/**
 * The attention kit's controls, floating at the bottom of the board. Everyone: hide others'
 * cursors on this screen, and the laser (a student's only while the teacher allows it). The
 * teacher: bring everyone to this view, present (students follow), how many follow, whose cursors
 * students see, and whether students may use the laser. A student who stopped following while the
 * teacher presents gets "Return to the teacher". The server decides every rule; this mirrors it.
 * On a phone or at 200 % zoom the teacher's class controls fold behind one "Class" button, so the
 * bar is one short row instead of a panel over the board.
 */
export function AttentionBar({ attention, editor, sharedView }: AttentionBarProps) {
  const view = useStore(attention.view);
  const settings = useStore(editor.board, (b) => b.settings);
  const isTeacher = attention.isTeacher;
  const mayLaser = isTeacher || settings.laserAllowed;
  const compact = useMediaQuery(COMPACT_LAYOUT);
  const [classOpen, setClassOpen] = useState(false);
  const classControls = isTeacher && (!compact || classOpen);
  // The teacher took the students' laser away: it goes off at once.
  useEffect(() => {
    if (!mayLaser && view.laserOn) attention.setLaser(false);
  }, [attention, mayLaser, view.laserOn]);

  return (
    <div className="attention-bar panel" role="toolbar" aria-label="Attention">
      <button type="button" className="tool-button text-button" aria-pressed={view.hideCursors} onClick={() => attention.setHideCursors(!view.hideCursors)}
        title="Hide everyone else's cursor on your screen">
        {view.hideCursors ? 'Show cursors' : 'Hide cursors'}
      </button>
      {mayLaser && (
        <button type="button" className="tool-button text-button" aria-pressed={view.laserOn} onClick={() => attention.setLaser(!view.laserOn)}
          title="Your pointer leaves a short fading trail everyone sees" data-testid="laser-toggle">
          Laser
        </button>
      )}
      {isTeacher && compact && (
        <button type="button" className="tool-button text-button" aria-expanded={classOpen} data-testid="class-controls"
          onClick={() => setClassOpen(!classOpen)} title="Bring everyone, present, whose cursors students see">
          Class <span aria-hidden="true">{classOpen ? '▴' : '▾'}</span>
        </button>
      )}
      {isTeacher && !classControls && view.presenting && (
        <span className="attention-count" role="status">
          {view.followers} following
        </span>
      )}
      {classControls && (
        <>
          <button type="button" className="tool-button text-button" onClick={() => void attention.bringEveryone(sharedView())}
            title="Move every student's view to what you see now, once">
            Bring everyone to me
          </button>
          <button type="button" className="tool-button text-button" aria-pressed={view.presenting}
            onClick={() => void attention.setPresenting(!view.presenting, sharedView())} title="Students' views follow yours until you stop">
            {view.presenting ? 'Stop presenting' : 'Present'}
          </button>
          {view.presenting && (
            <span className="attention-count" data-testid="followers" role="status">
              {view.followers} following
            </span>
          )}
          <label className="policy-select">
            <span className="visually-hidden">Cursors</span>
            <select value={settings.cursorVisibility} data-testid="cursor-visibility" aria-label="Whose cursors students see"
              onChange={(e) => void editor.setLessonSettings({ cursorVisibility: e.target.value as CursorVisibility })}>
              {(Object.keys(cursorVisibilityLabel) as CursorVisibility[]).map((mode) => (
                <option key={mode} value={mode}>
                  {cursorVisibilityLabel[mode]}
                </option>
              ))}
            </select>
          </label>
          <label className="attention-check">
            <input type="checkbox" checked={settings.laserAllowed} data-testid="laser-allowed"
              onChange={(e) => void editor.setLessonSettings({ laserAllowed: e.target.checked })} />
            Students' laser
          </label>
        </>
      )}
      {!isTeacher && view.teacherPresenting && !view.following && (
        <button type="button" className="button button-primary attention-return" data-testid="return-to-teacher" onClick={() => attention.returnToTeacher()}>
          Return to the teacher
        </button>
      )}
      {!isTeacher && view.following && (
        <span className="attention-count" data-testid="following" role="status">
          Following the teacher
        </span>
      )}
    </div>
  );
}
