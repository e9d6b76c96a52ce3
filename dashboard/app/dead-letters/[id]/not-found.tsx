import Link from 'next/link';

export default function DeadLetterNotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p data-testid="not-found">
        No dead letter has this id: it may have been discarded and expired. See{' '}
        <Link href="/dead-letters">all groups</Link>.
      </p>
    </section>
  );
}
