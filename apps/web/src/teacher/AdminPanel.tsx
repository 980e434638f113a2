import { Trans } from '@lingui/react';
import type { MessageId } from '@lingui/core';
import type { AdminTeacher } from '@wb/protocol';
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { accountExportPath, deleteTeacherAccount, issuePasswordReset, listTeachers, setTeacherDisabled } from '../api/teacherAccountApi.ts';
import { Field } from '../pages/Field.tsx';
import { errorMessage } from '../i18n/errors.ts';
import { formatDateTime } from '../i18n/format.ts';
import { i18n } from '../i18n/i18n.ts';
import { useT } from '../i18n/useT.ts';
import './accounts.css';

type Teachers = { status: 'loading' } | { status: 'loaded'; teachers: AdminTeacher[] } | { status: 'failed'; message: string };

const messageOf = (error: unknown, fallback: MessageId) => errorMessage(error, fallback);

/**
 * For an admin (named by the operator): every teacher account, to disable one, hand out a reset
 * link, download everything it holds, or delete it with all its lessons.
 */
export function AdminPanel({ selfId }: { selfId: string }) {
  const t = useT();
  const [teachers, setTeachers] = useState<Teachers>({ status: 'loading' });
  const [notice, setNotice] = useState<{ teacher: string; text: string; link?: string } | null>(null);
  const [deleting, setDeleting] = useState<AdminTeacher | null>(null);

  const reload = useCallback(() => {
    listTeachers().then(
      (list) => setTeachers({ status: 'loaded', teachers: list }),
      (error: unknown) => setTeachers({ status: 'failed', message: messageOf(error, 'admin.loadFailed') }),
    );
  }, []);
  useEffect(reload, [reload]);

  const toggle = async (teacher: AdminTeacher) => {
    try {
      await setTeacherDisabled(teacher.id, teacher.status === 'active');
      setNotice({ teacher: teacher.id, text: i18n._(teacher.status === 'active' ? 'admin.disabledNotice' : 'admin.enabledNotice', { name: teacher.displayName }) });
      reload();
    } catch (error) {
      setNotice({ teacher: teacher.id, text: messageOf(error, 'admin.changeFailed') });
    }
  };
  const reset = async (teacher: AdminTeacher) => {
    try {
      const link = await issuePasswordReset(teacher.id);
      const until = formatDateTime(link.expiresAt, { dateStyle: 'medium', timeStyle: 'short' });
      setNotice({ teacher: teacher.id, text: i18n._('admin.resetNotice', { name: teacher.displayName, until }), link: link.url });
    } catch (error) {
      setNotice({ teacher: teacher.id, text: messageOf(error, 'admin.resetFailed') });
    }
  };

  return (
    <section className="card admin-teachers" aria-labelledby="admin-heading">
      <h2 id="admin-heading">{t('admin.heading')}</h2>
      {teachers.status === 'loading' && <p className="muted">{t('common.loading')}</p>}
      {teachers.status === 'failed' && <p className="form-error" role="alert">{teachers.message}</p>}
      {notice && (
        <div role="status" className="admin-notice">
          <p>{notice.text}</p>
          {notice.link && <input className="admin-reset-link" readOnly value={notice.link} aria-label={t('admin.resetLinkLabel')} onFocus={(e) => e.currentTarget.select()} />}
        </div>
      )}
      {teachers.status === 'loaded' && (
        <div className="admin-table-scroll">
        <table className="attendance-table">
          <thead>
            <tr>
              <th scope="col">{t('admin.colName')}</th>
              <th scope="col">{t('teacher.email')}</th>
              <th scope="col" className="admin-optional">{t('admin.colSignsInWith')}</th>
              <th scope="col">{t('teacher.lessons')}</th>
              <th scope="col">{t('teacher.colStatus')}</th>
              <th scope="col"><span className="visually-hidden">{t('roster.actions')}</span></th>
            </tr>
          </thead>
          <tbody>
            {teachers.teachers.map((teacher) => (
              <tr key={teacher.id} data-testid="admin-teacher" data-email={teacher.email}>
                <th scope="row"><span className="attendance-name">{teacher.displayName}</span>{teacher.admin ? ` ${t('admin.isAdmin')}` : ''}</th>
                <td>{teacher.email}</td>
                <td className="admin-optional">{[...(teacher.password ? [t('admin.byPassword')] : []), ...teacher.providers].join(', ') || t('admin.byNothing')}</td>
                <td>{teacher.lessons}</td>
                <td className={teacher.status === 'disabled' ? 'admin-status-disabled' : undefined}>{teacher.status === 'active' ? t('admin.active') : t('admin.disabled')}</td>
                <td>
                  <div className="teacher-room-actions">
                  {teacher.id !== selfId && (
                    <button type="button" className="roster-action" onClick={() => void toggle(teacher)}>
                      {teacher.status === 'active' ? t('admin.disable') : t('admin.enable')}
                    </button>
                  )}
                  <button type="button" className="roster-action" onClick={() => void reset(teacher)}>{t('admin.resetLink')}</button>
                  <a className="roster-action" href={accountExportPath(teacher.id)} download>{t('admin.export')}</a>
                  {teacher.id !== selfId && (
                    <button type="button" className="roster-action" onClick={() => setDeleting(teacher)}>{t('teacher.delete')}</button>
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
          setNotice({ teacher: deleting.id, text: i18n._('admin.deletedNotice', { name: deleting.displayName, lessons }) });
          setDeleting(null);
          reload();
        }} />
      )}
    </section>
  );
}

/** Deleting an account asks for its email typed again: a slip of the mouse cannot delete a year of lessons. */
function DeleteAccountDialog({ teacher, onClose, onDeleted }: { teacher: AdminTeacher; onClose: () => void; onDeleted: (lessons: number) => void }) {
  const t = useT();
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
      setError(t('admin.confirmMismatch'));
      return;
    }
    setBusy(true);
    try {
      onDeleted((await deleteTeacherAccount(teacher.id, teacher.email)).lessons);
    } catch (failure) {
      setError(messageOf(failure, 'admin.deleteFailed'));
      setBusy(false);
    }
  };
  return (
    <dialog ref={ref} className="dialog" aria-labelledby="delete-account-title" onCancel={onClose}>
      <h2 id="delete-account-title">
        <Trans id="admin.deleteTitle" values={{ name: teacher.displayName }} components={{ 0: <span className="dialog-name" /> }} />
      </h2>
      <p>
        {t('admin.deleteText', { lessons: teacher.lessons })}
      </p>
      <form onSubmit={submit} noValidate>
        <Field label={t('admin.confirmLabel', { email: teacher.email })} name="confirmEmail" value={email} autoComplete="off" onChange={(e) => setEmail(e.target.value)} error={error} />
        <div className="actions">
          <button type="submit" className="button button-danger" disabled={busy}>{busy ? t('common.deleting') : t('admin.deleteAccount')}</button>
          <button type="button" className="button button-secondary" onClick={onClose} disabled={busy}>{t('action.cancel')}</button>
        </div>
      </form>
    </dialog>
  );
}
