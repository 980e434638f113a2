import { useEffect, useId, useRef, useState, type FormEvent } from 'react';

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
      setError(failure instanceof Error ? failure.message : 'Could not remove this student. Try again.');
      setBusy(false);
    }
  };

  return (
    <dialog ref={ref} className="dialog" aria-labelledby="remove-title" onCancel={onClose} data-testid="remove-dialog">
      <form onSubmit={submit}>
        <h2 id="remove-title">
          Remove <span className="dialog-name">{displayName}</span> from the lesson?
        </h2>
        <p>They leave the board at once and cannot join again until you restore them.</p>
        <div className="field">
          <label htmlFor={reasonId}>Reason (optional, shown to them)</label>
          <input id={reasonId} value={reason} maxLength={MAX_REASON} onChange={(e) => setReason(e.target.value)} autoComplete="off" />
        </div>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <div className="actions">
          <button type="submit" className="button button-danger" disabled={busy}>
            {busy ? 'Removing…' : 'Remove'}
          </button>
          <button type="button" className="button button-secondary" onClick={onClose} disabled={busy}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
