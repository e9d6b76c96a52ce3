'use client';
// A page whose rendering failed (its data sources answer with what the page did not expect): says
// so with the reference the dashboard's log has, and offers to try again; the header stays.
export default function PageError({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <section>
      <h1>This page could not be shown</h1>
      <p className="banner" role="alert">
        Reading it failed
        {error.digest ? ` (reference ${error.digest} in the dashboard's log)` : ''}. The exporter or
        Prometheus may be away for a moment.
      </p>
      <button type="button" onClick={reset}>
        Try again
      </button>
    </section>
  );
}
