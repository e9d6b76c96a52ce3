// Sign-in: the dashboard secret (DASHBOARD_SECRET), or the operator secret
// (DASHBOARD_OPERATOR_SECRET) with a name for the audit log; `npm run demo` prints both.
import { authSettings } from '@/lib/config/settings';
import { safeNext } from '@/lib/auth/session';

export default async function SignIn({
  searchParams,
}: {
  searchParams: Promise<{ next?: string; error?: string }>;
}) {
  const { next, error } = await searchParams;
  const operators = authSettings().operatorSecret !== null;
  const message =
    error === 'slow'
      ? 'Too many attempts: wait a few minutes, then try again.'
      : error
        ? 'That secret is not right.'
        : null;
  return (
    <section>
      <h1>Sign in</h1>
      <p className="muted">
        Journeys are not public: enter the dashboard secret
        {operators ? ', or the operator secret to act on dead letters' : ''}.
      </p>
      {message ? (
        <p className="banner" role="alert">
          {message}
        </p>
      ) : null}
      <form method="post" action="/signin/submit" className="search">
        <input type="hidden" name="next" value={safeNext(next)} />
        <label htmlFor="secret">Dashboard secret</label>
        <input id="secret" name="secret" type="password" autoComplete="current-password" required />
        {operators ? (
          <>
            <label htmlFor="name">Your name (operators; kept in the audit log)</label>
            <input id="name" name="name" maxLength={40} autoComplete="username" />
          </>
        ) : null}
        <button type="submit">Sign in</button>
      </form>
    </section>
  );
}
