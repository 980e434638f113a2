import { Password, type TeacherAccount } from '@wb/protocol';
import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/roomsApi.ts';
import { resetPassword } from '../api/teacherAccountApi.ts';
import { Field } from '../pages/Field.tsx';

/** The token of an admin's reset link (`/teacher#reset=<token>`), or null. */
export function resetTokenFromAddress(): string | null {
  const match = /^#reset=([A-Za-z0-9_-]{20,200})$/.exec(location.hash);
  return match?.[1] ?? null;
}

/** Sets a new password through a one-time link; the link's token never leaves the fragment but for this request. */
export function PasswordResetCard({ token, onSignedIn }: { token: string; onSignedIn: (teacher: TeacherAccount) => void }) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const checked = Password.safeParse(password);
    if (!checked.success) {
      setError(checked.error.issues[0]?.message ?? 'Check the password');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const teacher = await resetPassword(token, checked.data);
      history.replaceState(null, '', location.pathname);
      onSignedIn(teacher);
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : 'Could not set the password. Try again.');
      setBusy(false);
    }
  };
  return (
    <div className="home-cards">
      <section className="card" aria-labelledby="reset-heading">
        <h2 id="reset-heading">Choose a new password</h2>
        <p className="card-lede">This link works once. Your other signed-in browsers will be signed out.</p>
        <form onSubmit={submit} noValidate>
          <Field label="New password" name="password" type="password" autoComplete="new-password" hint="At least 10 characters."
            value={password} onChange={(e) => setPassword(e.target.value)} error={error} />
          <button type="submit" className="button button-primary button-wide" disabled={busy}>
            {busy ? 'Saving…' : 'Set password and sign in'}
          </button>
        </form>
      </section>
    </div>
  );
}
