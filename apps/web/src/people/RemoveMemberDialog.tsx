import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { errorMessage } from '../i18n/errors.ts';
import { Trans } from '@lingui/react';
import { useT } from '../i18n/useT.ts';

interface RemoveMemberDialogProps {
  displayName: string;
  /** Resolves when the server has removed the student; a rejection's message is shown. */
  onConfirm: (reason: string) => Promise<void>;
  onClose: () => void;
}

/** Reasons are at most 200 characters (the revoke route's limit). */
const MAX_REASON = 200;

/**
 * Asks the teacher to confirm a removal, with an optional reason the student will see. Removal is
 * immediate and ends the student's sessions, so it is never one click.
 */
export function RemoveMemberDialog({ displayName, onConfirm, onClose }: RemoveMemberDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const reasonId = useId();
  const t = useT();

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onConfirm(reason);
      onClose();
    } catch (failure) {
      setError(errorMessage(failure, 'remove.failed'));
      setBusy(false);
    }
  };

  return (
    <dialog ref={ref} className="dialog" aria-labelledby="remove-title" onCancel={onClose} data-testid="remove-dialog">
      <form onSubmit={submit}>
        <h2 id="remove-title">
          <Trans id="remove.title" values={{ name: displayName }} components={{ 0: <span className="dialog-name" /> }} />
        </h2>
        <p>{t('remove.text')}</p>
        <div className="field">
          <label htmlFor={reasonId}>{t('remove.reason')}</label>
          <input id={reasonId} value={reason} maxLength={MAX_REASON} onChange={(e) => setReason(e.target.value)} autoComplete="off" />
        </div>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <div className="actions">
          <button type="submit" className="button button-danger" disabled={busy}>
            {busy ? t('remove.removing') : t('teacher.remove')}
          </button>
          <button type="button" className="button button-secondary" onClick={onClose} disabled={busy}>
            {t('action.cancel')}
          </button>
        </div>
      </form>
    </dialog>
  );
}
