import './AttentionBar.css';
import type { CursorVisibility, SharedView } from '@wb/protocol';
import { useEffect, useRef, useState } from 'react';
import { useStore } from 'zustand';
import type { BoardEditor } from '../elements/boardEditor.ts';
import { useReportAttentionBarHeight } from '../layout/bottomDock.ts';
import { COMPACT_LAYOUT, useMediaQuery } from '../layout/mediaQuery.ts';
import type { AttentionClient } from './attentionClient.ts';
import type { MessageId } from '@lingui/core';
import { useT } from '../i18n/useT.ts';

/** Whose cursors students see, in the teacher's words. */
export const cursorVisibilityLabel: Record<CursorVisibility, MessageId> = {
  everyone: 'attention.cursors.everyone',
  teacher: 'attention.cursors.teacher',
  none: 'attention.cursors.none',
};

interface AttentionBarProps {
  attention: AttentionClient;
  editor: BoardEditor;
  /** What this screen shows now, as a shared view. */
  sharedView: () => SharedView;
  /** The board it is on (the lesson's id for the class board): bring and present name it. */
  boardId: string;
}

/**
 * The attention kit's controls, floating at the bottom of the board (every lesson page). Everyone:
 * hide others' cursors on this screen, and the laser (a student's only while the teacher allows
 * it). The teacher: bring everyone to this view of this page, present (students follow), how many follow, whose cursors
 * students see, and whether students may use the laser. A student who stopped following while the
 * teacher presents gets "Return to the teacher". The server decides every rule; this mirrors it.
 * On a phone or at 200 % zoom the teacher's class controls fold behind one "Class" button, so the
 * bar is one short row instead of a panel over the board.
 */
export function AttentionBar({ attention, editor, sharedView, boardId }: AttentionBarProps) {
  const view = useStore(attention.view);
  const settings = useStore(editor.board, (b) => b.settings);
  const isTeacher = attention.isTeacher;
  const mayLaser = isTeacher || settings.laserAllowed;
  const compact = useMediaQuery(COMPACT_LAYOUT);
  const [classOpen, setClassOpen] = useState(false);
  const t = useT();
  const bar = useRef<HTMLDivElement>(null);
  useReportAttentionBarHeight(bar);
  const classControls = isTeacher && (!compact || classOpen);
  // The teacher took the students' laser away: it goes off at once.
  useEffect(() => {
    if (!mayLaser && view.laserOn) attention.setLaser(false);
  }, [attention, mayLaser, view.laserOn]);

  return (
    <div ref={bar} className="attention-bar panel" data-over-board role="toolbar" aria-label={t('attention.label')}>
      <button type="button" className="tool-button text-button" aria-pressed={view.hideCursors} onClick={() => attention.setHideCursors(!view.hideCursors)}
        title={t('attention.hideCursorsTitle')}>
        {view.hideCursors ? t('attention.showCursors') : t('attention.hideCursors')}
      </button>
      {mayLaser && (
        <button type="button" className="tool-button text-button" aria-pressed={view.laserOn} onClick={() => attention.setLaser(!view.laserOn)}
          title={t('attention.laserTitle')} data-testid="laser-toggle">
          {t('attention.laser')}
        </button>
      )}
      {isTeacher && compact && (
        <button type="button" className="tool-button text-button" aria-expanded={classOpen} data-testid="class-controls"
          onClick={() => setClassOpen(!classOpen)} title={t('attention.classTitle')}>
          {t('attention.class')} <span aria-hidden="true">{classOpen ? '▴' : '▾'}</span>
        </button>
      )}
      {isTeacher && !classControls && view.presenting && (
        <span className="attention-count" role="status">
          {t('attention.following', { count: view.followers })}
        </span>
      )}
      {classControls && (
        <>
          <button type="button" className="tool-button text-button" onClick={() => void attention.bringEveryone(sharedView(), boardId)}
            title={t('attention.bringTitle')}>
            {t('attention.bring')}
          </button>
          <button type="button" className="tool-button text-button" aria-pressed={view.presenting}
            onClick={() => void attention.setPresenting(!view.presenting, sharedView(), boardId)} title={t('attention.presentTitle')}>
            {view.presenting ? t('attention.stopPresenting') : t('attention.present')}
          </button>
          {view.presenting && (
            <span className="attention-count" data-testid="followers" role="status">
              {t('attention.following', { count: view.followers })}
            </span>
          )}
          <label className="policy-select">
            <span className="visually-hidden">{t('attention.cursors')}</span>
            <select value={settings.cursorVisibility} data-testid="cursor-visibility" aria-label={t('attention.cursorsLabel')}
              onChange={(e) => void editor.setLessonSettings({ cursorVisibility: e.target.value as CursorVisibility })}>
              {(Object.keys(cursorVisibilityLabel) as CursorVisibility[]).map((mode) => (
                <option key={mode} value={mode}>
                  {t(cursorVisibilityLabel[mode])}
                </option>
              ))}
            </select>
          </label>
          <label className="attention-check">
            <input type="checkbox" checked={settings.laserAllowed} data-testid="laser-allowed"
              onChange={(e) => void editor.setLessonSettings({ laserAllowed: e.target.checked })} />
            {t('attention.studentsLaser')}
          </label>
        </>
      )}
      {!isTeacher && view.teacherPresenting && !view.following && (
        <button type="button" className="button button-primary attention-return" data-testid="return-to-teacher" onClick={() => attention.returnToTeacher()}>
          {t('attention.return')}
        </button>
      )}
      {!isTeacher && view.following && (
        <span className="attention-count" data-testid="following" role="status">
          {t('attention.followingTeacher')}
        </span>
      )}
    </div>
  );
}
