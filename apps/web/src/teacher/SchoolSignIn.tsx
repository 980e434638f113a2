import { OidcSignInError, signInErrorText, type SignInOptions } from '@wb/protocol';
import { providerSignInPath } from '../api/teacherAccountApi.ts';
import './accounts.css';

const isSignInError = (code: string): code is OidcSignInError => (Object.values(OidcSignInError) as string[]).includes(code);

/**
 * Why the last sign-in through the school's provider was refused (`/teacher?signInError=<code>`,
 * set by the server's callback), read once: the address is cleaned so a reload does not repeat it.
 */
export function takeSignInError(): string | null {
  const params = new URLSearchParams(location.search);
  const code = params.get('signInError');
  if (code === null) return null;
  params.delete('signInError');
  history.replaceState(null, '', `${location.pathname}${params.size > 0 ? `?${params.toString()}` : ''}${location.hash}`);
  return isSignInError(code) ? signInErrorText[code] : 'The sign-in did not complete. Start again.';
}

/** One button per provider the operator configured: each a plain link, so the provider's page opens. */
export function SchoolSignInCard({ providers, error }: { providers: SignInOptions['providers']; error: string | null }) {
  return (
    <section className="card school-sign-in" aria-labelledby="school-sign-in-heading">
      <h2 id="school-sign-in-heading">Sign in with your school account</h2>
      <p className="card-lede">Use the account your school gave you. No new password to remember.</p>
      <div className="school-sign-in-buttons">
        {providers.map((provider) => (
          <a key={provider.id} className="button button-primary button-wide" href={providerSignInPath(provider.id)}>
            Continue with {provider.name}
          </a>
        ))}
      </div>
      {error && <p className="form-error" role="alert">{error}</p>}
    </section>
  );
}
