// What the business-key lookups found for a value when it is not one page: several aggregates or
// events (newest first, as the lookup's query orders them), a list cut at its maxRows, a lookup
// that failed, or nothing. The value itself is not here: the URL holds only ids.
import Link from 'next/link';
import { getWords } from '@/lib/data/api';

export const dynamic = 'force-dynamic';

type Params = Record<string, string | string[] | undefined>;
const all = (v: string | string[] | undefined) => (v === undefined ? [] : [v].flat()).slice(0, 200);

export default async function Found({ searchParams }: { searchParams: Promise<Params> }) {
  const p = await searchParams;
  const { aggregate } = await getWords();
  const aggregates = all(p.a);
  const events = all(p.e);
  const by = all(p.by);
  return (
    <main>
      <h1>Found by {by.join(', ') || 'the lookups'}</h1>
      {aggregates.length + events.length === 0 ? (
        <p data-testid="lookup-none">
          Nothing matched: no {aggregate} and no event has that value. An id (event, {aggregate},
          message or trace) is looked up as such.
        </p>
      ) : null}
      {aggregates.length ? (
        <>
          <h2>
            {aggregates.length} {aggregate}
            {aggregates.length > 1 ? 's' : ''}, newest first
          </h2>
          <ul data-testid="lookup-aggregates">
            {aggregates.map((id) => (
              <li key={id}>
                <Link href={`/orders/${encodeURIComponent(id)}`}>
                  {aggregate} {id}
                </Link>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {events.length ? (
        <>
          <h2>{events.length} events</h2>
          <ul data-testid="lookup-events">
            {events.map((id) => (
              <li key={id}>
                <Link href={`/events/${encodeURIComponent(id)}`}>{id}</Link>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {all(p.cut).map((name) => (
        <p key={name} className="muted">
          {name} found more than it lists (lookups[].maxRows).
        </p>
      ))}
      {all(p.failed).map((why) => (
        <p key={why} className="banner warn" role="status">
          {why}
        </p>
      ))}
    </main>
  );
}
