import { Password, type TeacherAccount } from '@wb/protocol';
import { useState, type FormEvent } from 'react';
import { resetPassword } from '../api/teacherAccountApi.ts';
import { errorMessage, fieldProblem } from '../i18n/errors.ts';
import { useT } from '../i18n/useT.ts';
import { Field } from '../pages/Field.tsx';

/** The token of an admin's reset link (`/teacher#reset=<token>`), or null. */
export function resetTokenFromAddress(): string | null {
  const match = /^#reset=([A-Za-z0-9_-]{20,200})$/.exec(location.hash);
  return match?.[1] ?? null;
}

/** Sets a new password through a one-time link; the link's token never leaves the fragment but for this request. */
export function PasswordResetCard({ token, onSignedIn }: { token: string; onSignedIn: (teacher: TeacherAccount) => void }) {
  const t = useT();
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const checked = Password.safeParse(password);
    if (!checked.success) {
      setError(fieldProblem('password', checked.error.issues[0]));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const teacher = await resetPassword(token, checked.data);
      history.replaceState(null, '', location.pathname);
      onSignedIn(teacher);
    } catch (failure) {
      setError(errorMessage(failure, 'reset.failed'));
      setBusy(false);
    }
  };
  return (
    <div className="home-cards">
      <section className="card" aria-labelledby="reset-heading">
        <h2 id="reset-heading">{t('reset.heading')}</h2>
        <p className="card-lede">{t('reset.lede')}</p>
        <form onSubmit={submit} noValidate>
          <Field label={t('reset.newPassword')} name="password" type="password" autoComplete="new-password" hint={t('teacher.passwordHint')}
            value={password} onChange={(e) => setPassword(e.target.value)} error={error} />
          <button type="submit" className="button button-primary button-wide" disabled={busy}>
            {busy ? t('reset.saving') : t('reset.submit')}
          </button>
        </form>
      </section>
    </div>
  );
}
