import Link from 'next/link';

export default function JobNotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p data-testid="not-found">
        No bulk replay has this id. See <Link href="/dead-letters">the dead letters</Link> and their
        jobs.
      </p>
    </section>
  );
}
