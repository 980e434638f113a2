import type { AdminTeacher } from '@wb/protocol';
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../api/roomsApi.ts';
import { accountExportPath, deleteTeacherAccount, issuePasswordReset, listTeachers, setTeacherDisabled } from '../api/teacherAccountApi.ts';
import { Field } from '../pages/Field.tsx';
import './accounts.css';

type Teachers = { status: 'loading' } | { status: 'loaded'; teachers: AdminTeacher[] } | { status: 'failed'; message: string };

const messageOf = (error: unknown, fallback: string) => (error instanceof ApiError ? error.message : fallback);

/**
 * For an admin (named by the operator): every teacher account, to disable one, hand out a reset
 * link, download everything it holds, or delete it with all its lessons.
 */
export function AdminPanel({ selfId }: { selfId: string }) {
  const [teachers, setTeachers] = useState<Teachers>({ status: 'loading' });
  const [notice, setNotice] = useState<{ teacher: string; text: string; link?: string } | null>(null);
  const [deleting, setDeleting] = useState<AdminTeacher | null>(null);

  const reload = useCallback(() => {
    listTeachers().then(
      (list) => setTeachers({ status: 'loaded', teachers: list }),
      (error: unknown) => setTeachers({ status: 'failed', message: messageOf(error, 'Could not load the teachers.') }),
    );
  }, []);
  useEffect(reload, [reload]);

  const toggle = async (teacher: AdminTeacher) => {
    try {
      await setTeacherDisabled(teacher.id, teacher.status === 'active');
      setNotice({ teacher: teacher.id, text: teacher.status === 'active' ? `${teacher.displayName} is disabled and signed out everywhere.` : `${teacher.displayName} can sign in again.` });
      reload();
    } catch (error) {
      setNotice({ teacher: teacher.id, text: messageOf(error, 'Could not change the account.') });
    }
  };
  const reset = async (teacher: AdminTeacher) => {
    try {
      const link = await issuePasswordReset(teacher.id);
      const until = new Date(link.expiresAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
      setNotice({ teacher: teacher.id, text: `Give this link to ${teacher.displayName}. It works once, until ${until}.`, link: link.url });
    } catch (error) {
      setNotice({ teacher: teacher.id, text: messageOf(error, 'Could not make a reset link.') });
    }
  };

  return (
    <section className="card admin-teachers" aria-labelledby="admin-heading">
      <h2 id="admin-heading">Teachers</h2>
      {teachers.status === 'loading' && <p className="muted">Loading…</p>}
      {teachers.status === 'failed' && <p className="form-error" role="alert">{teachers.message}</p>}
      {notice && (
        <div role="status" className="admin-notice">
          <p>{notice.text}</p>
          {notice.link && <input className="admin-reset-link" readOnly value={notice.link} aria-label="Password reset link" onFocus={(e) => e.currentTarget.select()} />}
        </div>
      )}
      {teachers.status === 'loaded' && (
        <div className="admin-table-scroll">
        <table className="attendance-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col" className="admin-optional">Signs in with</th>
              <th scope="col">Lessons</th>
              <th scope="col">Status</th>
              <th scope="col"><span className="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {teachers.teachers.map((teacher) => (
              <tr key={teacher.id} data-testid="admin-teacher" data-email={teacher.email}>
                <th scope="row"><span className="attendance-name">{teacher.displayName}</span>{teacher.admin ? ' (admin)' : ''}</th>
                <td>{teacher.email}</td>
                <td className="admin-optional">{[...(teacher.password ? ['password'] : []), ...teacher.providers].join(', ') || 'nothing yet'}</td>
                <td>{teacher.lessons}</td>
                <td className={teacher.status === 'disabled' ? 'admin-status-disabled' : undefined}>{teacher.status === 'active' ? 'Active' : 'Disabled'}</td>
                <td>
                  <div className="teacher-room-actions">
                  {teacher.id !== selfId && (
                    <button type="button" className="roster-action" onClick={() => void toggle(teacher)}>
                      {teacher.status === 'active' ? 'Disable' : 'Enable'}
                    </button>
                  )}
                  <button type="button" className="roster-action" onClick={() => void reset(teacher)}>Reset link</button>
                  <a className="roster-action" href={accountExportPath(teacher.id)} download>Export</a>
                  {teacher.id !== selfId && (
                    <button type="button" className="roster-action" onClick={() => setDeleting(teacher)}>Delete</button>
                  )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
      )}
      {deleting && (
        <DeleteAccountDialog teacher={deleting} onClose={() => setDeleting(null)} onDeleted={(lessons) => {
          setNotice({ teacher: deleting.id, text: `${deleting.displayName}’s account and ${lessons === 1 ? '1 lesson' : `${lessons} lessons`} are deleted.` });
          setDeleting(null);
          reload();
        }} />
      )}
    </section>
  );
}

/** Deleting an account asks for its email typed again: a slip of the mouse cannot delete a year of lessons. */
function DeleteAccountDialog({ teacher, onClose, onDeleted }: { teacher: AdminTeacher; onClose: () => void; onDeleted: (lessons: number) => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (email.trim().toLowerCase() !== teacher.email) {
      setError('Type the account’s email exactly to confirm.');
      return;
    }
    setBusy(true);
    try {
      onDeleted((await deleteTeacherAccount(teacher.id, teacher.email)).lessons);
    } catch (failure) {
      setError(messageOf(failure, 'Could not delete the account.'));
      setBusy(false);
    }
  };
  return (
    <dialog ref={ref} className="dialog" aria-labelledby="delete-account-title" onCancel={onClose}>
      <h2 id="delete-account-title">
        Delete <span className="dialog-name">{teacher.displayName}</span>’s account?
      </h2>
      <p>
        The account and its {teacher.lessons === 1 ? 'lesson' : `${teacher.lessons} lessons`}, with every board, picture, student’s work
        and attendance record in them, are deleted for good. Export them first if they must be kept.
      </p>
      <form onSubmit={submit} noValidate>
        <Field label={`Type ${teacher.email} to confirm`} name="confirmEmail" value={email} autoComplete="off" onChange={(e) => setEmail(e.target.value)} error={error} />
        <div className="actions">
          <button type="submit" className="button button-danger" disabled={busy}>{busy ? 'Deleting…' : 'Delete account'}</button>
          <button type="button" className="button button-secondary" onClick={onClose} disabled={busy}>Cancel</button>
        </div>
      </form>
    </dialog>
  );
}
