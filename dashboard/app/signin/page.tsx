// Sign-in: one field, the dashboard secret (DASHBOARD_SECRET); `npm run demo` prints it.
import { safeNext } from '@/lib/session';

export default async function SignIn({
  searchParams,
}: {
  searchParams: Promise<{ next?: string; error?: string }>;
}) {
  const { next, error } = await searchParams;
  const message =
    error === 'slow'
      ? 'Too many attempts: wait a few minutes, then try again.'
      : error
        ? 'That secret is not right.'
        : null;
  return (
    <section>
      <h1>Sign in</h1>
      <p className="muted">Journeys are not public: enter the dashboard secret.</p>
      {message ? (
        <p className="banner" role="alert">
          {message}
        </p>
      ) : null}
      <form method="post" action="/signin/submit" className="search">
        <input type="hidden" name="next" value={safeNext(next)} />
        <label htmlFor="secret">Dashboard secret</label>
        <input
          id="secret"
          name="secret"
          type="password"
          autoComplete="current-password"
          required
          autoFocus
        />
        <button type="submit">Sign in</button>
      </form>
    </section>
  );
}
