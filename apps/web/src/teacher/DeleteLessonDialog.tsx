import type { TeacherRoom } from '@wb/protocol';
import { useEffect, useRef, useState } from 'react';
import { Trans } from '@lingui/react';
import { deleteMyRoom } from '../api/teacherAccountApi.ts';
import { errorMessage } from '../i18n/errors.ts';
import { useT } from '../i18n/useT.ts';

/** Asks before a lesson is deleted for good: its boards, pictures, students' work and attendance. */
export function DeleteLessonDialog({ room, onClose, onDeleted }: { room: TeacherRoom; onClose: () => void; onDeleted: () => void }) {
  const t = useT();
  const ref = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  const remove = async () => {
    setBusy(true);
    try {
      await deleteMyRoom(room.code);
      onDeleted();
    } catch (failure) {
      setError(errorMessage(failure, 'deleteLesson.failed'));
      setBusy(false);
    }
  };
  return (
    <dialog ref={ref} className="dialog" aria-labelledby="delete-lesson-title" onCancel={onClose}>
      <h2 id="delete-lesson-title">
        <Trans id="deleteLesson.title" values={{ title: room.title }} components={{ 0: <span className="dialog-name" /> }} />
      </h2>
      <p>
        {t('deleteLesson.text')}
      </p>
      {error && <p className="form-error" role="alert">{error}</p>}
      <div className="actions">
        <button type="button" className="button button-danger" onClick={remove} disabled={busy}>{busy ? t('common.deleting') : t('deleteLesson.confirm')}</button>
        <button type="button" className="button button-secondary" onClick={onClose} disabled={busy}>{t('action.cancel')}</button>
      </div>
    </dialog>
  );
}
