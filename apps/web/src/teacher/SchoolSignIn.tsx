import { OidcSignInError, type SignInOptions } from '@wb/protocol';
import { providerSignInPath } from '../api/teacherAccountApi.ts';
import { useT } from '../i18n/useT.ts';
import './accounts.css';

const isSignInError = (code: string): code is OidcSignInError => (Object.values(OidcSignInError) as string[]).includes(code);

/**
 * Why the last sign-in through the school's provider was refused (`/teacher?signInError=<code>`,
 * set by the server's callback), read once: the address is cleaned so a reload does not repeat it.
 */
export function takeSignInError(): OidcSignInError | 'unknown' | null {
  const params = new URLSearchParams(location.search);
  const code = params.get('signInError');
  if (code === null) return null;
  params.delete('signInError');
  history.replaceState(null, '', `${location.pathname}${params.size > 0 ? `?${params.toString()}` : ''}${location.hash}`);
  return isSignInError(code) ? code : 'unknown';
}

/** One button per provider the operator configured: each a plain link, so the provider's page opens. */
export function SchoolSignInCard({ providers, error }: { providers: SignInOptions['providers']; error: OidcSignInError | 'unknown' | null }) {
  const t = useT();
  return (
    <section className="card school-sign-in" aria-labelledby="school-sign-in-heading">
      <h2 id="school-sign-in-heading">{t('school.heading')}</h2>
      <p className="card-lede">{t('school.lede')}</p>
      <div className="school-sign-in-buttons">
        {providers.map((provider) => (
          <a key={provider.id} className="button button-primary button-wide" href={providerSignInPath(provider.id)}>
            {t('school.continueWith', { provider: provider.name })}
          </a>
        ))}
      </div>
      {error && <p className="form-error" role="alert">{error === 'unknown' ? t('school.incomplete') : t(`refusal.${error}`)}</p>}
    </section>
  );
}
