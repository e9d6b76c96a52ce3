// Shown while a page reads its data from the exporter: the header and its search box stay
// usable. Pages that answer 404 for an unknown id have none: a loading boundary starts the
// response before the page knows, and the status would be 200.
export function PageLoading() {
  return (
    <section aria-busy="true">
      <p className="muted" role="status">
        Loading…
      </p>
      <div className="skeleton panel-skeleton" />
    </section>
  );
}
