// /dead-letters/audit: who replayed or discarded what, when, and the outcome; newest first.
import { getAudit } from '@/lib/data/api';
import { NoData } from '@/ui/deadletters/ParkingOff';
import { when } from '@/ui/deadletters/format';
import Link from 'next/link';

export const dynamic = 'force-dynamic';

export default async function Audit({
  searchParams,
}: {
  searchParams: Promise<{ before?: string }>;
}) {
  const { before } = await searchParams;
  const result = await getAudit(
    before && /^\d{1,18}$/.test(before) ? { before, limit: '100' } : { limit: '100' },
  );
  if (result.kind !== 'ok') return <NoData result={result} />;
  const { entries, next } = result.value;
  return (
    <section>
      <h1>Dead-letter audit log</h1>
      <p>
        <Link href="/dead-letters">All groups</Link>
      </p>
      <table data-testid="audit">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">Message</th>
            <th scope="col">Event</th>
            <th scope="col">Outcome</th>
            <th scope="col">Detail</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.id}>
              <td>{when(e.at)}</td>
              <td>
                {e.actor}{' '}
                <span
                  className="muted"
                  title="verified: named by a trusted proxy; asserted: typed at sign-in"
                >
                  ({e.actorVerified ? 'verified' : 'asserted'})
                </span>
              </td>
              <td>{e.action}</td>
              <td>
                {e.deadLetterId ? (
                  <Link href={`/dead-letters/${e.deadLetterId}`}>#{e.deadLetterId}</Link>
                ) : (
                  ''
                )}
              </td>
              <td>
                {e.eventId ? (
                  <Link href={`/events/${encodeURIComponent(e.eventId)}`}>
                    <code>{e.eventId}</code>
                  </Link>
                ) : (
                  ''
                )}
              </td>
              <td>{e.outcome}</td>
              <td>{e.detail ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {next ? <Link href={`/dead-letters/audit?before=${next}`}>Older</Link> : null}
    </section>
  );
}
