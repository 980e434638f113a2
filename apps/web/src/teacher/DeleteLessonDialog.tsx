import type { TeacherRoom } from '@wb/protocol';
import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../api/roomsApi.ts';
import { deleteMyRoom } from '../api/teacherAccountApi.ts';

/** Asks before a lesson is deleted for good: its boards, pictures, students' work and attendance. */
export function DeleteLessonDialog({ room, onClose, onDeleted }: { room: TeacherRoom; onClose: () => void; onDeleted: () => void }) {
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
      setError(failure instanceof ApiError ? failure.message : 'Could not delete the lesson.');
      setBusy(false);
    }
  };
  return (
    <dialog ref={ref} className="dialog" aria-labelledby="delete-lesson-title" onCancel={onClose}>
      <h2 id="delete-lesson-title">
        Delete <span className="dialog-name">{room.title}</span>?
      </h2>
      <p>
        Its boards, pictures, every student’s work and its attendance are deleted for good. Anyone still in it is disconnected.
        This cannot be undone.
      </p>
      {error && <p className="form-error" role="alert">{error}</p>}
      <div className="actions">
        <button type="button" className="button button-danger" onClick={remove} disabled={busy}>{busy ? 'Deleting…' : 'Delete for good'}</button>
        <button type="button" className="button button-secondary" onClick={onClose} disabled={busy}>Cancel</button>
      </div>
    </dialog>
  );
}
