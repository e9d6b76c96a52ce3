// 403: what lib/auth/operate.ts answers a dead-letter action that a viewer, or another site's page,
// sent: only a signed-in operator acts, from the dashboard's own pages.
export default function Forbidden() {
  return (
    <section>
      <h1>Not allowed</h1>
      <p data-testid="forbidden">
        Only an operator may do this, from this dashboard&apos;s own pages: sign in with the
        operator secret.
      </p>
    </section>
  );
}
