export default function AggregateNotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p data-testid="not-found">
        No event in the journeys kept names this id as its aggregate. Check the id, or search again
        above.
      </p>
    </section>
  );
}
