/**
 * A prepared lesson (issue 39): the teacher fills its pages before class while students who have
 * the link wait on "not started yet"; this banner says so and starts it (`lesson.start`).
 */
import { useState } from 'react';
import { useStore } from 'zustand';
import type { RoomClient } from '../connection/roomClient.ts';
import { useT } from '../i18n/useT.ts';
import './StartLessonBanner.css';

export function StartLessonBanner({ client }: { client: RoomClient }) {
  const t = useT();
  const prepared = useStore(client.view, (v) => v.state !== null && v.state.room.startedAt === null);
  const [busy, setBusy] = useState(false);
  if (!prepared) return null;
  return (
    <div className="lesson-start-banner panel" data-over-board role="status" data-testid="lesson-prepared">
      <span>{t('lesson.preparedBanner')}</span>
      <button type="button" className="button button-primary" disabled={busy}
        onClick={() => {
          setBusy(true);
          void client.pages.startLesson().finally(() => setBusy(false));
        }}>
        {t('lesson.start')}
      </button>
    </div>
  );
}
